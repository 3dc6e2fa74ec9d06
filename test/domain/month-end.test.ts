import test from 'ava';
import { closingRefusal, type YearFacts } from '../../domain/enterprise/year-end-closing';
import { accrualPostings, type Accrual } from '../../domain/accruals';
import {
  accruedInterest,
  unearnedInterest,
  unearnedPart,
  type AccrualInstallment,
} from '../../domain/loans/interest-accrual';
import { Money } from '../../domain/money';
import {
  isPeriod,
  monthEndRefusal,
  monthEndsRequired,
  periodDates,
  periodJustEnded,
  previousPeriod,
} from '../../domain/enterprise/month-end';

/**
 * 1 200 000 lent on 10 January 2026 at 24 %/year, 12 monthly installments of constant principal (100 000):
 * the interest of installment k is the balance before it times 2 %, so 24 000, 22 000, 20 000… due on the 10th.
 */
const principal = 1_200_000;
const installments: AccrualInstallment[] = Array.from({ length: 12 }, (_, index) => ({
  dueDate: `2026-${String(index + 2).padStart(2, '0')}-10`.replace('2026-13', '2027-01'),
  interestDue: new Money(((principal - index * 100_000) * 2) / 100),
  interestPaid: new Money(0),
}));
const loan = { disbursedOn: '2026-01-10', installments };

test(
  "the accrual is the current installment's interest for the actual days run, over the days of its period, " +
    'half-up to the franc',
  (t) => {
    t.is(installments[0]!.interestDue.toFixed(0), '24000');
    t.is(installments[11]!.dueDate, '2027-01-10');
    // January: 21 days of 31 (10 → 31 January) of 24 000 = 16 258.06 → 16 258.
    t.is(accruedInterest(loan, '2026-01-31').toFixed(0), '16258');
    // February: installment 2 (22 000), 18 days of 28 (10 → 28 February) = 14 142.857 → 14 143.
    t.is(accruedInterest(loan, '2026-02-28').toFixed(0), '14143');
    // March: installment 3 (20 000), 21 days of 31 = 13 548.39 → 13 548.
    t.is(accruedInterest(loan, '2026-03-31').toFixed(0), '13548');
    // Half a franc rounds up: 1 001 over 30 days, 15 run = 500.5 → 501.
    t.is(
      accruedInterest(
        {
          disbursedOn: '2026-04-01',
          installments: [{ dueDate: '2026-05-01', interestDue: new Money(1001), interestPaid: new Money(0) }],
        },
        '2026-04-16',
      ).toFixed(0),
      '501',
    );
  },
);

test(
  'nothing accrues before the disbursement, on a due date, after the last due date; interest already paid is ' +
    'deducted',
  (t) => {
    t.is(accruedInterest(loan, '2025-12-31').toFixed(0), '0', 'not disbursed yet');
    t.is(
      accruedInterest(
        {
          ...loan,
          installments: installments.map((row, index) => (index === 0 ? { ...row, dueDate: '2026-01-31' } : row)),
        },
        '2026-01-31',
      ).toFixed(0),
      '0',
      'the installment fell due that day: due, not accrued',
    );
    t.is(accruedInterest(loan, '2027-01-31').toFixed(0), '0', 'every installment has fallen due: arrears, not accrual');
    const prepaid = (paid: number) => ({
      ...loan,
      installments: installments.map((row, index) => (index === 0 ? { ...row, interestPaid: new Money(paid) } : row)),
    });
    t.is(accruedInterest(prepaid(10_000), '2026-01-31').toFixed(0), '6258');
    t.is(accruedInterest(prepaid(24_000), '2026-01-31').toFixed(0), '0', 'never below zero');
  },
);

const accrual = (loanId: string, branchId: string, amount: number, income = '713'): Accrual => ({
  subjectId: loanId,
  branchId,
  amount: new Money(amount),
  debitAccount: '3291',
  creditAccount: income,
});

