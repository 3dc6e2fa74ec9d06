import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { decideApprovalRequest } from '../../activities/approvals/approval-request.activity';
import { recordLoanDecision } from '../../activities/loans/loan-approval.activity';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { approveRequest } from '../helpers/approvals';
import { createTestDatabase } from '../helpers/database';
import {
  accountBalance,
  asApprover,
  ledgerBalanced,
  memberOf,
  numberedWorlds,
  openSavingsAccount,
  setBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { testClock } from '../helpers/clock';

/**
 * Credit insurance and the usury rate (docs/domain.md §14.6). Expected figures are worked out here: premiums by hand,
 * the TEG by its CEMAC definition (the period rate equating the net amount lent with the payments, by bisection,
 * × periods a year), never by the code under test.
 */

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
});

const nextWorld = numberedWorlds('CI', '2026-01-15');
const world = (): Promise<LoanWorld> => nextWorld(app, knex);

/** The TEG by its definition: Σ total_k / (1+r)^k = net, r by bisection, as an annual percentage with two decimals. */
function tegOf(net: Money, totals: readonly Money[], periodsPerYear: number): string {
  const presentValue = (rate: Money) =>
    totals.reduce((sum, total, index) => sum.plus(total.div(new Money(1).plus(rate).pow(index + 1))), new Money(0));
  let low = new Money(0);
  let high = new Money(1);
  for (let step = 0; step < 120; step += 1) {
    const middle = low.plus(high).div(2);
    if (presentValue(middle).gt(net)) low = middle;
    else high = middle;
  }
  return low.mul(periodsPerYear).mul(100).toFixed(2, Money.ROUND_HALF_UP);
}

const productJson = (w: LoanWorld, code: string, extra: Record<string, unknown>) => ({
  enterprise: w.enterpriseId,
  code,
  name: `Produit ${code}`,
  term_category: 'cta',
  method: 'constant_annuity',
  annual_rate: '0.18',
  min_amount: '50000',
  max_amount: '10000000',
  min_term_periods: 1,
  max_term_periods: 24,
  fee_rate: '0.01',
  penalty_rate: '0.12',
  ...extra,
});
const createProduct = (w: LoanWorld, code: string, extra: Record<string, unknown>) =>
  app.request('POST', '/api/v1/loans/products/', {
    headers: w.users.direction!.headers,
    json: productJson(w, code, extra),
  });
const simulate = (w: LoanWorld, productId: string, amount: string, termPeriods: number) =>
  app.request('POST', `/api/v1/loans/products/${productId}/simulation/`, {
    headers: w.users.cashier!.headers,
    json: { amount, term_periods: termPeriods, start_date: '2026-01-15' },
  });
const submit = (w: LoanWorld, productId: string, client: string, amount: string, termPeriods: number) =>
  app.request('POST', '/api/v1/loans/applications/', {
    headers: w.users.teller!.headers,
    json: { client, product: productId, amount, term_periods: termPeriods, grace_periods: 0, purpose: 'stock' },
  });
const setRate = (w: LoanWorld, rate: string, effectiveFrom: string, as = 'direction') =>
  app.request('POST', '/api/v1/loans/usury-rates/', {
    headers: w.users[as]!.headers,
    json: {
      enterprise: w.enterpriseId,
      rate,
      effective_from: effectiveFrom,
      source_reference: 'BEAC, avis du 1er semestre 2026',
    },
  });

/** The simulation's installment totals (insurance included) and its own TEG recomputed from them. */
function expectedTeg(simulation: {
  amount: string;
  fees: string;
  insurance_premium: string;
  insurance_collection: string;
  installments: { total: string }[];
}): string {
  const withheld = new Money(simulation.fees).plus(
    simulation.insurance_collection === 'withheld' ? simulation.insurance_premium : 0,
  );
  return tegOf(
    new Money(simulation.amount).minus(withheld),
    simulation.installments.map((row) => new Money(row.total)),
    12,
  );
}

