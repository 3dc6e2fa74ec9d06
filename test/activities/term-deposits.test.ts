import test from 'ava';
import type { Knex } from 'knex';
import { postSavingsInterest } from '../../activities/members/savings-interest.activity';
import { matureTermDeposits } from '../../activities/members/term-deposits.activity';
import { Money } from '../../domain/money';
import { startTestApp, testActivityContext, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import {
  accountBalance,
  createLoanWorld,
  ledgerBalanced,
  memberOf,
  setBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { runMonthEnd } from '../helpers/month-ends';
import { accountOf, savingsProductOf } from '../helpers/savings';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * Term deposits at maturity (renewal) and closed before it (docs/domain.md §9). Every figure is computed here by
 * hand, independently of the product's code: 30/360, a month 30 days, the gross half up to the franc, the tax the
 * withholding rate of that gross half up, the net the rest.
 */
const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
});

const context = () => testActivityContext(knex);
const francs = (amount: Money) => amount.toDecimalPlaces(0, Money.ROUND_HALF_UP);
const accountRow = async (id: string) =>
  knex('comptes_clients')
    .where({ id })
    .first('balance', 'status', 'closed_on', knex.raw(`to_char(maturity_date, 'YYYY-MM-DD') AS maturity_date`));
const monthOf = (enterpriseId: string, period: string) => {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return {
    enterpriseId,
    periodStart: `${period}-01`,
    periodEnd: new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10),
  };
};

async function reconciliation(world: LoanWorld) {
  const answer = await app.request('GET', `/api/v1/members/reconciliation/?enterprise=${world.enterpriseId}`, {
    headers: world.users.direction!.headers,
  });
  return answer.body.count as number;
}

const dailyRun = (world: LoanWorld) =>
  app.request('POST', '/api/v1/members/term-deposit-maturities/runs/', {
    headers: world.users.direction!.headers,
    json: { enterprise: world.enterpriseId },
  });

/**
 * A member with a demand account of 10 000 and a term account of `principal` under a 3-month 6 % product (10 %
 * withheld) opened 15 January 2026.
 */
async function termWorld(code: string, product: Record<string, unknown>, principal = '1000000') {
  const world = await createLoanWorld(app, knex, code, { capital: false });
  await setBusinessDate(world, '2026-01-15');
  const termProduct = await savingsProductOf(world, {
    code: 'DAT',
    kind: 'term_deposit',
    term_months: 3,
    deposit_account_code: '36100',
    interest_rate: '0.06',
    withholding_tax_rate: '0.1',
    ...product,
  });
  const member = await memberOf(world);
  const demand = await accountOf(world, member, world.savingsProductId, '10000');
  const term = await accountOf(world, member, termProduct, principal);
  return { world, termProduct, member, demand, term };
}

