import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { postSavingsInterest } from '../../activities/members/savings-interest.activity';
import { matureTermDeposits } from '../../activities/members/term-deposits.activity';
import { Money } from '../../domain/money';
import { activitySetting } from '../helpers/activity-setting';
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
import { accountOf, depositTo, savingsProductOf, withdrawFrom } from '../helpers/savings';
import { smallCooperative } from '../helpers/small-cooperative';
import { fileTeardown } from '../helpers/teardown';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
});

const context = () => testActivityContext(knex);
const april = (enterpriseId: string) => ({ enterpriseId, periodStart: '2026-04-01', periodEnd: '2026-04-30' });
/** Half up to the franc, as docs/domain.md §9 rounds: written out here, independently of the product's code. */
const francs = (amount: Money) => amount.toDecimalPlaces(0, Money.ROUND_HALF_UP);
const balanceOf = async (id: string) =>
  await knex('comptes_clients').where({ id }).first('balance', 'status', 'closed_on');

async function reconciliation(world: LoanWorld) {
  const answer = await app.request('GET', `/api/v1/members/reconciliation/?enterprise=${world.enterpriseId}`, {
    headers: world.users.direction!.headers,
  });
  return answer.body.count as number;
}

/** SI1's three books, opened on 1 April, with April's movements. */
async function threeBooksOfApril(world: LoanWorld) {
  // Daily balances at actual/365, 5 %, 16.5 % withheld; the minimum of the month at 30/360, 6 %, nothing withheld; a
  // quarterly book.
  const daily = await savingsProductOf(world, {
    code: 'LIV',
    deposit_account_code: '373',
    interest_rate: '0.05',
    interest_basis: 'daily_balance',
    day_count: 'actual_365',
    withholding_tax_rate: '0.165',
  });
  const minimum = await savingsProductOf(world, { code: 'LIM', deposit_account_code: '373', interest_rate: '0.06' });
  const quarterly = await savingsProductOf(world, {
    code: 'LIQ',
    deposit_account_code: '373',
    interest_rate: '0.06',
    posting_frequency: 'quarterly',
  });
  await setBusinessDate(world, '2026-04-01');
  const first = await accountOf(world, await memberOf(world), daily, '100000');
  const second = await accountOf(world, await memberOf(world), minimum, '200000');
  const third = await accountOf(world, await memberOf(world), quarterly, '200000');
  await setBusinessDate(world, '2026-04-10');
  await depositTo(world, first, '50000');
  await setBusinessDate(world, '2026-04-16');
  await withdrawFrom(world, second, '50000');
  await setBusinessDate(world, '2026-04-20');
  await withdrawFrom(world, first, '30000');
  return { first, second, third };
}

/** The quarterly book paid at the end of June; the first book's postings listed. */
async function juneQuarterAndHistory(t: ExecutionContext, world: LoanWorld, first: string, third: string) {
  // The quarterly book at the end of June: April, May and June at their minimums (200 000 each) × 30 days × 6 % /
  // 360.
  await setBusinessDate(world, '2026-07-01');
  const june = await postSavingsInterest(context(), {
    enterpriseId: world.enterpriseId,
    periodStart: '2026-06-01',
    periodEnd: '2026-06-30',
  });
  const quarter = june.lines.find((line) => line.compteClientId === third && line.account === '613');
  t.is(quarter?.amount, francs(new Money(200_000 * 30 * 3).times('0.06').div(360)).toFixed(0));
  t.is(await reconciliation(world), 0);

  const history = await app.request('GET', `/api/v1/members/accounts/${first}/interest-postings/`, {
    headers: world.users.direction!.headers,
  });
  t.like(history.body.results[1], {
    period_end: '2026-04-30',
    occasion: 'periodic',
    interest_from: '2026-04-01',
    interest_to: '2026-04-30',
    gross: '510',
    tax: '84',
    net: '426',
  });
  const listed = await app.request(
    'GET',
    `/api/v1/members/interest-postings/?enterprise=${world.enterpriseId}&date_from=2026-04-01&date_to=2026-04-30`,
    { headers: world.users.direction!.headers },
  );
  t.is(listed.body.count, 2);
}