/**
 * An application of the product submitted and approved (the workflow's own activity, as test/helpers/loans.ts does).
 */
async function grantedLoan(
  w: LoanWorld,
  productId: string,
  client: string,
  amount: string,
  termPeriods: number,
): Promise<string> {
  const submitted = await submit(w, productId, client, amount, termPeriods);
  if (submitted.status !== 201) throw new Error(submitted.text);
  const recorded = await recordLoanDecision(knex, testClock(), {
    applicationId: submitted.body.id,
    idempotencyKey: `test:${submitted.body.id}`,
    step: 'direction',
    decision: 'approve',
    deciderId: w.users.direction!.id,
    comment: '',
    requestId: null,
    statusAfter: 'approved',
    stepAfter: null,
  });
  if (recorded.outcome !== 'recorded') throw new Error(`approval refused: ${recorded.code}`);
  return recorded.loanId!;
}

/** Lines of the entries of an event kind, as [account, debit, credit]. */
const linesOf = async (w: LoanWorld, kind: string) =>
  (
    await knex('journal_lines as l')
      .join('journal_entries as e', 'e.id', 'l.entry_id')
      .join('business_event_logs as b', 'b.id', 'e.event_id')
      .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
      .where({ 'e.enterprise_id': w.enterpriseId, 'b.kind': kind })
      .orderBy('l.id')
      .select('c.code', 'l.debit', 'l.credit')
  ).map((row) => [row.code, row.debit, row.credit]);

async function booksTieOut(t: import('ava').ExecutionContext, w: LoanWorld) {
  t.true(await ledgerBalanced(knex, w.enterpriseId), 'debits equal credits');
  const reconciliation = await app.request('GET', `/api/v1/members/reconciliation/?enterprise=${w.enterpriseId}`, {
    headers: w.users.direction!.headers,
  });
  t.deepEqual(reconciliation.body.results, [], 'member balances equal the ledger');
  const outstanding = await knex('loans')
    .where({ enterprise_id: w.enterpriseId })
    .whereNot('status', 'awaiting_disbursement')
    .first(knex.raw('COALESCE(sum(outstanding_principal), 0)::text AS total'));
  t.is(
    await accountBalance(knex, w.enterpriseId, '3221'),
    outstanding.total,
    'portfolio account = outstanding principal',
  );
}

test(
  'a withheld premium: quoted, in the TEG, withheld at ' +
    'disbursement to 461; the loan keeps the premium it was granted',
  async (t) => {
    const w = await world();
    // 1 200 000 × 0.5 % + 1 000 = 7 000 of premium; the fees, 1 % = 12 000.
    const product = await createProduct(w, 'INSW', {
      insurance_rate: '0.005',
      insurance_fixed: '1000',
      insurance_collection: 'withheld',
    });
    t.is(product.status, 201, product.text);
    t.like(product.body, { insurance_rate: '0.005000', insurance_fixed: '1000', insurance_collection: 'withheld' });
    const simulation = (await simulate(w, product.body.id, '1200000', 12)).body;
    t.like(simulation, { fees: '12000', insurance_premium: '7000', insurance_collection: 'withheld' });
    t.true(simulation.installments.every((row: { insurance: string }) => row.insurance === '0'));
    // Net lent 1 200 000 − 12 000 − 7 000 = 1 181 000 against the twelve installments.
    t.is(simulation.teg, expectedTeg(simulation));
    t.is(
      simulation.teg,
      tegOf(
        new Money(1181000),
        simulation.installments.map((row: { total: string }) => new Money(row.total)),
        12,
      ),
    );
    const withoutInsurance = tegOf(
      new Money(1188000),
      simulation.installments.map((row: { total: string }) => new Money(row.total)),
      12,
    );
    t.true(new Money(simulation.teg).gt(withoutInsurance), 'the premium raises the TEG');

    const client = await memberOf(w);
    const account = await openSavingsAccount(w, client, '50000');
    const loanId = await grantedLoan(w, product.body.id, client, '1200000', 12);
    // A product changed after the grant does not change the loan.
    const changed = await app.request('PATCH', `/api/v1/loans/products/${product.body.id as string}/`, {
      headers: w.users.direction!.headers,
      json: { insurance_rate: '0.02', insurance_collection: 'spread' },
    });
    t.is(changed.status, 200, changed.text);
    const disbursed = await app.request('POST', `/api/v1/loans/loans/${loanId}/disbursement/`, {
      headers: w.users.cashier!.headers,
      json: { channel: 'account', account },
    });
    t.is(disbursed.status, 200, disbursed.text);
    t.like(disbursed.body, { insurance_premium: '7000', insurance_collection: 'withheld', teg: simulation.teg });
    t.is(
      (await knex('comptes_clients').where({ id: account }).first()).balance,
      String(50000 + 1200000 - 12000 - 7000),
    );
    t.deepEqual(
      await linesOf(w, 'loan_insurance_premium'),
      [
        ['3711', '7000', '0'],
        ['461', '0', '7000'],
      ],
      "the member's account to the insurer (461)",
    );
    t.is(await accountBalance(knex, w.enterpriseId, '461'), '-7000');
    t.is(await accountBalance(knex, w.enterpriseId, '7153'), '-12000', 'the fees alone are income');
    await booksTieOut(t, w);
  },
);

