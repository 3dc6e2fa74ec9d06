import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { recordLoanDecision } from '../../activities/loans/loan-approval.activity';
import { loansAt } from '../../activities/loans/positions-at';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { testClock } from '../helpers/clock';
import { createTestDatabase } from '../helpers/database';
import { approvedLoan, createLoanWorld, memberOf, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue } from '../helpers/worker';

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let loans: Awaited<ReturnType<typeof seededPortfolio>>;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'PAR');
  loans = await seededPortfolio(world);
});

const text = (amount: Money) => amount.toFixed(0);
const zero = new Money(0);
const total = (amounts: readonly Money[]) => amounts.reduce((sum, amount) => sum.plus(amount), zero);

/** ISO date `months` later, for days of the month up to 28 (no clamping needed). */
function addMonths(date: string, months: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const index = year * 12 + (month - 1) + months;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const days = (from: string, to: string) =>
  (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;

interface HandInstallment {
  due: string;
  principal: Money;
  interest: Money;
}

/**
 * The product's loan by hand: a constant annuity at 18 % a year, monthly, each period's interest on the remaining
 * principal (30/360) rounded half-up to the franc, the last installment taking the remainder of the principal;
 * the first due date one month after the disbursement.
 */
function handSchedule(principal: number, months: number, disbursedOn: string): HandInstallment[] {
  const rate = new Money('0.18').div(12);
  const annuity = new Money(principal)
    .times(rate)
    .div(new Money(1).minus(rate.plus(1).pow(-months)))
    .toDecimalPlaces(0);
  let remaining = new Money(principal);
  const rows: HandInstallment[] = [];
  for (let period = 1; period <= months; period += 1) {
    const interest = remaining.times(rate).toDecimalPlaces(0);
    const part = period === months ? remaining : annuity.minus(interest);
    rows.push({ due: addMonths(disbursedOn, period), principal: part, interest });
    remaining = remaining.minus(part);
  }
  return rows;
}

interface HandLoan {
  id: string;
  officer: string;
  installments: HandInstallment[];
  /** Installments (by number) paid, and the day each was paid. */
  paid: Map<number, string>;
  disbursedOn: string;
}

const unpaidAt = (loan: HandLoan, number: number, date: string) => {
  const paidOn = loan.paid.get(number);
  return paidOn === undefined || paidOn > date;
};

/**
 * The test's own figures of a loan at a date: days past due, outstanding principal, arrears, principal past due and
 * falling due by date.
 */
function figuresAt(loan: HandLoan, date: string) {
  const unpaid = loan.installments.filter((_, index) => unpaidAt(loan, index + 1, date));
  const late = unpaid.filter((installment) => installment.due < date);
  return {
    daysPastDue: late.length === 0 ? 0 : days(late[0]!.due, date),
    outstanding: total(unpaid.map((installment) => installment.principal)),
    arrears: total(
      unpaid
        .filter((installment) => installment.due <= date)
        .map((installment) => installment.principal.plus(installment.interest)),
    ),
    dueBetween: (after: string, upTo: string | null) =>
      total(
        unpaid
          .filter((installment) => installment.due > after && (upTo === null || installment.due <= upTo))
          .map((installment) => installment.principal),
      ),
    pastDue: total(unpaid.filter((installment) => installment.due <= date).map((installment) => installment.principal)),
  };
}

/**
 * PAR n of a set of loans at a date, computed here: loans more than n days past due, their outstanding, the ratio to
 * six places.
 */
function expectedPar(loans: readonly HandLoan[], date: string) {
  const figures = loans.filter((loan) => loan.disbursedOn <= date).map((loan) => figuresAt(loan, date));
  const outstanding = total(figures.map((row) => row.outstanding));
  return {
    loans: figures.length,
    outstanding: text(outstanding),
    buckets: [1, 30, 90, 180, 365].map((threshold) => {
      const late = figures.filter((row) => row.daysPastDue > threshold);
      const atRisk = total(late.map((row) => row.outstanding));
      return {
        threshold,
        loans: late.length,
        outstanding: text(atRisk),
        ratio: outstanding.isZero()
          ? '0.000000'
          : atRisk.div(outstanding).toDecimalPlaces(6, Money.ROUND_HALF_UP).toFixed(6),
      };
    }),
  };
}

const setDate = (world: LoanWorld, date: string) =>
  knex('enterprise_configurations').where({ enterprise_id: world.enterpriseId }).update({ business_date: date });

async function request(world: LoanWorld, method: string, path: string, as: string, json?: unknown) {
  return app.request(method, path, { headers: world.users[as]!.headers, ...(json === undefined ? {} : { json }) });
}

/** A loan granted on `date` (submitted by the teller, or naming `officer`), disbursed in cash the same day. */
async function disbursedOn(
  world: LoanWorld,
  date: string,
  terms: { amount: number; months: number },
  officer?: string,
): Promise<HandLoan> {
  await setDate(world, date);
  const client = await memberOf(world);
  const amount = { amount: String(terms.amount), term_periods: terms.months };
  const loanId =
    officer === undefined
      ? await approvedLoan(world, client, amount)
      : await approvedWithOfficer(world, client, amount, officer);
  const disbursed = await request(world, 'POST', `/api/v1/loans/loans/${loanId}/disbursement/`, 'cashier', {
    channel: 'cash',
  });
  if (disbursed.status !== 200) throw new Error(disbursed.text);
  return {
    id: loanId,
    officer: officer ?? world.users.teller!.id,
    installments: handSchedule(terms.amount, terms.months, date),
    paid: new Map(),
    disbursedOn: date,
  };
}

/** An application naming its loan officer, approved as the workflow's last step would. */
async function approvedWithOfficer(
  world: LoanWorld,
  client: string,
  terms: { amount: string; term_periods: number },
  officer: string,
): Promise<string> {
  const submitted = await request(world, 'POST', '/api/v1/loans/applications/', 'teller', {
    client,
    product: world.productId,
    ...terms,
    loan_officer: officer,
  });
  if (submitted.status !== 201) throw new Error(submitted.text);
  if (submitted.body.loan_officer !== officer) throw new Error('the application does not name its officer');
  const recorded = await recordLoanDecision(knex, testClock(), {
    applicationId: submitted.body.id,
    idempotencyKey: `test:${submitted.body.id}`,
    step: 'direction',
    decision: 'approve',
    deciderId: world.users.direction!.id,
    comment: '',
    requestId: null,
    statusAfter: 'approved',
    stepAfter: null,
  });
  if (recorded.outcome !== 'recorded') throw new Error(`approval refused: ${recorded.code}`);
  return recorded.loanId!;
}

/**
 * Six loans of the head office, disbursed over 2026 and left unpaid except the first installment of one, so that on
 * 20 November 2026 they are 0 to 283 days past due; one names the branch head as its officer, the others the teller.
 */
async function seededPortfolio(world: LoanWorld) {
  const oldest = await disbursedOn(world, '2026-01-10', { amount: 600_000, months: 12 });
  const repaid = await disbursedOn(world, '2026-03-01', { amount: 1_000_000, months: 12 });
  await setDate(world, '2026-04-01');
  const repayment = await request(world, 'POST', '/api/v1/loans/repayments/', 'cashier', {
    loan: repaid.id,
    amount: text(repaid.installments[0]!.principal.plus(repaid.installments[0]!.interest)),
  });
  if (repayment.status !== 201) throw new Error(repayment.text);
  repaid.paid.set(1, '2026-04-01');
  const longer = await disbursedOn(world, '2026-06-01', { amount: 2_400_000, months: 24 }, world.users.branch_head!.id);
  const fifty = await disbursedOn(world, '2026-09-01', { amount: 800_000, months: 12 });
  const five = await disbursedOn(world, '2026-10-15', { amount: 500_000, months: 6 });
  const current = await disbursedOn(world, '2026-10-30', { amount: 300_000, months: 3 });
  await setDate(world, '2026-11-26');
  return { oldest, repaid, longer, fifty, five, current, all: [oldest, repaid, longer, fifty, five, current] };
}

const parPath = (query: string) => `/api/v1/loans/portfolio-at-risk/?enterprise=${world.enterpriseId}&${query}`;

// Serial: the reassignment and the business date moved below change what the later tests read.
test.serial(
  'portfolio at risk of the seeded portfolio at a date: ' +
    'every bucket and the PAR 30 ratio computed here, per product, branch and officer; past dates',
  async (t) => {
    // The days past due on 20 November are the seed's: 283, 203 (the first installment repaid), 142, 50, 5 and 0.
    t.deepEqual(
      loans.all.map((loan) => figuresAt(loan, '2026-11-20').daysPastDue),
      [283, 203, 142, 50, 5, 0],
    );
    const par = (await request(world, 'GET', parPath('date=2026-11-20'), 'direction')).body;
    t.deepEqual(par.total, expectedPar(loans.all, '2026-11-20'));
    // PAR 30 by hand: the four loans 50 days late or more over the six loans' outstanding principal.
    const outstanding = loans.all.map((loan) => figuresAt(loan, '2026-11-20').outstanding);
    const par30 = total(outstanding.slice(0, 4))
      .div(total(outstanding))
      .toDecimalPlaces(6, Money.ROUND_HALF_UP)
      .toFixed(6);
    t.like(par.total.buckets[1], { threshold: 30, loans: 4, ratio: par30 });
    t.like(par.total.buckets[4], { threshold: 365, loans: 0, outstanding: '0' });
    // Per loan officer at the date: the branch head's one loan, the teller's five.
    const teller = loans.all.filter((loan) => loan.officer === world.users.teller!.id);
    t.deepEqual(
      par.by_officer.map((group: { id: string }) => group.id).sort(),
      [world.users.branch_head!.id, world.users.teller!.id].sort(),
    );
    t.like(
      par.by_officer.find((group: { id: string }) => group.id === world.users.teller!.id),
      expectedPar(teller, '2026-11-20'),
    );
    t.like(par.by_product, [{ id: world.productId, code: 'CRT', ...expectedPar(loans.all, '2026-11-20') }]);
    t.like(par.by_branch, [{ id: world.headOffice, ...expectedPar(loans.all, '2026-11-20') }]);
    const filtered = (
      await request(world, 'GET', parPath(`date=2026-11-20&officer=${world.users.branch_head!.id}`), 'direction')
    ).body;
    t.deepEqual(filtered.total, expectedPar([loans.longer], '2026-11-20'));

    // A past date reads that date: on 20 March only two loans were out, the repaid installment still due; on 20 April
    // it was paid.
    t.deepEqual(
      (await request(world, 'GET', parPath('date=2026-03-20'), 'direction')).body.total,
      expectedPar(loans.all, '2026-03-20'),
    );
    t.deepEqual(
      (await request(world, 'GET', parPath('date=2026-04-20'), 'direction')).body.total,
      expectedPar(loans.all, '2026-04-20'),
    );
    t.is(figuresAt(loans.repaid, '2026-03-20').outstanding.toFixed(0), '1000000');

    // Once the business date is in 2027, the oldest loan is more than a year past due: PAR 365.
    await setDate(world, '2027-02-25');
    const later = (await request(world, 'GET', parPath('date=2027-02-20'), 'direction')).body;
    await setDate(world, '2026-11-26');
    t.deepEqual(later.total, expectedPar(loans.all, '2027-02-20'));
    t.like(later.total.buckets[4], {
      threshold: 365,
      loans: 1,
      outstanding: text(figuresAt(loans.oldest, '2027-02-20').outstanding),
    });
  },
);

/** The 50-day loan's reassignment to the cashier: on the loan, in the assignments list, in the loans by officer. */
async function assertReassignmentShown(t: ExecutionContext, reason: string) {
  const detail = (await request(world, 'GET', `/api/v1/loans/loans/${loans.fifty.id}/`, 'cashier')).body;
  t.like(detail.officer_assignments, [
    {
      from_officer: world.users.teller!.id,
      to_officer: world.users.cashier!.id,
      assigned_on: '2026-11-26',
      assigned_by: world.users.branch_head!.id,
      reason,
    },
  ]);
  const history = (
    await request(
      world,
      'GET',
      `/api/v1/loans/officer-assignments/?enterprise=${world.enterpriseId}&officer=${world.users.cashier!.id}`,
      'direction',
    )
  ).body;
  t.is(history.count, 1);
  t.is(
    (
      await request(
        world,
        'GET',
        `/api/v1/loans/officer-assignments/?enterprise=${world.enterpriseId}`,
        'other_cashier',
      )
    ).body.count,
    0,
    'another branch sees none',
  );
  const listed = (
    await request(
      world,
      'GET',
      `/api/v1/loans/loans/?enterprise=${world.enterpriseId}&officer=${world.users.cashier!.id}`,
      'direction',
    )
  ).body;
  t.deepEqual(
    listed.results.map((loan: { id: string }) => loan.id),
    [loans.fifty.id],
  );
}

test.serial(
  'a loan officer reassigned by the branch head: refusals, ' +
    'the history on the loan and in the list, the audit, PAR by officer before and after its date',
  async (t) => {
    // Reassignment: the branch head hands the 50-day loan to the cashier from the business date (26 November), with a
    // reason.
    const officerPath = `/api/v1/loans/loans/${loans.fifty.id}/officer/`;
    const reason = 'The teller moves to the other branch';
    t.is(
      (await request(world, 'POST', officerPath, 'teller', { officer: world.users.cashier!.id, reason })).status,
      403,
    );
    const foreign = await request(world, 'POST', officerPath, 'branch_head', {
      officer: world.users.other_cashier!.id,
      reason,
    });
    t.is(foreign.status, 422);
    t.deepEqual(
      foreign.body.errors.map((error: { field: string }) => error.field),
      ['officer'],
    );
    const reassigned = await request(world, 'POST', officerPath, 'branch_head', {
      officer: world.users.cashier!.id,
      reason,
    });
    t.is(reassigned.status, 200, reassigned.text);
    t.is(reassigned.body.loan_officer, world.users.cashier!.id);
    t.is(
      (await request(world, 'POST', officerPath, 'branch_head', { officer: world.users.cashier!.id, reason })).status,
      409,
    );
    await assertReassignmentShown(t, reason);
    // At application too, the officer must hold a role in the member's branch.
    const refusedApplication = await request(world, 'POST', '/api/v1/loans/applications/', 'teller', {
      client: await memberOf(world),
      product: world.productId,
      amount: '100000',
      term_periods: 6,
      loan_officer: world.users.other_cashier!.id,
    });
    t.is(refusedApplication.status, 422, refusedApplication.text);
    t.deepEqual(
      refusedApplication.body.errors.map((error: { field: string }) => error.field),
      ['loan_officer'],
    );
    const audited = await knex('audit_events')
      .where({ action: 'loan.officer_reassign', entity_id: loans.fifty.id })
      .first('actor_id');
    t.is(audited?.actor_id, world.users.branch_head!.id);
    // Before the reassignment's date the loan was still the teller's; from it, the cashier's.
    t.deepEqual(
      (await request(world, 'GET', parPath(`date=2026-11-20&officer=${world.users.cashier!.id}`), 'direction')).body
        .total.loans,
      0,
    );
    t.deepEqual(
      (await request(world, 'GET', parPath(`date=2026-11-26&officer=${world.users.cashier!.id}`), 'direction')).body
        .total,
      expectedPar([loans.fifty], '2026-11-26'),
    );
  },
);

test.serial(
  "the officers' portfolios over a period: loans, outstanding, " +
    'arrears, PAR 30 at its end; disbursements and collections over it',
  async (t) => {
    const teller = loans.all.filter((loan) => loan.officer === world.users.teller!.id);
    // The officers' portfolios from 1 March to 26 November: at its end the teller has four loans, the cashier one, the
    // branch head one.
    const portfolios = (
      await request(
        world,
        'GET',
        `/api/v1/loans/officer-portfolios/?enterprise=${world.enterpriseId}&from=2026-03-01&to=2026-11-26`,
        'direction',
      )
    ).body;
    const officerFigures = (members: readonly HandLoan[]) => {
      const rows = members.map((loan) => figuresAt(loan, '2026-11-26'));
      const amount = total(rows.map((row) => row.outstanding));
      const late = rows.filter((row) => row.daysPastDue > 30);
      return {
        loans: members.length,
        outstanding: text(amount),
        arrears: text(total(rows.map((row) => row.arrears))),
        par30_loans: late.length,
        par30_outstanding: text(total(late.map((row) => row.outstanding))),
        par30_ratio: total(late.map((row) => row.outstanding))
          .div(amount)
          .toDecimalPlaces(6, Money.ROUND_HALF_UP)
          .toFixed(6),
        disbursed: text(
          total(
            members
              .filter((loan) => loan.disbursedOn >= '2026-03-01')
              .map((loan) => loan.installments.reduce((sum, row) => sum.plus(row.principal), zero)),
          ),
        ),
        collected: text(
          members.includes(loans.repaid)
            ? loans.repaid.installments[0]!.principal.plus(loans.repaid.installments[0]!.interest)
            : zero,
        ),
      };
    };
    const tellerNow = teller.filter((loan) => loan !== loans.fifty);
    t.like(
      portfolios.officers.find((row: { officer: string }) => row.officer === world.users.teller!.id),
      officerFigures(tellerNow),
    );
    t.like(
      portfolios.officers.find((row: { officer: string }) => row.officer === world.users.cashier!.id),
      officerFigures([loans.fifty]),
    );
    t.like(
      portfolios.officers.find((row: { officer: string }) => row.officer === world.users.branch_head!.id),
      officerFigures([loans.longer]),
    );
    const whole = officerFigures(loans.all);
    t.like(portfolios.total, {
      loans: 6,
      outstanding: whole.outstanding,
      arrears: whole.arrears,
      disbursed: whole.disbursed,
      collected: whole.collected,
    });
  },
);

test.serial(
  "the maturity ladder by hand; its three months equal the liquidity ratio's; " +
    'CSV and XLSX; branch isolation; hostile dates',
  async (t) => {
    // The maturity ladder on 20 November, by hand; its three months equal what the liquidity ratio reads (loansAt).
    const date = '2026-11-20';
    const bounds = [date, ...[1, 3, 6, 12, 24, 60].map((months) => addMonths(date, months)), null];
    const expectedPeriods = [
      'up_to_1_month',
      'from_1_to_3_months',
      'from_3_to_6_months',
      'from_6_to_12_months',
      'from_1_to_2_years',
      'from_2_to_5_years',
      'over_5_years',
    ].map((period, index) => ({
      period,
      principal: text(
        total(loans.all.map((loan) => figuresAt(loan, date).dueBetween(bounds[index]!, bounds[index + 1]!))),
      ),
    }));
    const ladder = (
      await request(
        world,
        'GET',
        `/api/v1/loans/maturity-ladder/?enterprise=${world.enterpriseId}&date=${date}`,
        'direction',
      )
    ).body;
    t.deepEqual(ladder.periods, expectedPeriods);
    t.is(ladder.past_due, text(total(loans.all.map((loan) => figuresAt(loan, date).pastDue))));
    t.is(
      ladder.total,
      text(total(loans.all.map((loan) => figuresAt(loan, date).outstanding))),
      'past due and every period: the outstanding principal',
    );
    t.not(expectedPeriods[4]!.principal, '0', 'the 24-month loan falls due beyond a year');
    const liquidity = await loansAt(knex, { enterpriseId: world.enterpriseId, asOf: date, branches: 'all' });
    t.is(ladder.within_three_months, text(total(liquidity.map((loan) => loan.principalDueWithinThreeMonths))));

    // Files: the same figures as CSV and XLSX.
    const csv = await request(world, 'GET', parPath('date=2026-11-20&format=csv'), 'direction');
    t.is(csv.status, 200);
    t.regex(csv.headers.get('content-type') ?? '', /text\/csv/);
    t.true(
      csv.text.includes('PAR 30 taux') && csv.text.includes(expectedPar(loans.all, date).buckets[1]!.ratio),
      csv.text.slice(0, 400),
    );
    const xlsx = await request(
      world,
      'GET',
      `/api/v1/loans/maturity-ladder/?enterprise=${world.enterpriseId}&date=${date}&format=xlsx`,
      'direction',
    );
    t.is(xlsx.status, 200);
    t.regex(xlsx.headers.get('content-type') ?? '', /spreadsheetml/);

    // Branch isolation: the other branch's cashier sees none of the head office's loans, and not its branch; another
    // enterprise is a 404.
    t.is((await request(world, 'GET', parPath('date=2026-11-20'), 'other_cashier')).body.total.loans, 0);
    t.is(
      (await request(world, 'GET', parPath(`date=2026-11-20&branch=${world.headOffice}`), 'other_cashier')).status,
      404,
    );
    const stranger = await createLoanWorld(app, knex, 'PAX', { capital: false });
    t.is((await request(stranger, 'GET', parPath('date=2026-11-20'), 'direction')).status, 404);
    await assertHostileDatesRefused(t);
  },
);

/** Hostile dates: 400 naming the field. */
async function assertHostileDatesRefused(t: ExecutionContext) {
  for (const [path, field] of [
    [parPath('date=2026-02-30'), 'date'],
    [parPath('date=20261120'), 'date'],
    [parPath('date=99999-01-01'), 'date'],
    [parPath('date=2026-11-27'), 'date'],
    [`/api/v1/loans/maturity-ladder/?enterprise=${world.enterpriseId}&date=1899-12-31`, 'date'],
    [`/api/v1/loans/officer-portfolios/?enterprise=${world.enterpriseId}&from=2026-11-26&to=2026-03-01`, 'to'],
    [`/api/v1/loans/officer-portfolios/?enterprise=${world.enterpriseId}&from=2026-03-01&to=2027-01-01`, 'to'],
  ] as const) {
    const refused = await request(world, 'GET', path, 'direction');
    t.is(refused.status, 400, path);
    t.deepEqual(
      refused.body.errors.map((error: { field: string }) => error.field),
      [field],
      path,
    );
  }
}