test(
  'month end: interest from the balance history, gross, tax and net to the franc; the balance is ' +
    "the ledger's; a rerun posts nothing",
  async (t) => {
    const { world, savingsAccount } = await smallCooperative(app, knex, 'SI1');
    const { first, second, third } = await threeBooksOfApril(world);
    t.is(
      ((await t.throwsAsync(postSavingsInterest(context(), april(world.enterpriseId)))) as { code?: string }).code,
      'period_not_ended',
    );
    await setBusinessDate(world, '2026-05-02');

    const result = await postSavingsInterest(context(), april(world.enterpriseId));
    // First: 9 days at 100 000, 10 at 150 000, 11 at 120 000, × 5 % / 365; the tax 16.5 % of that gross.
    const gross1 = francs(new Money(100_000 * 9 + 150_000 * 10 + 120_000 * 11).times('0.05').div(365));
    const tax1 = francs(gross1.times('0.165'));
    // Second: the lowest balance of April, 150 000, for 30 days × 6 % / 360.
    const gross2 = francs(new Money(150_000 * 30).times('0.06').div(360));
    t.deepEqual(
      [gross1, tax1, gross2].map((amount) => amount.toFixed(0)),
      ['510', '84', '750'],
      'the hand computation',
    );
    t.is(result.entries, 3, 'the gross of both accounts and the tax of the first');
    t.is(result.amount, gross1.plus(gross2).toFixed(0));
    t.deepEqual(
      [...new Set(result.lines.map((line) => line.compteClientId))].sort(),
      [first, second].sort(),
      'no line for the rate-0 account nor the quarterly book in April',
    );
    t.deepEqual(
      result.lines.filter((line) => line.compteClientId === first).map(({ account, amount }) => [account, amount]),
      [
        ['613', '510'],
        ['373', '-426'],
        ['4302', '-84'],
      ],
    );

    t.is((await balanceOf(first)).balance, new Money(120_000).plus(gross1).minus(tax1).toFixed(0));
    t.is((await balanceOf(second)).balance, new Money(150_000).plus(gross2).toFixed(0));
    t.is((await balanceOf(savingsAccount)).balance, '500000', 'a product at rate 0 earns nothing');
    t.is(await accountBalance(knex, world.enterpriseId, '613'), gross1.plus(gross2).toFixed(0));
    t.is(await accountBalance(knex, world.enterpriseId, '4302'), tax1.negated().toFixed(0));
    t.is(await reconciliation(world), 0, 'every member account equals its ledger movements');
    t.true(await ledgerBalanced(knex, world.enterpriseId));

    const statement = await app.request('GET', `/api/v1/members/accounts/${first}/statement/?date_from=2026-04-30`, {
      headers: world.users.direction!.headers,
    });
    t.deepEqual(
      statement.body.results.map((line: { kind: string; amount: string; entry_date: string }) => [
        line.kind,
        line.amount,
        line.entry_date,
      ]),
      [
        ['savings_interest', '510', '2026-04-30'],
        ['withholding_tax', '-84', '2026-04-30'],
      ],
    );

    const entriesBefore = (await knex('journal_entries').where({ enterprise_id: world.enterpriseId })).length;
    const rerun = await postSavingsInterest(context(), april(world.enterpriseId));
    t.deepEqual(rerun, { ...result, entries: 0 }, "the first run's figures, nothing posted");
    t.is((await knex('journal_entries').where({ enterprise_id: world.enterpriseId })).length, entriesBefore);

    await juneQuarterAndHistory(t, world, first, third);
  },
);

/** A member's demand account and a term deposit of 1 000 000 for three months from 15 January, paying into it. */
async function threeMonthTermDeposit(t: ExecutionContext, world: LoanWorld) {
  await knex('enterprise_configurations')
    .where({ enterprise_id: world.enterpriseId })
    .update({ business_date: '2026-01-15' });
  const term = await savingsProductOf(world, {
    code: 'DAT',
    kind: 'term_deposit',
    term_months: 3,
    deposit_account_code: '36100',
    interest_rate: '0.06',
    interest_basis: 'daily_balance',
    day_count: 'actual_365',
    posting_frequency: 'yearly',
    withholding_tax_rate: '0.1',
  });
  const member = await memberOf(world);
  const demand = await accountOf(world, member, world.savingsProductId, '10000');
  const deposit = await accountOf(world, member, term, '1000000');
  const opened = await app.request('GET', `/api/v1/members/accounts/${deposit}/`, {
    headers: world.users.direction!.headers,
  });
  t.like(opened.body, { maturity_date: '2026-04-15', payout_account: demand });
  return { demand, deposit };
}