test(
  'renew: the principal is renewed for a new term of the same length from the maturity day, the ' +
    'interest paid out; the second maturity posts again; a rerun posts nothing',
  async (t) => {
    const { world, demand, term } = await termWorld('TD1', { maturity_instruction: 'renew' });
    await setBusinessDate(world, '2026-04-15');
    t.like(
      (await dailyRun(world)).body,
      { matured: 1, entries: 4, refused: [] },
      'interest, tax, the interest out of the term account and into the demand account',
    );
    // 15 January to 14 April: 16 + 30 + 30 + 14 = 90 days of 30/360 on 1 000 000 at 6 %.
    const gross = francs(new Money(1_000_000).times('0.06').times(90).div(360));
    const tax = francs(gross.times('0.1'));
    const net = gross.minus(tax);
    t.deepEqual(
      [gross, tax, net].map((amount) => amount.toFixed(0)),
      ['15000', '1500', '13500'],
    );
    t.like(await accountRow(term), {
      balance: '1000000',
      status: 'open',
      closed_on: null,
      maturity_date: '2026-07-15',
    });
    t.is((await accountRow(demand)).balance, net.plus(10_000).toFixed(0));
    t.like((await dailyRun(world)).body, { matured: 0, entries: 0 }, 'a rerun the same day posts nothing');

    await setBusinessDate(world, '2026-07-15');
    t.like((await dailyRun(world)).body, { matured: 1, entries: 4 }, 'the renewed term matures again');
    // 15 April to 14 July: 16 + 30 + 30 + 14 = 90 days again, on the same principal.
    const second = francs(new Money(1_000_000).times('0.06').times(90).div(360));
    const secondNet = second.minus(francs(second.times('0.1')));
    t.like(await accountRow(term), { balance: '1000000', status: 'open', maturity_date: '2026-10-15' });
    t.is((await accountRow(demand)).balance, net.plus(secondNet).plus(10_000).toFixed(0));
    t.like((await dailyRun(world)).body, { matured: 0, entries: 0 });

    const listed = await app.request('GET', `/api/v1/members/term-deposit-maturities/?account=${term}`, {
      headers: world.users.direction!.headers,
    });
    const fields = (row: Record<string, unknown>) => [
      row.maturity_date,
      row.period_end,
      row.instruction,
      row.amount,
      row.renewed_principal,
      row.renewed_until,
      row.payout_account,
    ];
    t.deepEqual(listed.body.results.map(fields), [
      ['2026-07-15', '2026-07-31', 'renew', secondNet.toFixed(0), '1000000', '2026-10-15', demand],
      ['2026-04-15', '2026-04-30', 'renew', net.toFixed(0), '1000000', '2026-07-15', demand],
    ]);
    const postings = await knex('savings_interest_postings')
      .where({ compte_client_id: term })
      .orderBy('period_end')
      .select('interest_from', 'interest_to', 'gross', 'occasion');
    t.deepEqual(postings, [
      { interest_from: '2026-01-15', interest_to: '2026-04-14', gross: gross.toFixed(0), occasion: 'maturity' },
      { interest_from: '2026-04-15', interest_to: '2026-07-14', gross: second.toFixed(0), occasion: 'maturity' },
    ]);
    // The month end of July finds it matured: it posts nothing and answers the July maturity's figures.
    await setBusinessDate(world, '2026-08-01');
    const monthEnd = await matureTermDeposits(context(), monthOf(world.enterpriseId, '2026-07'));
    t.like(monthEnd, { entries: 0, amount: secondNet.toFixed(0) });
    t.is(await accountBalance(knex, world.enterpriseId, '36100'), '-1000000', 'the principal still deposited');
    t.is(await accountBalance(knex, world.enterpriseId, '612'), gross.plus(second).toFixed(0));
    t.is(await accountBalance(knex, world.enterpriseId, '459'), '0');
    t.is(await reconciliation(world), 0);
    t.true(await ledgerBalanced(knex, world.enterpriseId));
  },
);

test('renew_with_interest: the interest net of tax becomes principal, and the second term earns on it', async (t) => {
  const { world, demand, term } = await termWorld('TD2', { maturity_instruction: 'renew_with_interest' });
  await setBusinessDate(world, '2026-04-15');
  t.like((await dailyRun(world)).body, { matured: 1, entries: 2 }, 'the interest and its tax; nothing moves out');
  const gross = francs(new Money(1_000_000).times('0.06').times(90).div(360));
  const principal = new Money(1_000_000).plus(gross).minus(francs(gross.times('0.1')));
  t.is(principal.toFixed(0), '1013500');
  t.like(await accountRow(term), { balance: principal.toFixed(0), status: 'open', maturity_date: '2026-07-15' });
  t.is((await accountRow(demand)).balance, '10000', 'nothing paid out');

  // Two maturities due by a business date a term late: the run catches up term by term.
  await setBusinessDate(world, '2026-10-20');
  t.like((await dailyRun(world)).body, { matured: 2, refused: [] });
  const second = francs(principal.times('0.06').times(90).div(360));
  const afterSecond = principal.plus(second).minus(francs(second.times('0.1')));
  const third = francs(afterSecond.times('0.06').times(90).div(360));
  const afterThird = afterSecond.plus(third).minus(francs(third.times('0.1')));
  t.deepEqual(
    [second, afterSecond, third, afterThird].map((amount) => amount.toFixed(0)),
    ['15203', '1027183', '15408', '1041050'],
  );
  t.like(await accountRow(term), { balance: afterThird.toFixed(0), status: 'open', maturity_date: '2027-01-15' });
  const rows = await knex('term_deposit_maturities')
    .where({ compte_client_id: term })
    .orderBy('maturity_date')
    .select('amount', 'renewed_principal', 'payout_account_id', 'period_end');
  t.deepEqual(rows, [
    { amount: '0', renewed_principal: principal.toFixed(0), payout_account_id: null, period_end: '2026-04-30' },
    { amount: '0', renewed_principal: afterSecond.toFixed(0), payout_account_id: null, period_end: '2026-07-31' },
    { amount: '0', renewed_principal: afterThird.toFixed(0), payout_account_id: null, period_end: '2026-10-31' },
  ]);
  t.is(await accountBalance(knex, world.enterpriseId, '36100'), `-${afterThird.toFixed(0)}`);
  t.is(await reconciliation(world), 0);
  t.true(await ledgerBalanced(knex, world.enterpriseId));
});