/**
 * 5 000 on installment 1 (interest 1 200 000 × 1.5 % = 18 000): 1 200 of insurance first, then 3 800 of interest.
 * On installment 1's due date, its rest and 1 000 of installment 2 (the next one): its insurance first again.
 */
async function repaySpreadPremium(t: ExecutionContext, w: LoanWorld, loanId: string, firstPrincipalDue: string) {
  const first = await app.request('POST', '/api/v1/loans/repayments/', {
    headers: w.users.cashier!.headers,
    json: { loan: loanId, amount: '5000' },
  });
  t.is(first.status, 201, first.text);
  t.like(first.body, { amount: '5000', insurance: '1200', interest: '3800', principal: '0', penalty: '0' });
  t.deepEqual(first.body.allocations, [
    { number: 1, due_date: '2026-02-15', penalty: '0', insurance: '1200', interest: '3800', principal: '0' },
  ]);
  t.deepEqual(
    await linesOf(w, 'repayment_insurance'),
    [
      ['5710', '1200', '0'],
      ['461', '0', '1200'],
    ],
    'cash to the insurer (461)',
  );
  await setBusinessDate(w, '2026-02-15');
  const rest = new Money(firstPrincipalDue).plus(18000 - 3800);
  const second = await app.request('POST', '/api/v1/loans/repayments/', {
    headers: w.users.cashier!.headers,
    json: { loan: loanId, amount: rest.plus(1000).toFixed(0) },
  });
  t.is(second.status, 201, second.text);
  t.deepEqual(second.body.allocations, [
    { number: 1, due_date: '2026-02-15', penalty: '0', interest: '14200', principal: firstPrincipalDue },
    { number: 2, due_date: '2026-03-15', penalty: '0', insurance: '1000', interest: '0', principal: '0' },
  ]);
  const after = (
    await app.request('GET', `/api/v1/loans/loans/${loanId}/schedule/`, { headers: w.users.cashier!.headers })
  ).body.installments;
  t.like(after[0], { insurance_paid: '1200', interest_paid: '18000', principal_paid: firstPrincipalDue });
  t.like(after[1], { insurance_due: '1200', insurance_paid: '1000' });
  t.is(await accountBalance(knex, w.enterpriseId, '461'), '-2200');
}