/** The maturity is listed with its payout account and the capital paid. */
async function assertMaturityListed(
  t: ExecutionContext,
  world: LoanWorld,
  { deposit, demand, capital }: { deposit: string; demand: string; capital: Money },
) {
  const listed = await app.request(
    'GET',
    `/api/v1/members/term-deposit-maturities/?enterprise=${world.enterpriseId}&date_from=2026-04-01`,
    { headers: world.users.direction!.headers },
  );
  t.is(listed.body.count, 1);
  t.like(listed.body.results[0], {
    account: deposit,
    payout_account: demand,
    maturity_date: '2026-04-15',
    period_end: '2026-04-30',
    amount: capital.toFixed(0),
  });
}

test(
  "a term deposit matures with its final interest into the member's demand account; the term " +
    'account closes at zero; a rerun posts nothing',
  async (t) => {
    const world = await createLoanWorld(app, knex, 'SI2', { capital: false });
    const { demand, deposit } = await threeMonthTermDeposit(t, world);

    await setBusinessDate(world, '2026-05-02');
    t.like(
      await matureTermDeposits(context(), {
        enterpriseId: world.enterpriseId,
        periodStart: '2026-03-01',
        periodEnd: '2026-03-31',
      }),
      { entries: 0, amount: '0' },
      'not yet due in March',
    );
    const result = await matureTermDeposits(context(), april(world.enterpriseId));
    // 15 Jan to 14 Apr: 17 + 28 + 31 + 14 = 90 days of 1 000 000 × 6 % / 365; 10 % withheld.
    const gross = francs(new Money(1_000_000 * 90).times('0.06').div(365));
    const tax = francs(gross.times('0.1'));
    const capital = new Money(1_000_000).plus(gross).minus(tax);
    t.deepEqual(
      [gross, tax, capital].map((amount) => amount.toFixed(0)),
      ['14795', '1480', '1013315'],
    );
    t.is(result.entries, 4, 'the interest, the tax, the capital out of the term account and into the demand account');
    t.is(result.amount, capital.toFixed(0));
    t.deepEqual(
      result.lines.map(({ account, amount, compteClientId }) => [account, amount, compteClientId]),
      [
        ['612', '14795', deposit],
        ['36100', '-13315', deposit],
        ['4302', '-1480', deposit],
        ['36100', '1013315', deposit],
        ['3711', '-1013315', demand],
      ],
    );
    t.like(await balanceOf(deposit), { balance: '0', status: 'closed', closed_on: '2026-04-15' });
    t.is((await balanceOf(demand)).balance, capital.plus(10_000).toFixed(0));
    t.is(await accountBalance(knex, world.enterpriseId, '36100'), '0');
    t.is(await accountBalance(knex, world.enterpriseId, '459'), '0', 'the internal transfer account nets to zero');
    t.is(await accountBalance(knex, world.enterpriseId, '612'), gross.toFixed(0));
    t.is(await reconciliation(world), 0);
    t.true(await ledgerBalanced(knex, world.enterpriseId));
    const entries = await knex('journal_entries')
      .where({ enterprise_id: world.enterpriseId, entry_date: '2026-04-15' })
      .pluck('id');
    t.is(entries.length, 4, 'every entry dated the maturity day');

    await assertMaturityListed(t, world, { deposit, demand, capital });

    t.deepEqual(await matureTermDeposits(context(), april(world.enterpriseId)), { ...result, entries: 0 });
    t.is(
      (await knex('journal_entries').where({ enterprise_id: world.enterpriseId, entry_date: '2026-04-15' })).length,
      4,
    );
    t.is(
      (await postSavingsInterest(context(), april(world.enterpriseId))).entries,
      0,
      'a closed term account earns no more',
    );
  },
);

test('a month end refuses a period that is not a calendar month', async (t) => {
  const enterpriseId = await (await activitySetting(knex)).newEnterprise('SI3');
  const refused = await t.throwsAsync(
    postSavingsInterest(context(), { enterpriseId, periodStart: '2026-04-01', periodEnd: '2026-04-29' }),
  );
  t.deepEqual((refused as { fieldErrors?: unknown }).fieldErrors, [
    { field: 'periodEnd', message: 'periodEnd must be the last day of a month' },
  ]);
  const shifted = await t.throwsAsync(
    matureTermDeposits(context(), { enterpriseId, periodStart: '2026-04-02', periodEnd: '2026-04-30' }),
  );
  t.is((shifted as { fieldErrors?: { field: string }[] }).fieldErrors?.[0]?.field, 'periodStart');
});