test(
  'interest paid before it is earned: the part beyond what the installment has earned by the date, by the ' +
    "accrual's measure",
  (t) => {
    const period = { from: '2026-01-15', dueDate: '2026-02-15', interestDue: new Money(20_000) };
    const earnedBy20 = new Money(20_000).times(5).div(31).toDecimalPlaces(0, Money.ROUND_HALF_UP);
    t.is(
      unearnedPart(period, new Money(0), new Money(20_000), '2026-01-20').toFixed(0),
      new Money(20_000).minus(earnedBy20).toFixed(0),
    );
    // A second payment: what the first left unpaid of the earned part is income first.
    t.is(
      unearnedPart(period, new Money(2_000), new Money(3_000), '2026-01-20').toFixed(0),
      new Money(5_000).minus(earnedBy20).toFixed(0),
    );
    t.is(
      unearnedPart(period, new Money(0), new Money(3_000), '2026-01-20').toFixed(0),
      '0',
      'less than earned: all income',
    );
    t.is(
      unearnedPart(period, new Money(0), new Money(20_000), '2026-02-15').toFixed(0),
      '0',
      'on the due date: all earned',
    );
    t.is(
      unearnedPart(period, new Money(0), new Money(20_000), '2026-01-15').toFixed(0),
      '20000',
      "on the period's first day: nothing earned",
    );
    // What the month end leaves unearned agrees with its accrual: paid + accrued = earned at the month's end.
    const earnedBy31 = new Money(20_000).times(16).div(31).toDecimalPlaces(0, Money.ROUND_HALF_UP);
    t.is(
      unearnedInterest(period, new Money(20_000), '2026-01-31').toFixed(0),
      new Money(20_000).minus(earnedBy31).toFixed(0),
    );
    const paid = new Money(5_000);
    const accrued = accruedInterest(
      {
        disbursedOn: '2026-01-15',
        installments: [{ dueDate: '2026-02-15', interestDue: new Money(20_000), interestPaid: paid }],
      },
      '2026-01-31',
    );
    t.is(
      accrued
        .plus(paid)
        .minus(unearnedInterest(period, paid, '2026-01-31'))
        .toFixed(0),
      earnedBy31.toFixed(0),
    );
  },
);

test('accruals are posted one entry per branch and pair of accounts; the reversal swaps the sides', (t) => {
  const accruals = [
    accrual('L1', 'A', 16_258),
    accrual('L2', 'A', 1_000),
    accrual('L3', 'B', 500),
    accrual('L4', 'A', 700, '712'),
    accrual('L5', 'A', 0),
  ];
  const postings = accrualPostings(accruals, 'accrue');
  t.deepEqual(
    postings.map((posting) => [
      posting.branchId,
      posting.amount.toFixed(0),
      posting.accruals.map((one) => one.subjectId).join(),
    ]),
    [
      ['A', '17258', 'L1,L2'],
      ['B', '500', 'L3'],
      ['A', '700', 'L4'],
    ],
  );
  t.deepEqual(
    postings[0]!.lines.map((line) => [line.account, line.debit.toFixed(0), line.credit.toFixed(0)]),
    [
      ['3291', '17258', '0'],
      ['713', '0', '17258'],
    ],
  );
  const reversed = accrualPostings(accruals, 'reverse');
  t.deepEqual(
    reversed[0]!.lines.map((line) => [line.account, line.debit.toFixed(0), line.credit.toFixed(0)]),
    [
      ['713', '17258', '0'],
      ['3291', '0', '17258'],
    ],
  );
});

test('periods: their dates, the one before, the one just ended', (t) => {
  t.deepEqual(periodDates('2028-02'), { start: '2028-02-01', end: '2028-02-29' });
  t.deepEqual(periodDates('2026-12'), { start: '2026-12-01', end: '2026-12-31' });
  t.is(previousPeriod('2027-01'), '2026-12');
  t.is(periodJustEnded('2027-01-01'), '2026-12');
});

test("a month end runs once its month is over, in order from the enterprise's first one", (t) => {
  const facts = {
    period: '2026-03',
    businessDate: '2026-04-01',
    firstRunPeriod: '2026-01',
    previousStatus: 'done' as const,
    firstOpenYear: { startDate: '2026-01-01', endDate: '2026-12-31' },
    cutOverDate: null,
  };
  t.is(monthEndRefusal(facts), null);
  t.is(
    monthEndRefusal({ ...facts, businessDate: '2026-03-31' })?.code,
    'period_not_over',
    'the last day is still open to postings',
  );
  t.is(monthEndRefusal({ ...facts, previousStatus: 'failed' })?.code, 'previous_month_end_not_done');
  t.is(
    monthEndRefusal({ ...facts, previousStatus: null })?.code,
    'previous_month_end_not_done',
    'no gap once month ends have begun',
  );
  t.is(
    monthEndRefusal({ ...facts, firstRunPeriod: null, previousStatus: null }),
    null,
    'the first month end of the enterprise',
  );
  // Issue 27: a month before the first one would accrue again what the later month's reversal never undoes.
  t.is(
    monthEndRefusal({ ...facts, firstRunPeriod: '2026-05', previousStatus: null })?.code,
    'month_end_out_of_order',
    'before the first one: refused',
  );
});