test(
  'a spread premium: each installment carries its part, ' + 'a repayment pays it before the interest, to 461',
  async (t) => {
    const w = await world();
    // 1 200 000 × 1.2 % = 14 400 over 12 installments: 1 200 each.
    const product = await createProduct(w, 'INSS', { insurance_rate: '0.012', insurance_collection: 'spread' });
    t.is(product.status, 201, product.text);
    const simulation = (await simulate(w, product.body.id, '1200000', 12)).body;
    t.like(simulation, { fees: '12000', insurance_premium: '14400', insurance_collection: 'spread' });
    t.true(
      simulation.installments.every(
        (row: { insurance: string; principal: string; interest: string; total: string }) =>
          row.insurance === '1200' && new Money(row.principal).plus(row.interest).plus(1200).eq(row.total),
      ),
    );
    // Net lent 1 188 000 against the installments, each with its 1 200 of premium.
    t.is(
      simulation.teg,
      tegOf(
        new Money(1188000),
        simulation.installments.map((row: { total: string }) => new Money(row.total)),
        12,
      ),
    );

    const client = await memberOf(w);
    const account = await openSavingsAccount(w, client, '50000');
    const loanId = await grantedLoan(w, product.body.id, client, '1200000', 12);
    const disbursed = await app.request('POST', `/api/v1/loans/loans/${loanId}/disbursement/`, {
      headers: w.users.cashier!.headers,
      json: { channel: 'account', account },
    });
    t.is(disbursed.status, 200, disbursed.text);
    t.like(disbursed.body, { insurance_premium: '14400', insurance_collection: 'spread', teg: simulation.teg });
    t.is(
      (await knex('comptes_clients').where({ id: account }).first()).balance,
      String(50000 + 1200000 - 12000),
      'nothing of the premium withheld',
    );
    t.is(await accountBalance(knex, w.enterpriseId, '461'), '0');
    const installments = (
      await app.request('GET', `/api/v1/loans/loans/${loanId}/schedule/`, { headers: w.users.cashier!.headers })
    ).body.installments;
    t.true(
      installments.every(
        (row: { insurance_due: string; insurance_paid: string }) =>
          row.insurance_due === '1200' && row.insurance_paid === '0',
      ),
    );

    await repaySpreadPremium(t, w, loanId, installments[0].principal_due);
    t.is(await accountBalance(knex, w.enterpriseId, '461'), '-2200');
    await booksTieOut(t, w);
  },
);

interface ScheduleRow {
  number: number;
  due_date: string;
  principal_due: string;
  interest_due: string;
  insurance_due: string;
  insurance_paid: string;
}
const scheduleOf = async (w: LoanWorld, loanId: string): Promise<ScheduleRow[]> =>
  (await app.request('GET', `/api/v1/loans/loans/${loanId}/schedule/`, { headers: w.users.cashier!.headers })).body
    .installments;
/** The premium still owed on the schedule: Σ insurance_due − insurance_paid. */
const premiumOwed = (rows: readonly ScheduleRow[]) =>
  rows.reduce((sum, row) => sum.plus(row.insurance_due).minus(row.insurance_paid), new Money(0)).toFixed(0);
/** The TEG of the installments after `number`, insurance included, against the principal they repay. */
const tegAfter = (rows: readonly ScheduleRow[], number: number, principal: Money) =>
  tegOf(
    principal,
    rows
      .filter((row) => row.number > number)
      .map((row) => new Money(row.principal_due).plus(row.interest_due).plus(row.insurance_due)),
    12,
  );

/**
 * A loan of 1 200 000 over 12 months at 18 % (annuity 110 016, installment 1: 92 016 of principal, 18 000 of interest),
 * 1 200 of premium a month.
 */
async function spreadLoan(t: import('ava').ExecutionContext, w: LoanWorld, code: string): Promise<string> {
  const product = await createProduct(w, code, { insurance_rate: '0.012', insurance_collection: 'spread' });
  t.is(product.status, 201, product.text);
  const loanId = await grantedLoan(w, product.body.id, await memberOf(w), '1200000', 12);
  const disbursed = await app.request('POST', `/api/v1/loans/loans/${loanId}/disbursement/`, {
    headers: w.users.cashier!.headers,
    json: { channel: 'cash' },
  });
  t.is(disbursed.status, 200, disbursed.text);
  return loanId;
}