test(
  'a rate cut applies from its day: a yearly 1 000 000 at 3 %, cut to 2 % on 15 December, is paid ' +
    '29 556, not 20 000; a change into paid days is refused',
  async (t) => {
    const world = await createLoanWorld(app, knex, 'SI9');
    await setBusinessDate(world, '2026-01-01');
    const yearly = await savingsProductOf(world, {
      code: 'ANN',
      deposit_account_code: '373',
      interest_rate: '0.03',
      posting_frequency: 'yearly',
    });
    const account = await accountOf(world, await memberOf(world), yearly, '1000000');
    await setBusinessDate(world, '2026-12-10');
    const patch = (json: object) =>
      app.request('PATCH', `/api/v1/members/products/${yearly}/`, { headers: world.users.direction!.headers, json });
    t.is((await patch({ interest_rate: '0.02', interest_rate_from: '2026-12-15' })).status, 200);
    t.like((await patch({ interest_rate: '0.025', interest_rate_from: '2026-12-15' })).body, {
      status: 409,
      code: 'rate_change_not_after_latest',
      errors: [{ field: 'interest_rate_from' }],
    });
    const history = await app.request('GET', `/api/v1/members/products/${yearly}/interest-rates/`, {
      headers: world.users.cashier!.headers,
    });
    t.deepEqual(
      history.body.rates.map((rate: { effective_from: string; annual_rate: string }) => [
        rate.effective_from,
        rate.annual_rate,
      ]),
      [
        ['1900-01-01', '0.03'],
        ['2026-12-15', '0.02'],
      ],
    );

    await setBusinessDate(world, '2027-01-02');
    await postSavingsInterest(context(), {
      enterpriseId: world.enterpriseId,
      periodStart: '2026-12-01',
      periodEnd: '2026-12-31',
    });
    // Hand-computed, 30/360 on the month's lowest balance: 344 days (January 1 to December 14) at 3 %, 16 days at 2 %.
    const gross = francs(
      new Money(1_000_000).times('0.03').times(344).plus(new Money(1_000_000).times('0.02').times(16)).div(360),
    );
    t.is(gross.toFixed(0), '29556');
    t.like(await knex('savings_interest_postings').where({ compte_client_id: account }).first(), {
      gross: gross.toFixed(0),
      interest_from: '2026-01-01',
      interest_to: '2026-12-31',
      interest_rate: '0.020000',
    });
    t.like((await patch({ interest_rate: '0.04', interest_rate_from: '2026-12-20' })).body, {
      status: 409,
      code: 'rate_change_in_paid_period',
      errors: [{ field: 'interest_rate_from' }],
    });
    t.true(await ledgerBalanced(knex, world.enterpriseId));
  },
);

const monthOf = (enterpriseId: string, period: string) => {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return {
    enterpriseId,
    periodStart: `${period}-01`,
    periodEnd: new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10),
  };
};

/** Two term products of twelve months at 6 %: one paying at maturity (the default), one paying each month out. */
async function termProductsPayingTwoWays(t: ExecutionContext, world: LoanWorld) {
  const atMaturity = await savingsProductOf(world, {
    code: 'DAT',
    kind: 'term_deposit',
    term_months: 12,
    deposit_account_code: '36100',
    interest_rate: '0.06',
  });
  const toDemand = await savingsProductOf(world, {
    code: 'DAV',
    kind: 'term_deposit',
    term_months: 12,
    deposit_account_code: '36100',
    interest_rate: '0.06',
    interest_payment: 'to_payout_account',
  });
  const product = await app.request('GET', `/api/v1/members/products/${atMaturity}/`, {
    headers: world.users.direction!.headers,
  });
  t.like(product.body, {
    interest_payment: 'at_maturity',
    posting_frequency: 'monthly',
    accrued_interest_account_code: '36900',
  });
  t.like(
    (
      await app.request('POST', '/api/v1/members/products/', {
        headers: world.users.direction!.headers,
        json: {
          enterprise: world.enterpriseId,
          code: 'BAD',
          name: 'Bad',
          kind: 'demand_deposit',
          deposit_account_code: '3711',
          interest_payment: 'at_maturity',
        },
      })
    ).body,
    { status: 400, errors: [{ field: 'interest_payment' }] },
  );
  return { atMaturity, toDemand };
}

