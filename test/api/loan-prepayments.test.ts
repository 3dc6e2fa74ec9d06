import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import Decimal from 'decimal.js';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import {
  accountBalance,
  approvedLoan,
  confirmedGuarantee,
  ledgerBalanced,
  memberOf,
  numberedWorlds,
  openSavingsAccount,
  setBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';

/**
 * Early repayment (docs/domain.md §14.1): the expected figures are computed here, from the annuity formula and the
 * loan's terms, not by the product's schedule functions.
 */

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
});

const nextWorld = numberedWorlds('PP', '2026-01-15');
const world = (): Promise<LoanWorld> => nextWorld(app, knex);

const D = (value: Decimal.Value) => new Decimal(value);
const franc = (value: Decimal) => value.toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
const as = (w: LoanWorld, who = 'cashier', extra: Record<string, string> = {}) => ({
  headers: { ...w.users[who]!.headers, ...extra },
});
const prepay = (w: LoanWorld, loanId: string, json: object, extra: Record<string, string> = {}, who = 'cashier') =>
  app.request('POST', `/api/v1/loans/loans/${loanId}/prepayments/`, { ...as(w, who, extra), json });
const payoff = (w: LoanWorld, loanId: string, json: object, extra: Record<string, string> = {}) =>
  app.request('POST', `/api/v1/loans/loans/${loanId}/payoff/`, { ...as(w, 'cashier', extra), json });
const schedule = async (w: LoanWorld, loanId: string) =>
  (await app.request('GET', `/api/v1/loans/loans/${loanId}/schedule/`, as(w))).body.installments as Record<
    string,
    string
  >[];

/** 1 200 000 XAF over 12 months at 18 % (the world's product), disbursed in cash on 15 January 2026. */
async function disbursedLoan(w: LoanWorld, client?: string) {
  const loanId = await approvedLoan(w, client ?? (await memberOf(w)), { amount: '1200000', term_periods: 12 });
  const response = await app.request('POST', `/api/v1/loans/loans/${loanId}/disbursement/`, {
    ...as(w),
    json: { channel: 'cash' },
  });
  if (response.status !== 200) throw new Error(response.text);
  return loanId;
}

const rate = D('0.015');
/** A = P·i / (1 − (1+i)^−n), to the franc. */
const annuity = (principal: Decimal, periods: number) =>
  franc(principal.mul(rate).div(D(1).minus(D(1).plus(rate).pow(-periods))));

/**
 * The installments of an annuity from `principal` at the monthly rate: level `level`, the last one taking the rest;
 * stops when repaid.
 */
function expectedSeries(principal: Decimal, level: Decimal, maxPeriods: number) {
  const rows: { principal: string; interest: string }[] = [];
  let outstanding = principal;
  for (let period = 1; period <= maxPeriods && outstanding.gt(0); period += 1) {
    const interest = franc(outstanding.mul(rate));
    const part = period === maxPeriods || level.minus(interest).gte(outstanding) ? outstanding : level.minus(interest);
    rows.push({ principal: part.toFixed(0), interest: interest.toFixed(0) });
    outstanding = outstanding.minus(part);
  }
  return rows;
}

/** The TEG of a series from a principal, by bisection on the monthly rate: percent, two decimals. */
function tegOf(principal: Decimal, totals: Decimal[]): string {
  let low = D(0);
  let high = D('0.1');
  for (let pass = 0; pass < 200; pass += 1) {
    const middle = low.plus(high).div(2);
    const value = totals.reduce(
      (sum, total, index) =>
        sum.plus(
          total.div(
            D(1)
              .plus(middle)
              .pow(index + 1),
          ),
        ),
      D(0),
    );
    if (value.gt(principal)) low = middle;
    else high = middle;
  }
  return low.mul(1200).toFixed(2, Decimal.ROUND_HALF_UP);
}