/** 20 April: installment 5 is 5 days late. The quote owes its premium part; the parts not yet due are not owed. */
async function payOffWithPremiumInArrears(t: ExecutionContext, w: LoanWorld, loanId: string, principalLeft: Money) {
  await setBusinessDate(w, '2026-04-20');
  const quote = (
    await app.request('GET', `/api/v1/loans/loans/${loanId}/payoff-quote/`, { headers: w.users.cashier!.headers })
  ).body;
  t.like(quote, { principal: principalLeft.toFixed(0), insurance: '1200', fee: '0' });
  t.is(quote.total, new Money(quote.principal).plus(quote.interest).plus(quote.penalties).plus(1200).toFixed(0));
  const printed = await app.request('GET', `/api/v1/loans/loans/${loanId}/payoff-quote/?format=csv`, {
    headers: w.users.cashier!.headers,
  });
  t.true(printed.text.includes('Assurance échue'), 'the printed quote shows the premium in arrears');
  const payoff = await app.request('POST', `/api/v1/loans/loans/${loanId}/payoff/`, {
    headers: w.users.cashier!.headers,
    json: { amount: quote.total },
  });
  t.is(payoff.status, 201, payoff.text);
  t.like(payoff.body.repayment, { insurance: '1200', outstanding_after: '0' });
  t.is(await accountBalance(knex, w.enterpriseId, '461'), '-3600', 'three parts collected, the rest never owed');
  t.is(premiumOwed(await scheduleOf(w, loanId)), '0');
}

test(
  'a spread premium and early repayment: a prepayment carries what is still to ' +
    'come to the new schedule (both strategies), the payoff owes its arrears only',
  async (t) => {
    const w = await world();
    const loanId = await spreadLoan(t, w, 'INSP');
    // 15 February: installment 1 falls due (110 016 + 1 200 of premium, no day late). 300 000 pays it, the rest lowers
    // the principal.
    await setBusinessDate(w, '2026-02-15');
    const reduced = await app.request('POST', `/api/v1/loans/loans/${loanId}/prepayments/`, {
      headers: w.users.cashier!.headers,
      json: { amount: '300000' },
    });
    t.is(reduced.status, 201, reduced.text);
    const prepaid = 300000 - 110016 - 1200; // 188 784
    t.like(reduced.body.repayment, {
      insurance: '1200',
      interest: '18000',
      principal: String(92016 + prepaid),
      penalty: '0',
    });
    t.like(reduced.body.repayment.allocations[0], { number: 1, insurance: '1200' });
    t.is(await accountBalance(knex, w.enterpriseId, '461'), '-1200', 'the premium in arrears to the insurer');
    // reduce_installment: the eleven due dates left keep their 1 200 each; installment 2, the prepayment's own, owes
    // none.
    let rows = await scheduleOf(w, loanId);
    t.like(rows[1], { number: 2, due_date: '2026-02-15', insurance_due: '0', insurance_paid: '0' });
    t.deepEqual(
      rows.slice(2).map((row) => row.insurance_due),
      Array.from({ length: 11 }, () => '1200'),
    );
    t.is(premiumOwed(rows), String(14400 - 1200), 'nothing of the premium is dropped');
    const outstanding = new Money(1200000 - 92016 - prepaid);
    const loan = async () =>
      (await app.request('GET', `/api/v1/loans/loans/${loanId}/`, { headers: w.users.cashier!.headers })).body;
    t.is((await loan()).teg, tegAfter(rows, 2, outstanding), 'the new TEG counts the premium');

    // 15 March: installment 3 due; 400 000 under reduce_term. Still to come: 10 × 1 200 = 12 000 on a shorter series.
    await setBusinessDate(w, '2026-03-15');
    const due3 = new Money(rows[2]!.principal_due).plus(rows[2]!.interest_due).plus(1200);
    const shortened = await app.request('POST', `/api/v1/loans/loans/${loanId}/prepayments/`, {
      headers: w.users.cashier!.headers,
      json: { amount: '400000', strategy: 'reduce_term' },
    });
    t.is(shortened.status, 201, shortened.text);
    t.like(shortened.body.repayment, { insurance: '1200' });
    rows = await scheduleOf(w, loanId);
    const series = rows.filter((row) => row.number > 4);
    t.true(series.length < 10, `the term shortens (${series.length} installments left)`);
    const expected = [
      ...Array.from({ length: series.length - 1 }, () => '1200'),
      String(12000 - 1200 * (series.length - 1)),
    ];
    t.deepEqual(
      series.map((row) => row.insurance_due),
      expected,
      'the same part each month, the last one taking the rest',
    );
    const principalLeft = outstanding.minus(rows[2]!.principal_due).minus(new Money(400000).minus(due3));
    t.is((await loan()).teg, tegAfter(rows, 4, principalLeft));

    await payOffWithPremiumInArrears(t, w, loanId, principalLeft);
    await booksTieOut(t, w);
  },
);