/** The month ends of March to December run, and the next year opened. */
async function monthEndsToTheYearEnd(t: ExecutionContext, world: LoanWorld) {
  for (let month = 3; month <= 12; month += 1) {
    const period = `2026-${String(month).padStart(2, '0')}`;
    await setBusinessDate(world, month === 12 ? '2027-01-01' : `2026-${String(month + 1).padStart(2, '0')}-01`);
    await postSavingsInterest(context(), monthOf(world.enterpriseId, period));
  }
  const nextYear = await app.request('POST', '/api/v1/enterprise/exercices/', {
    headers: world.users.direction!.headers,
    json: { enterprise: world.enterpriseId, code: '2027', start_date: '2027-01-01', end_date: '2027-12-31' },
  });
  t.is(nextYear.status, 201, nextYear.text);
}

test(
  'a term deposit earns simple interest: 1 000 000 at 6 % for 12 months from 15 January pays 60 000 ' +
    'at maturity, not 61 683; one paying to the demand account never grows',
  async (t) => {
    const world = await createLoanWorld(app, knex, 'SI10', { capital: false });
    await setBusinessDate(world, '2026-01-15');
    const { atMaturity, toDemand } = await termProductsPayingTwoWays(t, world);
    const member = await memberOf(world);
    const demand = await accountOf(world, member, world.savingsProductId, '10000');
    const simple = await accountOf(world, member, atMaturity, '1000000');
    const paying = await accountOf(world, member, toDemand, '1000000');

    for (const period of ['2026-01', '2026-02']) {
      await setBusinessDate(world, `${period === '2026-01' ? '2026-02' : '2026-03'}-01`);
      await postSavingsInterest(context(), monthOf(world.enterpriseId, period));
    }
    // 30/360 on the month's lowest balance: 16 days of January (15 to 30), then February's 30, × 6 % / 360.
    const january = francs(new Money(1_000_000).times('0.06').times(16).div(360));
    const february = francs(new Money(1_000_000).times('0.06').times(30).div(360));
    t.deepEqual([january.toFixed(0), february.toFixed(0)], ['2667', '5000']);
    t.is((await balanceOf(simple)).balance, '1000000', 'nothing posted into the deposit paying at maturity');
    t.is((await balanceOf(paying)).balance, '1000000', 'the deposit paying its interest out never grows');
    t.is(
      (await balanceOf(demand)).balance,
      new Money(10_000).plus(january).plus(february).toFixed(0),
      'its interest went to the demand account',
    );

    await monthEndsToTheYearEnd(t, world);
    // They mature on their day, 15 January, by the daily run (here through the API), not at the month end.
    await setBusinessDate(world, '2027-01-14');
    const run = () =>
      app.request('POST', '/api/v1/members/term-deposit-maturities/runs/', {
        headers: world.users.direction!.headers,
        json: { enterprise: world.enterpriseId },
      });
    t.like((await run()).body, { matured: 0, entries: 0, refused: [] }, 'not due the day before');
    await setBusinessDate(world, '2027-01-15');
    t.like((await run()).body, { matured: 2, refused: [] });
    t.like(await balanceOf(simple), { balance: '0', status: 'closed', closed_on: '2027-01-15' });
    await setBusinessDate(world, '2027-02-01');
    t.is(
      (await matureTermDeposits(context(), monthOf(world.enterpriseId, '2027-01'))).entries,
      0,
      'the month end finds them matured',
    );
    // 15 January 2026 to 14 January 2027: 360 days of 30/360 at 6 %: 60 000, simple.
    const simpleInterest = francs(new Money(1_000_000).times('0.06').times(360).div(360));
    t.like(await knex('savings_interest_postings').where({ compte_client_id: simple }).first(), {
      gross: simpleInterest.toFixed(0),
      occasion: 'maturity',
      interest_from: '2026-01-15',
      interest_to: '2027-01-14',
    });
    const paid = await knex('savings_interest_postings')
      .where({ compte_client_id: paying })
      .orderBy('period_end')
      .select('gross', 'credited_account_id');
    t.true(
      paid.slice(0, -1).every((posting) => posting.credited_account_id === demand),
      'each monthly posting credited the demand account',
    );
    t.like(await balanceOf(simple), { balance: '0', status: 'closed' });
    t.is(await accountBalance(knex, world.enterpriseId, '36100'), '0');
    t.is(await reconciliation(world), 0);
    t.true(await ledgerBalanced(knex, world.enterpriseId));
  },
);

