import test from 'ava';
import {
  classifyBorrowerLoans,
  reclassificationOf,
  type BorrowerLoan,
  type LoanClass,
} from '../../domain/loans/classification';
import { coverClassOf, doubtfulAccountOf, provisionAccountOf } from '../../domain/loans/doubtful-accounts';
import { ladderRate, provisionFor, yearsSince, type ProvisionInput } from '../../domain/loans/provisioning';
import { Money } from '../../domain/money';
import { defaultProvisioningLadder } from '../../domain/provisioning-ladder';

const loan = (daysPastDue: number, extra: Partial<BorrowerLoan> = {}): BorrowerLoan => ({
  loanId: `L${daysPastDue}`,
  daysPastDue,
  realEstate: false,
  litigious: false,
  previousClass: 'performing',
  ...extra,
});
const classOf = (...loans: BorrowerLoan[]): LoanClass[] => classifyBorrowerLoans(loans).map((row) => row.loanClass);

test('classes at every boundary day: 0 performing, 1-45 overdue, 46 doubtful; 90/91 for real estate', (t) => {
  t.deepEqual(
    [0, 1, 45, 46].map((days) => classOf(loan(days))[0]),
    ['performing', 'overdue', 'overdue', 'doubtful'],
  );
  t.deepEqual(
    [45, 46, 90, 91].map((days) => classOf(loan(days, { realEstate: true }))[0]),
    ['overdue', 'overdue', 'overdue', 'doubtful'],
  );
  t.is(classOf(loan(0, { litigious: true }))[0], 'doubtful', 'litigious is doubtful whatever the age');
});

test("contagion: one doubtful loan makes all the borrower's loans doubtful; the age is the borrower's oldest", (t) => {
  const classified = classifyBorrowerLoans([
    loan(50, { loanId: 'a' }),
    loan(0, { loanId: 'b' }),
    loan(60, { loanId: 'c', realEstate: true }),
  ]);
  t.deepEqual(
    classified.map((row) => [row.loanId, row.loanClass, row.ageDays]),
    [
      ['a', 'doubtful', 60],
      ['b', 'doubtful', 60],
      ['c', 'doubtful', 60],
    ],
  );
  t.deepEqual(
    classOf(loan(60, { realEstate: true }), loan(0)),
    ['doubtful', 'doubtful'],
    'a borrower of 60 days with a non-real-estate loan is beyond 45 days',
  );
  t.deepEqual(
    classOf(loan(60, { realEstate: true }), loan(0, { realEstate: true })),
    ['overdue', 'performing'],
    'real estate only: 60 days is still overdue',
  );
  t.deepEqual(classOf(loan(10, { litigious: true }), loan(0)), ['doubtful', 'doubtful']);
});

test('the way back: a doubtful loan stays doubtful while any arrears remain, and is performing once cleared', (t) => {
  t.deepEqual(classOf(loan(10, { previousClass: 'doubtful' })), ['doubtful']);
  t.deepEqual(classOf(loan(0, { previousClass: 'doubtful' })), ['performing']);
  t.deepEqual(classOf(loan(10, { previousClass: 'overdue' })), ['overdue']);
});

const input = (extra: Partial<ProvisionInput>): ProvisionInput => ({
  outstanding: new Money(1_000_000),
  loanClass: 'performing',
  ageDays: 0,
  cashCover: new Money(0),
  eligibleCover: new Money(0),
  doubtfulSince: null,
  asOf: '2026-06-30',
  ladder: defaultProvisioningLadder,
  ...extra,
});

test('the default ladder at every boundary day', (t) => {
  const rates = [0, 45, 46, 90, 91, 180, 181, 365, 366, 5000].map((days) =>
    ladderRate(defaultProvisioningLadder, days).toString(),
  );
  t.deepEqual(rates, ['0', '0', '0.25', '0.25', '0.5', '0.5', '0.75', '0.75', '1', '1']);
});

test(
  'provision = ladder rate × uncovered principal; cash cover is never provisioned; personal guarantors cover ' +
    'nothing',
  (t) => {
    const doubtful = { loanClass: 'doubtful' as const, doubtfulSince: '2026-05-01' };
    t.is(provisionFor(input({ ageDays: 100, ...doubtful })).amount.toFixed(0), '500000');
    const covered = provisionFor(input({ ageDays: 100, cashCover: new Money(300_000), ...doubtful }));
    t.deepEqual(
      [covered.base.toFixed(0), covered.rate.toString(), covered.amount.toFixed(0)],
      ['700000', '0.5', '350000'],
    );
    t.is(
      provisionFor(input({ ageDays: 100, cashCover: new Money(5_000_000), ...doubtful })).amount.toFixed(0),
      '0',
      'a cover above the principal is capped',
    );
    t.is(
      provisionFor(input({ ageDays: 30, loanClass: 'overdue' })).amount.toFixed(0),
      '0',
      'overdue within 45 days: optional, 0 by default',
    );
  },
);