test(
  'a spread premium through a restructuring: what is not yet paid ' +
    'goes to the new series, the arrears capitalised or kept due',
  async (t) => {
    const w = await world();
    const loans = [await spreadLoan(t, w, 'INSR1'), await spreadLoan(t, w, 'INSR2')];
    await knex('loans').whereIn('id', loans).update({ penalty_rate: '0' });
    // 20 March: installments 1 and 2 unpaid, their premium too (2 × 1 200); ten parts not yet due (12 000).
    await setBusinessDate(w, '2026-03-20');
    for (const [index, loanId] of loans.entries()) {
      const capitalise = index === 0;
      const asked = await app.request('POST', `/api/v1/loans/loans/${loanId}/restructurings/`, {
        headers: w.users.branch_head!.headers,
        json: {
          term_periods: 12,
          annual_rate: '0.18',
          capitalise_arrears: capitalise,
          reason: 'harvest lost to drought',
        },
      });
      t.is(asked.status, 202, asked.text);
      // Granted by the direction: Art. 13's level above it is the direction again.
      t.is((await approveRequest(knex, asked, { id: w.users.direction!.id, roles: ['direction'] })).status, 200);
      const detail = (
        await app.request('GET', `/api/v1/loans/restructurings/${asked.body.payload.restructuringId as string}/`, {
          headers: w.users.cashier!.headers,
        })
      ).body;
      const carried = capitalise ? 14400 : 12000;
      t.like(detail, { status: 'approved', insurance_carried: String(carried) });
      const rows = await scheduleOf(w, loanId);
      t.deepEqual(
        rows.slice(0, 2).map((row) => row.insurance_paid),
        capitalise ? ['1200', '1200'] : ['0', '0'],
        capitalise ? 'capitalised' : 'kept due',
      );
      t.deepEqual(
        rows.slice(2).map((row) => row.insurance_due),
        Array.from({ length: 12 }, () => String(carried / 12)),
      );
      const capitalised = await knex('loan_installments')
        .where({ loan_id: loanId })
        .whereIn('number', [1, 2])
        .pluck('insurance_capitalised');
      t.deepEqual(capitalised, capitalise ? ['1200', '1200'] : ['0', '0']);
      t.is(premiumOwed(rows), '14400', 'the premium is still owed whole');
      t.is(detail.teg, tegAfter(rows, 2, new Money(detail.restructured_amount)), 'the new TEG counts the premium');
    }
    t.is(await accountBalance(knex, w.enterpriseId, '461'), '0', 'nothing collected, nothing posted');
    await booksTieOut(t, w);
  },
);
/** Sets the rate from `effectiveFrom`, approved by a second person; returns the approval's status. */
const setRateApproved = async (w: LoanWorld, rate: string, effectiveFrom: string) =>
  (await approveRequest(knex, await setRate(w, rate, effectiveFrom), asApprover(w))).status;