/** Pays installments 1 to 4 on their due dates: the loan is then at month 4, 15 May 2026, with nothing due. */
async function payFourInstallments(w: LoanWorld, loanId: string) {
  const installments = await schedule(w, loanId);
  for (const installment of installments.slice(0, 4)) {
    await setBusinessDate(w, installment.due_date!);
    const total = D(installment.principal_due!).plus(installment.interest_due!).toFixed(0);
    const paid = await app.request('POST', '/api/v1/loans/repayments/', {
      ...as(w),
      json: { loan: loanId, amount: total },
    });
    if (paid.status !== 201) throw new Error(paid.text);
  }
}

async function booksAgree(t: ExecutionContext, w: LoanWorld) {
  t.true(await ledgerBalanced(knex, w.enterpriseId), 'debits equal credits');
  const outstanding = await knex('loans')
    .where({ enterprise_id: w.enterpriseId })
    .whereNot('status', 'awaiting_disbursement')
    .first(knex.raw('COALESCE(sum(outstanding_principal), 0)::text AS total'));
  t.is(
    await accountBalance(knex, w.enterpriseId, '3221'),
    outstanding.total,
    'portfolio account = outstanding principal',
  );
  const reconciliation = await app.request(
    'GET',
    `/api/v1/members/reconciliation/?enterprise=${w.enterpriseId}`,
    as(w, 'direction'),
  );
  t.deepEqual(reconciliation.body.results, [], 'member balances still equal the ledger');
}

const principal = D(1200000);
const level = annuity(principal, 12);
/** Outstanding after the first four installments of the original schedule. */
const afterFour = D(
  expectedSeries(principal, level, 12)
    .slice(0, 4)
    .reduce((left, row) => left.minus(row.principal), principal),
);
const prepaid = principal.mul('0.3');
const laterDates = [
  '2026-06-15',
  '2026-07-15',
  '2026-08-15',
  '2026-09-15',
  '2026-10-15',
  '2026-11-15',
  '2026-12-15',
  '2027-01-15',
];

/** The schedule's versions after the prepayment at month 4: the original kept, the new one from 15 May. */
async function assertScheduleVersions(
  t: ExecutionContext,
  w: LoanWorld,
  loanId: string,
  made: { left: Decimal; teg: string; remaining: number; original: Record<string, string>[] },
) {
  const versions = (await app.request('GET', `/api/v1/loans/loans/${loanId}/schedule/versions/`, as(w))).body;
  t.is(versions.schedule_version, 2);
  t.deepEqual(
    versions.versions.map((version: { version: number; reason: string }) => [version.version, version.reason]),
    [
      [1, 'original'],
      [2, 'prepayment'],
    ],
  );
  t.like(versions.versions[1], {
    effective_on: '2026-05-15',
    outstanding_principal: made.left.toFixed(0),
    teg: made.teg,
  });
  t.is(versions.versions[1].installments.length, 5 + made.remaining);
  t.is(
    versions.versions[0].installments[11].principal_due,
    made.original[11]!.principal_due,
    'the original version is kept as made',
  );
}