/**
 * The test database, but its `lost`-th transaction fails once its work is written, as a worker lost before the commit.
 */
function losingTransaction(lost: number): Knex {
  let transactions = 0;
  return new Proxy(knex, {
    get(target, property, receiver) {
      if (property !== 'transaction') return Reflect.get(target, property, receiver) as unknown;
      return (work: (trx: Knex.Transaction) => Promise<unknown>) =>
        target.transaction(async (trx) => {
          // Numbered as it starts: batches run two at a time.
          const number = (transactions += 1);
          const done = await work(trx);
          if (number === lost) throw new Error('worker lost');
          return done;
        });
    },
  });
}

/** SI11's eight accounts of two products, opened in April, with April's movements. */
async function eightAccountsOfApril(world: LoanWorld) {
  // The lowest balance of the month at 30/360, 5 %, 10 % withheld; the daily balance at actual/365, 4 %, nothing
  // withheld.
  const minimum = await savingsProductOf(world, {
    code: 'LBM',
    deposit_account_code: '373',
    interest_rate: '0.05',
    withholding_tax_rate: '0.1',
  });
  const daily = await savingsProductOf(world, {
    code: 'LBD',
    deposit_account_code: '373',
    interest_rate: '0.04',
    interest_basis: 'daily_balance',
    day_count: 'actual_365',
  });
  const open = async (product: string, deposit: string) => accountOf(world, await memberOf(world), product, deposit);
  const whole: string[] = [];
  for (const deposit of ['120000', '250000', '333333', '480500']) whole.push(await open(minimum, deposit));
  const drawn = await open(minimum, '200000');
  const [flat, topped] = [await open(daily, '777777'), await open(daily, '100000')] as [string, string];
  await setBusinessDate(world, '2026-04-10');
  const late = await open(minimum, '150000');
  await setBusinessDate(world, '2026-04-16');
  await withdrawFrom(world, drawn, '50000');
  await setBusinessDate(world, '2026-04-20');
  await depositTo(world, topped, '60000');
  return { whole, drawn, flat, topped, late };
}

type HandComputed = Map<string, { gross: Money; balanceBefore: number; withheld: boolean }>;

function handComputedInterest(
  t: ExecutionContext,
  { whole, drawn, flat, topped, late }: Awaited<ReturnType<typeof eightAccountsOfApril>>,
): HandComputed {
  // Each account's gross, by hand: the month's lowest balance × 5 % × its days / 360, or each day's balance × 4 % /
  // 365.
  const atMinimum = (balance: number, days: number) => francs(new Money(balance).times('0.05').times(days).div(360));
  const expected = new Map<string, { gross: Money; balanceBefore: number; withheld: boolean }>([
    ...[120_000, 250_000, 333_333, 480_500].map(
      (deposit, index) =>
        [whole[index]!, { gross: atMinimum(deposit, 30), balanceBefore: deposit, withheld: true }] as const,
    ),
    [drawn, { gross: atMinimum(150_000, 30), balanceBefore: 150_000, withheld: true }],
    // Opened on 10 April: 30/360 counts 21 days to the month's end.
    [late, { gross: atMinimum(150_000, 21), balanceBefore: 150_000, withheld: true }],
    [flat, { gross: francs(new Money(777_777 * 30).times('0.04').div(365)), balanceBefore: 777_777, withheld: false }],
    // 19 days at 100 000, then 11 at 160 000.
    [
      topped,
      {
        gross: francs(new Money(100_000 * 19 + 160_000 * 11).times('0.04').div(365)),
        balanceBefore: 160_000,
        withheld: false,
      },
    ],
  ]);
  t.deepEqual(
    [...expected.values()].map(({ gross }) => gross.toFixed(0)),
    ['500', '1042', '1389', '2002', '625', '438', '2557', '401'],
    'the hand computation',
  );
  return expected;
}