test('regulatory minimum: uncovered doubtful 100 % after a year; eligible cover 25 % a year over four years', (t) => {
  t.is(yearsSince('2025-06-30', '2026-06-29'), 0);
  t.is(yearsSince('2025-06-30', '2026-06-30'), 1);
  // Doubtful by contagion, young arrears: the ladder says 0 %, the regulation 100 % once a year has passed.
  const young = { loanClass: 'doubtful' as const, ageDays: 10 };
  t.is(provisionFor(input({ ...young, doubtfulSince: '2025-07-01' })).amount.toFixed(0), '0');
  t.is(provisionFor(input({ ...young, doubtfulSince: '2025-06-30' })).amount.toFixed(0), '1000000');
  // Litigious with no arrears: due at the next annual closing at the latest (Arts. 17, 22), booked at once; a cash
  // cover still needs none.
  t.is(
    provisionFor(input({ ...young, ageDays: 0, litigious: true, doubtfulSince: '2026-06-29' })).amount.toFixed(0),
    '1000000',
  );
  t.is(
    provisionFor(
      input({ ...young, ageDays: 0, litigious: true, doubtfulSince: '2026-06-29', cashCover: new Money(400_000) }),
    ).amount.toFixed(0),
    '600000',
  );
  // 600 000 covered by a mortgage, 400 000 uncovered, age 100 days (ladder 50 %), doubtful since 2 years.
  const mortgaged = provisionFor(
    input({ loanClass: 'doubtful', ageDays: 100, eligibleCover: new Money(600_000), doubtfulSince: '2024-06-30' }),
  );
  t.is(mortgaged.amount.toFixed(0), '700000', 'uncovered 100 % (a year passed) + covered 50 % (two years)');
  t.is(
    provisionFor(
      input({ loanClass: 'doubtful', ageDays: 100, eligibleCover: new Money(600_000), doubtfulSince: '2020-01-01' }),
    ).amount.toFixed(0),
    '1000000',
    'capped at 100 % after four years',
  );
});

test('reclassification entries move the principal from the account of the old class to that of the new one', (t) => {
  const at = (loanClass: LoanClass, account: string) => ({ loanClass, account });
  t.is(reclassificationOf(at('overdue', '3312'), at('overdue', '3312')), null);
  t.is(reclassificationOf(at('doubtful', '3342'), at('doubtful', '3342')), null);
  t.deepEqual(reclassificationOf(at('performing', '3221'), at('overdue', '3312')), {
    kind: 'reclassification_overdue',
    productAccounts: { overdue_receivables: '3312', loan_portfolio: '3221' },
  });
  t.deepEqual(reclassificationOf(at('overdue', '3312'), at('doubtful', '3352')), {
    kind: 'reclassification_doubtful',
    productAccounts: { doubtful_receivables: '3352', loan_portfolio: '3312' },
  });
  t.deepEqual(reclassificationOf(at('performing', '3221'), at('doubtful', '3342')), {
    kind: 'reclassification_doubtful',
    productAccounts: { doubtful_receivables: '3342', loan_portfolio: '3221' },
  });
  t.deepEqual(reclassificationOf(at('doubtful', '3332'), at('performing', '3221')), {
    kind: 'reclassification_performing',
    productAccounts: { loan_portfolio: '3221', doubtful_receivables: '3332' },
  });
  t.deepEqual(reclassificationOf(at('overdue', '3312'), at('performing', '3221')), {
    kind: 'reclassification_performing',
    productAccounts: { loan_portfolio: '3221', doubtful_receivables: '3312' },
  });
  // A cover that changes while the loan stays doubtful moves its principal between the doubtful accounts.
  t.deepEqual(reclassificationOf(at('doubtful', '3352'), at('doubtful', '3342')), {
    kind: 'reclassification_doubtful',
    productAccounts: { doubtful_receivables: '3342', loan_portfolio: '3352' },
  });
});

test(
  'the PCEMF accounts of a doubtful loan by cover (333/334/335) and of its provision by cover and years ' +
    'doubtful (391/392/393)',
  (t) => {
    t.is(coverClassOf([]), 'other');
    t.is(coverClassOf(['personal_guarantor', 'bank_guarantee']), 'other', 'sûretés personnelles');
    t.is(coverClassOf(['mortgage']), 'real');
    t.is(coverClassOf(['pledged_deposit', 'personal_guarantor']), 'real');
    t.is(coverClassOf(['mortgage', 'public_guarantee']), 'state', 'the State first');
    t.deepEqual((['state', 'real', 'other'] as const).map(doubtfulAccountOf), ['3332', '3342', '3352']);
    t.deepEqual(
      [0, 1, 2, 3, 4, 9].map((years) => provisionAccountOf('real', years)),
      ['3921', '3922', '3923', '3924', '3924', '3924'],
    );
    t.deepEqual(
      [0, 1, 2, 3].map((years) => provisionAccountOf('other', years)),
      ['3931', '3932', '3933', '3933'],
    );
    t.deepEqual(
      [0, 5].map((years) => provisionAccountOf('state', years)),
      ['39100', '39100'],
    );
    t.throws(() => provisionAccountOf('other', -1));
    // Whole years from the downgrade, as the regulatory minimum counts them.
    t.is(provisionAccountOf('other', yearsSince('2025-07-01', '2026-06-30')), '3931');
    t.is(provisionAccountOf('other', yearsSince('2025-06-30', '2026-06-30')), '3932');
  },
);