const closeEarly = (world: LoanWorld, account: string, as = 'branch_head') =>
  app.request('POST', `/api/v1/members/accounts/${account}/early-closure/`, {
    headers: world.users[as]!.headers,
    json: { reason: 'the member needs the money' },
  });

test(
  'early closure of a term paid at maturity: the term earns the penalty rate from its opening to ' +
    'the day before; standing accruals are reversed by the next month end',
  async (t) => {
    const { world, demand, term } = await termWorld('TD3', { term_months: 12, early_closure_rate: '0.02' });
    await setBusinessDate(world, '2026-05-01');
    await withWorker(knex, async () => t.is((await runMonthEnd(world, '2026-04')).body.status, 'done'), taskQueue);
    const standing = await knex('savings_interest_accruals')
      .where({ compte_client_id: term })
      .whereNull('reversal_entry_id')
      .select('amount');
    // Accrued at the contract rate since the opening (paid at maturity, nothing paid yet): 15 January to 30 April, 16 +
    // 30 + 30 + 30 = 106 days.
    t.deepEqual(
      standing,
      [{ amount: francs(new Money(1_000_000).times('0.06').times(106).div(360)).toFixed(0) }],
      'the interest earned and not paid, accrued',
    );

    await setBusinessDate(world, '2026-05-10');
    const closed = await closeEarly(world, term);
    t.is(closed.status, 200, closed.text);
    // 15 January to 9 May: 16 + 30 + 30 + 30 + 9 = 115 days of 30/360 on 1 000 000 at 2 % instead of 6 %; 10 %
    // withheld.
    const gross = francs(new Money(1_000_000).times('0.02').times(115).div(360));
    const tax = francs(gross.times('0.1'));
    const amount = new Money(1_000_000).plus(gross).minus(tax);
    t.deepEqual(
      [gross, tax, amount].map((figure) => figure.toFixed(0)),
      ['6389', '639', '1005750'],
    );
    t.like(closed.body, {
      account: term,
      payout_account: demand,
      closed_on: '2026-05-10',
      term_started_on: '2026-01-15',
      maturity_date: '2027-01-15',
      interest_to: '2026-05-09',
      early_closure_rate: '0.02',
      principal: '1000000',
      gross_due: gross.toFixed(0),
      tax_due: tax.toFixed(0),
      gross_paid: '0',
      tax_paid: '0',
      amount: amount.toFixed(0),
    });
    t.like(await accountRow(term), { balance: '0', status: 'closed', closed_on: '2026-05-10' });
    t.is((await accountRow(demand)).balance, amount.plus(10_000).toFixed(0));
    const audit = await knex('audit_events')
      .where({ entity_id: term, action: 'compte_client.close_early' })
      .first('actor_id', 'details');
    t.is(audit?.actor_id, world.users.branch_head!.id);
    t.like(audit?.details, { reason: 'the member needs the money', amount: amount.toFixed(0) });

    // May's month end reverses April's accrual and accrues nothing for the closed account: the expense is the penalty
    // interest.
    await setBusinessDate(world, '2026-06-01');
    await withWorker(knex, async () => t.is((await runMonthEnd(world, '2026-05')).body.status, 'done'), taskQueue);
    t.is(
      (await knex('savings_interest_accruals').where({ compte_client_id: term }).whereNull('reversal_entry_id')).length,
      0,
    );
    t.is(await accountBalance(knex, world.enterpriseId, '612'), gross.toFixed(0));
    t.is(await accountBalance(knex, world.enterpriseId, '36900'), '0');
    t.is(await accountBalance(knex, world.enterpriseId, '36100'), '0');
    t.is(await accountBalance(knex, world.enterpriseId, '4302'), `-${tax.toFixed(0)}`);
    t.is(await accountBalance(knex, world.enterpriseId, '459'), '0');
    t.is(await reconciliation(world), 0);
    t.true(await ledgerBalanced(knex, world.enterpriseId));
  },
);