for (const strategy of ['reduce_installment', 'reduce_term'] as const) {
  test(
    `a 12-month annuity prepaid by 30 % at month 4, ${strategy}: ` +
      `the schedule recomputed to the franc, a new version with its TEG`,
    async (t) => {
      const w = await world();
      const loanId = await disbursedLoan(w);
      const original = await schedule(w, loanId);
      t.is(original[0]!.principal_due, level.minus(18000).toFixed(0), 'the original annuity');
      await payFourInstallments(w, loanId);
      const interestBefore = await accountBalance(knex, w.enterpriseId, '713');
      const response = await prepay(w, loanId, { amount: prepaid.toFixed(0), strategy, reference: 'PP-1' });
      t.is(response.status, 201, response.text);
      t.like(response.body, {
        kind: 'prepayment',
        strategy,
        amount: '360000',
        fee: '0',
        principal_prepaid: '360000',
        schedule_version: 2,
        business_date: '2026-05-15',
      });
      t.like(response.body.repayment, {
        amount: '360000',
        principal: '360000',
        interest: '0',
        penalty: '0',
        reference: 'PP-1',
      });
      const left = afterFour.minus(prepaid);
      t.is(response.body.repayment.outstanding_after, left.toFixed(0));

      const newLevel = strategy === 'reduce_installment' ? annuity(left, 8) : level;
      const expected = expectedSeries(left, newLevel, 8);
      const installments = await schedule(w, loanId);
      t.deepEqual(
        installments.slice(0, 4).map((row) => row.principal_paid),
        original.slice(0, 4).map((row) => row.principal_due),
        'the installments paid are kept',
      );
      t.like(installments[4], {
        number: 5,
        due_date: '2026-05-15',
        principal_due: '360000',
        principal_paid: '360000',
        interest_due: '0',
      });
      t.deepEqual(
        installments.slice(5).map((row) => ({ principal: row.principal_due, interest: row.interest_due })),
        expected,
      );
      t.deepEqual(
        installments.slice(5).map((row) => row.due_date),
        laterDates.slice(0, expected.length),
      );
      if (strategy === 'reduce_term')
        t.true(expected.length < 8, `the term is shorter: ${expected.length} installments left`);
      else
        t.true(
          D(installments[5]!.principal_due!).plus(installments[5]!.interest_due!).lt(level),
          'the installment is lower',
        );

      const teg = tegOf(
        left,
        expected.map((row) => D(row.principal).plus(row.interest)),
      );
      t.is(response.body.teg, teg);
      const loan = (await app.request('GET', `/api/v1/loans/loans/${loanId}/`, as(w))).body;
      t.like(loan, { schedule_version: 2, teg, outstanding_principal: left.toFixed(0), status: 'active' });
      await assertScheduleVersions(t, w, loanId, { left, teg, remaining: expected.length, original });
      t.is(await accountBalance(knex, w.enterpriseId, '713'), interestBefore, 'no interest at the start of a period');
      await booksAgree(t, w);
    },
  );
}

test(
  'a payoff quote and the payoff: arrears, interest to the day, ' +
    'penalties and the fee; the loan closes, its guarantee and hold are released',
  async (t) => {
    const w = await world();
    await setPayoffFees(t, w);
    const loanId = await pledgedLoan(t, w);
    const [first, second] = await schedule(w, loanId);
    await setBusinessDate(w, '2026-03-20');
    const figures = payoffOn20March(first!, second!);
    const { penalties, owed, interest, fee, total } = figures;
    await assertPayoffQuote(t, w, loanId, figures);
    await assertPayoffRefused(t, w, loanId, total);
    const tillBefore = D(await accountBalance(knex, w.enterpriseId, '5710'));
    const paid = await payoff(
      w,
      loanId,
      { amount: total.toFixed(0), reference: 'PAYOFF' },
      { 'Idempotency-Key': 'po-1' },
    );
    t.is(paid.status, 201, paid.text);
    t.like(paid.body, {
      kind: 'payoff',
      amount: total.toFixed(0),
      fee: fee.toFixed(0),
      principal_prepaid: owed.toFixed(0),
      strategy: null,
      schedule_version: null,
    });
    t.like(paid.body.repayment, {
      principal: '1200000',
      interest: interest.toFixed(0),
      penalty: penalties.toFixed(0),
      outstanding_after: '0',
      channel: 'cash',
    });
    t.is(
      (await app.request('GET', `/api/v1/loans/repayments/${paid.body.repayment.id as string}/`, as(w))).body.amount,
      total.minus(fee).toFixed(0),
      'the repayment is listed with the others',
    );
    const again = await payoff(
      w,
      loanId,
      { amount: total.toFixed(0), reference: 'PAYOFF' },
      { 'Idempotency-Key': 'po-1' },
    );
    t.is(again.body.id, paid.body.id, 'a retry answers the payoff made');
    t.is(again.headers.get('idempotent-replayed'), 'true');

    await assertPaidOff(t, w, loanId, figures, tillBefore);
    t.is((await prepay(w, loanId, { amount: '1000' })).body.code, 'loan_closed');
    t.is((await app.request('GET', `/api/v1/loans/loans/${loanId}/payoff-quote/`, as(w))).body.code, 'loan_closed');
    const listed = await app.request('GET', `/api/v1/loans/prepayments/?loan=${loanId}&kind=payoff`, as(w));
    t.deepEqual(
      listed.body.results.map((row: { id: string }) => row.id),
      [paid.body.id],
    );
    await booksAgree(t, w);
  },
);