test(
  'the usury rate: a product or an application above the rate ' +
    'in force is refused (422 teg), at or below it accepted',
  async (t) => {
    const w = await world();
    // Fees of 1 % + 2 000 fixed weigh most on the product's dearest loan: its 50 000 minimum over its 1-period minimum
    // term.
    const terms = { fee_fixed: '2000', insurance_rate: '0.01', insurance_collection: 'withheld' };
    const probe = await createProduct(w, 'PROBE', terms);
    t.is(probe.status, 201, probe.text);
    const dearest = (await simulate(w, probe.body.id, '50000', 1)).body;
    const dearestTeg = expectedTeg(dearest);
    t.is(dearest.teg, dearestTeg);
    // The rate just below the dearest loan's TEG: refused; then one just above, from a later date: accepted.
    t.is(await setRateApproved(w, new Money(dearestTeg).minus('0.01').toFixed(2), '2026-01-01'), 200);
    const refused = await createProduct(w, 'USUR1', terms);
    t.is(refused.status, 422, refused.text);
    t.like(refused.body, { code: 'teg_above_usury_rate', errors: [{ field: 'teg' }] });
    t.is(
      (await knex('loan_products').where({ enterprise_id: w.enterpriseId, code: 'USUR1' })).length,
      0,
      'nothing written',
    );
    // The product made before the rate may still be deactivated, not repriced.
    const probePath = `/api/v1/loans/products/${probe.body.id as string}/`;
    t.like(
      (await app.request('PATCH', probePath, { headers: w.users.direction!.headers, json: { fee_fixed: '2500' } }))
        .body,
      { code: 'teg_above_usury_rate' },
    );
    t.like(
      (await app.request('PATCH', probePath, { headers: w.users.direction!.headers, json: { is_active: false } })).body,
      { is_active: false, fee_fixed: '2000' },
    );
    t.is(await setRateApproved(w, new Money(dearestTeg).plus('0.01').toFixed(2), '2026-01-10'), 200);
    const accepted = await createProduct(w, 'USUR2', terms);
    t.is(accepted.status, 201, accepted.text);
    // A change that makes the dearest loan dearer is refused the same way.
    const dearer = await app.request('PATCH', `/api/v1/loans/products/${accepted.body.id as string}/`, {
      headers: w.users.direction!.headers,
      json: { annual_rate: '0.30' },
    });
    t.like(dearer.body, { code: 'teg_above_usury_rate', errors: [{ field: 'teg' }] });

    // At submission: the application's own TEG against the rate in force at the business date.
    const loan = (await simulate(w, accepted.body.id, '1000000', 12)).body;
    const loanTeg = expectedTeg(loan);
    const client = await memberOf(w);
    t.is(await setRateApproved(w, new Money(loanTeg).minus('0.01').toFixed(2), '2026-01-12'), 200);
    const above = await submit(w, accepted.body.id, client, '1000000', 12);
    t.is(above.status, 422, above.text);
    t.like(above.body, { code: 'teg_above_usury_rate', errors: [{ field: 'teg' }] });
    t.is((await knex('loan_applications').where({ client_id: client })).length, 0, 'no application recorded');
    t.is(await setRateApproved(w, loanTeg, '2026-01-14'), 200);
    const atTheRate = await submit(w, accepted.body.id, client, '1000000', 12);
    t.is(atTheRate.status, 201, `a TEG equal to the rate does not exceed it: ${atTheRate.text}`);
    t.is(atTheRate.body.teg, loanTeg);
    // A rate from a date after the business date is not yet in force.
    t.is(await setRateApproved(w, '1.00', '2026-06-01'), 200);
    t.is((await submit(w, accepted.body.id, client, '1000000', 12)).status, 201);
    const listed = await app.request('GET', `/api/v1/loans/usury-rates/?enterprise=${w.enterpriseId}`, {
      headers: w.users.cashier!.headers,
    });
    t.deepEqual(
      listed.body.results.map((row: { effective_from: string }) => row.effective_from),
      ['2026-06-01', '2026-01-14', '2026-01-12', '2026-01-10', '2026-01-01'],
    );
  },
);