test(
  'early closure of a term paying its interest each month: the interest paid beyond the penalty ' +
    'rate is recovered from the principal, its tax given back',
  async (t) => {
    const { world, demand, term } = await termWorld('TD4', {
      term_months: 12,
      interest_payment: 'to_payout_account',
      early_closure_rate: '0.01',
    });
    for (const [period, next] of [
      ['2026-01', '2026-02-01'],
      ['2026-02', '2026-03-01'],
      ['2026-03', '2026-04-01'],
    ] as const) {
      await setBusinessDate(world, next);
      await postSavingsInterest(context(), monthOf(world.enterpriseId, period));
    }
    // Paid at 6 %: January 16 days, February and March 30 each; each posting's tax half up on its own gross.
    const monthly = [16, 30, 30].map((days) => francs(new Money(1_000_000).times('0.06').times(days).div(360)));
    const paidGross = monthly.reduce((sum, gross) => sum.plus(gross), new Money(0));
    const paidTax = monthly.reduce((sum, gross) => sum.plus(francs(gross.times('0.1'))), new Money(0));
    t.deepEqual(
      [paidGross, paidTax].map((figure) => figure.toFixed(0)),
      ['12667', '1267'],
    );
    t.is((await accountRow(demand)).balance, paidGross.minus(paidTax).plus(10_000).toFixed(0));

    await setBusinessDate(world, '2026-04-20');
    const closed = await closeEarly(world, term, 'direction');
    t.is(closed.status, 200, closed.text);
    // 15 January to 19 April: 16 + 30 + 30 + 19 = 95 days at 1 %.
    const gross = francs(new Money(1_000_000).times('0.01').times(95).div(360));
    const tax = francs(gross.times('0.1'));
    const recovered = paidGross.minus(paidTax).minus(gross.minus(tax));
    t.deepEqual(
      [gross, tax, recovered].map((figure) => figure.toFixed(0)),
      ['2639', '264', '9025'],
    );
    t.like(closed.body, {
      gross_due: '2639',
      tax_due: '264',
      gross_paid: '12667',
      tax_paid: '1267',
      amount: new Money(1_000_000).minus(recovered).toFixed(0),
    });
    t.is(
      (await accountRow(demand)).balance,
      new Money(1_010_000).plus(gross).minus(tax).toFixed(0),
      'the member keeps the principal and the interest at the penalty rate, net',
    );
    const kinds = await knex('business_event_logs')
      .where({ subject_id: term, business_date: '2026-04-20' })
      .orderBy('kind')
      .select('kind', 'amount');
    t.deepEqual(kinds, [
      { kind: 'savings_interest_recovery', amount: paidGross.minus(gross).toFixed(0) },
      { kind: 'term_deposit_early_closure', amount: new Money(1_000_000).minus(recovered).toFixed(0) },
      { kind: 'withholding_tax_refund', amount: paidTax.minus(tax).toFixed(0) },
    ]);
    t.is(await accountBalance(knex, world.enterpriseId, '612'), gross.toFixed(0));
    t.is(await accountBalance(knex, world.enterpriseId, '4302'), `-${tax.toFixed(0)}`);
    t.is(await accountBalance(knex, world.enterpriseId, '36100'), '0');
    t.is(await reconciliation(world), 0);
    t.true(await ledgerBalanced(knex, world.enterpriseId));
  },
);

test(
  'early closure is refused, naming the account, for another kind, a closed, frozen or matured ' +
    'term, and a role below branch head; nothing is posted',
  async (t) => {
    const { world, demand, term, termProduct, member } = await termWorld('TD5', {});
    const problem = async (account: string, code: string, as = 'branch_head') => {
      const refused = await closeEarly(world, account, as);
      t.like(refused.body, { status: 409, code, errors: [{ field: 'id' }] }, code);
      t.is(refused.headers.get('content-type'), 'application/problem+json');
    };
    await problem(demand, 'not_a_term_deposit');
    t.is((await closeEarly(world, term, 'cashier')).status, 403, 'a cashier');
    t.is((await closeEarly(world, term, 'other_head')).status, 404, 'the head of another branch does not see it');
    const frozen = await accountOf(world, member, termProduct, '500000');
    await app.request('POST', `/api/v1/members/accounts/${frozen}/freeze/`, {
      headers: world.users.branch_head!.headers,
      json: { reason: 'a dispute' },
    });
    await problem(frozen, 'account_not_open');
    await setBusinessDate(world, '2026-04-15');
    await problem(term, 'term_deposit_matured');
    t.is(
      (await knex('business_event_logs').where({ subject_id: term }).whereNot('kind', 'deposit')).length,
      0,
      'nothing posted',
    );
    t.like((await dailyRun(world)).body, { matured: 1 });
    await problem(term, 'account_not_open');
    t.is((await closeEarly(world, '00000000-0000-4000-8000-000000000000')).status, 404);
    t.is(
      (
        await app.request('POST', `/api/v1/members/accounts/${term}/early-closure/`, {
          headers: world.users.branch_head!.headers,
          json: {},
        })
      ).body.errors[0].field,
      'reason',
    );
    t.is(await reconciliation(world), 0);
  },
);