/** The payoff's figures on 20 March 2026, computed here. */
interface PayoffFigures {
  penalties: Decimal;
  owed: Decimal;
  interest: Decimal;
  fee: Decimal;
  total: Decimal;
}

/** A prepayment fee of 2 % (at least 5 000) and the reduce_term strategy on the world's product. */
async function setPayoffFees(t: ExecutionContext, w: LoanWorld) {
  const patched = await app.request('PATCH', `/api/v1/loans/products/${w.productId}/`, {
    ...as(w, 'direction'),
    json: { prepayment_fee_rate: '0.02', prepayment_fee_minimum: '5000', prepayment_strategy: 'reduce_term' },
  });
  t.like(patched.body, {
    prepayment_fee_rate: '0.020000',
    prepayment_fee_minimum: '5000',
    prepayment_strategy: 'reduce_term',
  });
}

/** A disbursed loan guaranteed by a pledged deposit of 200 000 from the borrower's own account. */
async function pledgedLoan(t: ExecutionContext, w: LoanWorld) {
  const client = await memberOf(w);
  const loanId = await disbursedLoan(w, client);
  const savings = await openSavingsAccount(w, client, '300000');
  await confirmedGuarantee(w, {
    loan: loanId,
    kind: 'pledged_deposit',
    value: '200000',
    start_date: '2026-01-15',
    account: savings,
  });
  t.is(await accountBalance(knex, w.enterpriseId, '9321'), '-200000', 'the pledge is received off-balance');
  return loanId;
}

function payoffOn20March(first: Record<string, string>, second: Record<string, string>): PayoffFigures {
  // Installment 1 is 33 days late, installment 2 five. The third period has run 5 days (30/360) on the principal
  // after installment 2.
  const late = (row: Record<string, string>) => D(row.principal_due!).plus(row.interest_due!);
  const penalties = franc(late(first).mul('0.12').mul(33).div(365)).plus(
    franc(late(second).mul('0.12').mul(5).div(365)),
  );
  const owed = principal.minus(first.principal_due!).minus(second.principal_due!);
  const interest = D(first.interest_due!)
    .plus(second.interest_due!)
    .plus(franc(owed.mul('0.18').mul(5).div(360)));
  const fee = Decimal.max(franc(owed.mul('0.02')), 5000);
  const total = principal.plus(interest).plus(penalties).plus(fee);
  return { penalties, owed, interest, fee, total };
}

/** The quote on 20 March, as JSON and CSV; none before the business date, more owed later. */
async function assertPayoffQuote(t: ExecutionContext, w: LoanWorld, loanId: string, figures: PayoffFigures) {
  const { penalties, interest, fee, total } = figures;
  t.is(
    (await app.request('GET', `/api/v1/loans/loans/${loanId}/payoff-quote/?date=2026-03-19`, as(w))).body.errors[0]
      .field,
    'date',
    'no quote before the business date',
  );
  const quote = await app.request('GET', `/api/v1/loans/loans/${loanId}/payoff-quote/`, as(w));
  t.is(quote.status, 200, quote.text);
  t.deepEqual(quote.body, {
    loan: loanId,
    loan_number: quote.body.loan_number,
    date: '2026-03-20',
    principal: '1200000',
    interest: interest.toFixed(0),
    penalties: penalties.toFixed(0),
    fee: fee.toFixed(0),
    total: total.toFixed(0),
    valid_until: '2026-03-20',
  });
  const printed = await app.request('GET', `/api/v1/loans/loans/${loanId}/payoff-quote/?format=csv`, as(w));
  t.is(printed.status, 200);
  t.is(printed.headers.get('content-type'), 'text/csv; charset=utf-8');
  // The French list separator, as every download of the product.
  const line = [
    quote.body.loan_number,
    '2026-03-20',
    '1200000',
    interest.toFixed(0),
    penalties.toFixed(0),
    fee.toFixed(0),
    total.toFixed(0),
    '2026-03-20',
  ].join(';');
  t.true(printed.text.includes(line), printed.text);
  const later = (await app.request('GET', `/api/v1/loans/loans/${loanId}/payoff-quote/?date=2026-03-25`, as(w))).body;
  t.true(D(later.total).gt(total), 'a later quote owes more interest and penalties');
}