/** Each account has its own posting, its balance moved by its net, and its own events. */
async function assertEachAccountPosted(t: ExecutionContext, expected: HandComputed, taxOf: (account: string) => Money) {
  for (const [account, { gross, balanceBefore }] of expected) {
    const posting = await knex('savings_interest_postings')
      .where({ compte_client_id: account, period_end: '2026-04-30' })
      .first('gross', 'tax', 'interest_from');
    t.like(posting, { gross: gross.toFixed(0), tax: taxOf(account).toFixed(0) }, account);
    t.is((await balanceOf(account)).balance, new Money(balanceBefore).plus(gross).minus(taxOf(account)).toFixed(0));
    const events = await knex('business_event_logs')
      .where({ subject_id: account, business_date: '2026-04-30' })
      .orderBy('kind')
      .pluck('kind');
    t.deepEqual(
      events,
      taxOf(account).isZero() ? ['savings_interest'] : ['savings_interest', 'withholding_tax'],
      'its own events, on its statement',
    );
  }
}

test(
  'the month end posts a batch of accounts a transaction: eight accounts in batches of three, each ' +
    'paid its own hand-computed interest; run again after a lost batch it posts the rest; a rerun ' +
    'posts nothing',
  async (t) => {
    const world = await createLoanWorld(app, knex, 'SI11');
    await setBusinessDate(world, '2026-04-01');
    const accounts = await eightAccountsOfApril(world);
    await setBusinessDate(world, '2026-05-02');

    const expected = handComputedInterest(t, accounts);

    // The worker lost in the second transaction, after its writes: they roll back. Two batches are in flight, in
    // whichever order their transactions start: the batch beside the lost one stays posted, each batch is whole or
    // absent.
    await t.throwsAsync(
      postSavingsInterest({ ...context(), knex: losingTransaction(2) }, april(world.enterpriseId), 3),
      {
        message: 'worker lost',
      },
    );
    const interestEvents = async () =>
      Number(
        (
          await knex('business_event_logs')
            .where({ enterprise_id: world.enterpriseId, business_date: '2026-04-30' })
            .whereIn('kind', ['savings_interest', 'withholding_tax'])
            .count<{ count: string }[]>('id as count')
        )[0]!.count,
      );
    // The batches, as the step takes the accounts: by id, three at a time.
    const [first, second, third] = [0, 3, 6].map((start) => [...expected.keys()].sort().slice(start, start + 3));
    const postedOf = async (batch: string[]) =>
      knex('savings_interest_postings').whereIn('compte_client_id', batch).pluck('compte_client_id');
    const posted = await Promise.all([first!, second!, third!].map(async (batch) => (await postedOf(batch)).length));
    const sizes = [first!, second!, third!].map((batch) => batch.length);
    t.true(
      posted.every((count, index) => count === 0 || count === sizes[index]),
      `each batch whole or absent: ${posted.join(', ')}`,
    );
    t.true(posted.includes(0), 'the lost batch: nothing of it');
    t.true(
      posted.some((count, index) => count === sizes[index]),
      'the batch beside it posted',
    );
    const beforeResume = await interestEvents();

    const result = await postSavingsInterest(context(), april(world.enterpriseId), 3);
    const taxOf = (account: string) =>
      expected.get(account)!.withheld ? francs(expected.get(account)!.gross.times('0.1')) : new Money(0);
    const allEntries = [...expected.keys()].filter((account) => !taxOf(account).isZero()).length + expected.size;
    t.is(await interestEvents(), allEntries, 'the gross of every account, the tax of those withheld, once each');
    t.is(result.entries, allEntries - beforeResume, 'the step run again posts only the accounts the lost batch left');
    await assertEachAccountPosted(t, expected, taxOf);
    t.is(result.amount, [...expected.values()].reduce((sum, { gross }) => sum.plus(gross), new Money(0)).toFixed(0));
    t.is(await reconciliation(world), 0, 'every member account equals its ledger movements');
    t.true(await ledgerBalanced(knex, world.enterpriseId));

    const entriesBefore = await knex('journal_entries')
      .where({ enterprise_id: world.enterpriseId })
      .count<{ count: string }[]>('id as count');
    t.deepEqual(
      await postSavingsInterest(context(), april(world.enterpriseId), 2),
      { ...result, entries: 0 },
      "the first run's figures, nothing posted",
    );
    t.deepEqual(
      await knex('journal_entries')
        .where({ enterprise_id: world.enterpriseId })
        .count<{ count: string }[]>('id as count'),
      entriesBefore,
    );
  },
);