test("a month ended before a go-live import's cut-over is the old system's; the cut-over's own month runs", (t) => {
  const imported = {
    businessDate: '2026-12-01',
    firstRunPeriod: null,
    previousStatus: null,
    firstOpenYear: { startDate: '2026-01-01', endDate: '2026-12-31' },
    cutOverDate: '2026-10-31',
  };
  t.is(
    monthEndRefusal({ ...imported, period: '2026-09' })?.code,
    'month_end_before_cut_over',
    'September ended before the cut-over',
  );
  t.is(
    monthEndRefusal({ ...imported, period: '2026-10' }),
    null,
    "a cut-over on the month's last day: the month end of that day runs",
  );
  t.is(
    monthEndRefusal({ ...imported, cutOverDate: '2026-10-15', period: '2026-10' }),
    null,
    'a cut-over within the month: its month end runs',
  );
  t.is(
    monthEndRefusal({ ...imported, cutOverDate: '2026-11-01', period: '2026-10' })?.code,
    'month_end_before_cut_over',
    'the day after the month',
  );
});

test(
  "the first month end lies in the enterprise's first " + 'open accounting year; periods are bounded as dates are',
  (t) => {
    const first = {
      businessDate: '2027-02-01',
      firstRunPeriod: null,
      previousStatus: null,
      firstOpenYear: { startDate: '2026-01-01', endDate: '2026-12-31' },
      cutOverDate: null,
    };
    t.is(monthEndRefusal({ ...first, period: '2026-01' }), null);
    t.is(monthEndRefusal({ ...first, period: '2026-12' }), null);
    t.is(monthEndRefusal({ ...first, period: '2025-12' })?.code, 'first_month_end_outside_first_year');
    t.is(
      monthEndRefusal({ ...first, period: '2027-01' })?.code,
      'first_month_end_outside_first_year',
      'a later year: the first open one would close without its month ends',
    );
    t.is(monthEndRefusal({ ...first, period: '1900-01' })?.code, 'first_month_end_outside_first_year');
    t.is(monthEndRefusal({ ...first, firstOpenYear: null, period: '2026-01' })?.code, 'no_exercice_for_period');
    // A first year starting mid-month: its first month end is the month holding its first day.
    t.is(
      monthEndRefusal({
        ...first,
        firstOpenYear: { startDate: '2026-03-15', endDate: '2026-12-31' },
        period: '2026-03',
      }),
      null,
    );
    t.is(
      monthEndRefusal({
        ...first,
        firstOpenYear: { startDate: '2026-03-15', endDate: '2026-12-31' },
        period: '2026-02',
      })?.code,
      'first_month_end_outside_first_year',
    );
    for (const period of ['2026-01', '1900-01', '2999-12']) t.true(isPeriod(period), period);
    for (const period of [
      '9999-12',
      '0000-01',
      '1000-01',
      '1899-12',
      '3000-01',
      '2026-13',
      '2026-00',
      '2026-1',
      '202601',
      '',
    ])
      t.false(isPeriod(period), period);
    t.deepEqual(periodDates('2999-12'), { start: '2999-12-01', end: '2999-12-31' });
  },
);

test("a year needs its month ends from the enterprise's first one; closing refuses while one is not done", (t) => {
  const year2026 = { startDate: '2026-01-01', endDate: '2026-12-31' };
  t.deepEqual(monthEndsRequired(year2026, null), [], 'never adopted: the year closes as before');
  t.deepEqual(monthEndsRequired(year2026, '2027-01'), []);
  t.deepEqual(monthEndsRequired(year2026, '2026-10'), ['2026-10', '2026-11', '2026-12']);
  t.is(monthEndsRequired(year2026, '2025-06').length, 12);
  const y = (code: string, status: YearFacts['status'] = 'open'): YearFacts => ({
    code,
    startDate: `${code}-01-01`,
    endDate: `${code}-12-31`,
    status,
  });
  t.is(
    closingRefusal({ year: y('2026'), others: [y('2027')], monthEndsNotDone: ['2026-12'] })?.code,
    'month_end_not_done',
  );
  t.is(closingRefusal({ year: y('2026'), others: [y('2027')], monthEndsNotDone: [] }), null);
});