/** A payoff of one franc less than the total is refused, naming the amount, and writes nothing. */
async function assertPayoffRefused(t: ExecutionContext, w: LoanWorld, loanId: string, total: Decimal) {
  const refused = await payoff(w, loanId, { amount: total.minus(1).toFixed(0) });
  t.is(refused.status, 422);
  t.like(refused.body, { code: 'payoff_amount_differs' });
  t.is(refused.body.errors[0].field, 'amount');
  t.is(
    await knex('loan_repayments')
      .where({ loan_id: loanId })
      .count<{ count: string }[]>('* as count')
      .then((rows) => rows[0]!.count),
    '0',
    'nothing written',
  );
}

/** The loan closed by the payoff: the till, the income accounts, the guarantee and the schedule. */
async function assertPaidOff(
  t: ExecutionContext,
  w: LoanWorld,
  loanId: string,
  figures: PayoffFigures,
  tillBefore: Decimal,
) {
  const { penalties, interest, fee, total } = figures;
  const loan = (await app.request('GET', `/api/v1/loans/loans/${loanId}/`, as(w))).body;
  t.like(loan, { status: 'closed', outstanding_principal: '0', closed_on: '2026-03-20', schedule_version: 1 });
  t.is(
    D(await accountBalance(knex, w.enterpriseId, '5710'))
      .minus(tillBefore)
      .toFixed(0),
    total.toFixed(0),
    'the till took the payoff',
  );
  t.is(await accountBalance(knex, w.enterpriseId, '719'), penalties.negated().toFixed(0), 'penalties to income');
  t.is(
    await accountBalance(knex, w.enterpriseId, '713'),
    interest.negated().toFixed(0),
    'interest to the day to income',
  );
  t.is(
    await accountBalance(knex, w.enterpriseId, '7153'),
    D(-12000).minus(fee).toFixed(0),
    "the fee to credit fees, after the disbursement's",
  );
  t.is(await accountBalance(knex, w.enterpriseId, '9321'), '0', 'the guarantee leaves class 9 with the loan');
  t.deepEqual(
    await knex('guarantee_holds').where({ loan_id: loanId }).select('guarantee_id'),
    [],
    'the pledged deposit is held no more',
  );
  const installments = await schedule(w, loanId);
  t.true(
    installments.every((row) => row.principal_paid === row.principal_due && row.interest_paid === row.interest_due),
    'every installment settled, the interest not earned waived',
  );
}