/** Bad input to a rate or a product is a 400 naming the field; a cashier sets no rate. */
async function assertBadInputRefused(t: ExecutionContext, w: LoanWorld) {
  const bad = async (json: Record<string, unknown>) => {
    const response = await app.request('POST', '/api/v1/loans/usury-rates/', {
      headers: w.users.direction!.headers,
      json: {
        enterprise: w.enterpriseId,
        rate: '60',
        effective_from: '2026-02-01',
        source_reference: 'BEAC',
        ...json,
      },
    });
    return [response.status, response.body.errors?.[0]?.field];
  };
  t.deepEqual(await bad({ rate: 'sixty' }), [400, 'rate']);
  t.deepEqual(await bad({ rate: '0' }), [400, 'rate']);
  t.deepEqual(await bad({ rate: '12.345' }), [400, 'rate']);
  t.deepEqual(await bad({ rate: 60 }), [400, 'rate']);
  t.deepEqual(await bad({ effective_from: '2026-02-30' }), [400, 'effective_from']);
  t.deepEqual(await bad({ source_reference: '' }), [400, 'source_reference']);
  const badProduct = async (extra: Record<string, unknown>) => {
    const response = await createProduct(w, 'BAD', extra);
    return [response.status, response.body.errors?.[0]?.field];
  };
  t.deepEqual(await badProduct({ insurance_collection: 'monthly' }), [400, 'insurance_collection']);
  t.deepEqual(await badProduct({ insurance_rate: '1.5' }), [400, 'insurance_rate']);
  t.deepEqual(await badProduct({ insurance_fixed: '-5' }), [400, 'insurance_fixed']);
  t.is((await setRate(w, '40', '2026-03-01', 'cashier')).status, 403, 'a cashier sets no rate');
}

test(
  'setting a usury rate takes two people; bad input is a ' + '400 naming the field; other enterprises see nothing',
  async (t) => {
    const w = await world();
    const asked = await setRate(w, '60.94', '2026-01-01');
    t.is(asked.status, 202, asked.text);
    t.like(asked.body, { operation: 'usury_rate.change', status: 'pending' });
    t.is(
      (await knex('usury_rates').where({ enterprise_id: w.enterpriseId })).length,
      0,
      'nothing applies before the approval',
    );
    const own = await decideApprovalRequest(knex, testClock(), {
      requestId: asked.body.id,
      decision: {
        decision: 'approve',
        deciderId: w.users.direction!.id,
        deciderRoles: ['direction'],
        reason: 'mine',
        requestId: null,
      },
    });
    t.like(own, { code: 'approval_own_request' });
    t.is((await approveRequest(knex, asked, asApprover(w))).status, 200);
    const [row] = await knex('usury_rates').where({ enterprise_id: w.enterpriseId });
    t.like(row, { rate: '60.94', source_reference: 'BEAC, avis du 1er semestre 2026' });
    const detail = await app.request('GET', `/api/v1/loans/usury-rates/${row.id as string}/`, {
      headers: w.users.cashier!.headers,
    });
    t.like(detail.body, { rate: '60.94', effective_from: '2026-01-01', enterprise: w.enterpriseId });
    // The operation is tried as the request is made: a second rate from the same date is refused to the maker at once.
    t.like(
      (await setRate(w, '50', '2026-01-01')).body,
      { status: 409, code: 'usury_rate_exists' },
      'one rate per date',
    );

    await assertBadInputRefused(t, w);

    const other = await world();
    t.is(
      (
        await app.request('GET', `/api/v1/loans/usury-rates/${row.id as string}/`, {
          headers: other.users.direction!.headers,
        })
      ).status,
      404,
      "another enterprise's rate is 404",
    );
    const listed = await app.request('GET', '/api/v1/loans/usury-rates/', { headers: other.users.direction!.headers });
    t.deepEqual(listed.body.results, [], 'nor listed');
    t.is(
      (
        await app.request('POST', '/api/v1/loans/usury-rates/', {
          headers: other.users.direction!.headers,
          json: { enterprise: w.enterpriseId, rate: '10', effective_from: '2026-02-01', source_reference: 'BEAC' },
        })
      ).status,
      404,
    );
  },
);