test("a prepayment pays the dues first, from the member's account; idempotent; refusals name the field", async (t) => {
  const w = await world();
  const client = await memberOf(w);
  const loanId = await disbursedLoan(w, client);
  const account = await openSavingsAccount(w, client, '900000');
  const [first] = await schedule(w, loanId);
  await setBusinessDate(w, '2026-02-25');
  // Installment 1 is 10 days late; the second period has run 10 days on the principal after installment 1.
  const penalty = franc(D(first!.principal_due!).plus(first!.interest_due!).mul('0.12').mul(10).div(365));
  const owed = principal.minus(first!.principal_due!);
  const dues = D(first!.principal_due!)
    .plus(first!.interest_due!)
    .plus(penalty)
    .plus(franc(owed.mul('0.18').mul(10).div(360)));

  const below = await prepay(w, loanId, { amount: dues.toFixed(0) });
  t.is(below.status, 422);
  t.like(below.body, { code: 'prepayment_below_dues' });
  t.is(below.body.errors[0].field, 'amount');
  t.is((await prepay(w, loanId, { amount: '2000000' })).body.code, 'prepayment_settles_loan');
  t.is((await prepay(w, loanId, { amount: '12.5' })).body.errors[0].field, 'amount');
  t.is((await prepay(w, loanId, { amount: '500000', strategy: 'shorter' })).body.errors[0].field, 'strategy');
  t.is((await prepay(w, loanId, { amount: '500000', channel: 'account' })).body.errors[0].field, 'account');

  const amount = dues.plus(300000);
  const made = await prepay(
    w,
    loanId,
    { amount: amount.toFixed(0), channel: 'account', account },
    { 'Idempotency-Key': 'pp-1' },
  );
  t.is(made.status, 201, made.text);
  t.like(made.body, { principal_prepaid: '300000', strategy: 'reduce_installment', amount: amount.toFixed(0) });
  t.like(made.body.repayment, {
    penalty: penalty.toFixed(0),
    channel: 'account',
    account,
    outstanding_after: owed.minus(300000).toFixed(0),
  });
  t.is(
    (await knex('comptes_clients').where({ id: account }).first()).balance,
    D(900000).minus(amount).toFixed(0),
    'the account paid it all',
  );
  await assertPrepaymentReplayed(t, w, { loanId, account, amount, made: made.body.id });
  const installments = await schedule(w, loanId);
  t.like(installments[1], { due_date: '2026-02-25', principal_due: '300000', principal_paid: '300000' });
  t.is(installments[2]!.due_date, '2026-03-15', 'the next installment keeps its date');
  t.is(
    installments[2]!.interest_due,
    franc(owed.minus(300000).mul('0.18').mul(20).div(360)).toFixed(0),
    'its interest runs from the prepayment, 20 days (30/360)',
  );
  t.is(
    installments.length,
    13,
    "reduce_installment keeps the term: the prepayment's own installment, then 11 as before",
  );
  t.is(installments[12]!.due_date, '2027-01-15');
  await booksAgree(t, w);
});

/** The prepayment under key pp-1 retried: the same answer; another amount under that key is refused; one made. */
async function assertPrepaymentReplayed(
  t: ExecutionContext,
  w: LoanWorld,
  { loanId, account, amount, made }: { loanId: string; account: string; amount: Decimal; made: string },
) {
  const again = await prepay(
    w,
    loanId,
    { amount: amount.toFixed(0), channel: 'account', account },
    { 'Idempotency-Key': 'pp-1' },
  );
  t.is(again.body.id, made);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.is(
    (
      await prepay(
        w,
        loanId,
        { amount: amount.plus(1).toFixed(0), channel: 'account', account },
        { 'Idempotency-Key': 'pp-1' },
      )
    ).body.code,
    'idempotency_key_reused',
  );
  t.is(
    (await knex('loan_prepayments').where({ loan_id: loanId }).count<{ count: string }[]>('* as count'))[0]!.count,
    '1',
    'one prepayment',
  );
}

test("branch isolation: another branch's cashier and another enterprise see no loan to prepay", async (t) => {
  const w = await world();
  const loanId = await disbursedLoan(w);
  t.is((await prepay(w, loanId, { amount: '500000' }, {}, 'other_cashier')).status, 404);
  t.is((await app.request('GET', `/api/v1/loans/loans/${loanId}/payoff-quote/`, as(w, 'other_cashier'))).status, 404);
  t.is((await app.request('GET', `/api/v1/loans/loans/${loanId}/schedule/versions/`, as(w, 'other_head'))).status, 404);
  const other = await world();
  t.is((await prepay(other, loanId, { amount: '500000' })).status, 404);
  t.is(
    (await app.request('POST', `/api/v1/loans/loans/${loanId}/payoff/`, { ...as(other), json: { amount: '1' } }))
      .status,
    404,
  );
  const made = await prepay(w, loanId, { amount: '500000' });
  t.is(made.status, 201, made.text);
  t.is((await app.request('GET', `/api/v1/loans/prepayments/${made.body.id as string}/`, as(other))).status, 404);
  t.is((await app.request('GET', '/api/v1/loans/prepayments/', as(w, 'other_cashier'))).body.count, 0);
  t.is((await app.request('GET', '/api/v1/loans/prepayments/', as(w))).body.count, 1);
});
