import test from 'ava';
import { assessLoan, classifyBorrower, planBatch, type LoanFacts } from '../../domain/loans/provisioning-run';
import { Money } from '../../domain/money';
import { defaultProvisioningLadder } from '../../domain/provisioning-ladder';

const asOf = '2026-06-30';
const accounts = { performing: '3221', overdue: '3312' };

/** A loan of 1 000 000, performing and unprovisioned, up to date, with no row yet, unless told otherwise. */
const loan = (id: string, extra: Partial<LoanFacts> = {}): LoanFacts => ({
  id,
  clientId: `client-${id}`,
  branchId: 'branch-1',
  outstanding: new Money(1_000_000),
  classification: 'performing',
  doubtfulSince: null,
  provisionAmount: new Money(0),
  daysPastDue: 0,
  litigious: false,
  realEstate: false,
  classAccounts: accounts,
  doubtfulAccount: null,
  provisionAccount: null,
  cover: 'other',
  oldestDue: null,
  cashCover: new Money(0),
  eligibleCover: new Money(0),
  latest: null,
  ...extra,
});

test("classifyBorrower: each loan's own days past due, the borrower's age and class (contagion)", (t) => {
  const classes = classifyBorrower(
    [loan('a', { clientId: 'c', oldestDue: '2026-05-01' }), loan('b', { clientId: 'c' })],
    asOf,
  );
  t.deepEqual(classes, [
    { loanClass: 'doubtful', ageDays: 60, daysPastDue: 60 },
    { loanClass: 'doubtful', ageDays: 60, daysPastDue: 0 },
  ]);
});

test(
  "assessLoan: the provision from the class and the borrower's age; the downgrade date kept while doubtful; " +
    'the delta',
  (t) => {
    const downgraded = assessLoan(
      loan('a'),
      { loanClass: 'doubtful', ageDays: 60, daysPastDue: 60 },
      asOf,
      defaultProvisioningLadder,
    );
    t.is(downgraded.doubtfulSince, asOf);
    t.deepEqual([downgraded.provision.amount.toFixed(0), downgraded.delta.toFixed(0)], ['250000', '250000']);
    const still = assessLoan(
      loan('a', { classification: 'doubtful', doubtfulSince: '2026-01-10', provisionAmount: new Money(250_000) }),
      { loanClass: 'doubtful', ageDays: 200, daysPastDue: 200 },
      asOf,
      defaultProvisioningLadder,
    );
    t.is(still.doubtfulSince, '2026-01-10');
    t.deepEqual([still.provision.amount.toFixed(0), still.delta.toFixed(0)], ['750000', '500000']);
  },
);

test(
  'planBatch: one entry per branch, kind and account pair, the sum of its loans; rows and updates only where ' +
    'something changed',
  (t) => {
    const loans = [
      // 60 days: doubtful from performing, 25 %.
      loan('a', { clientId: 'c1', oldestDue: '2026-05-01' }),
      // 51 days: doubtful from performing, 25 %.
      loan('b', { clientId: 'c2', oldestDue: '2026-05-10', outstanding: new Money(400_000) }),
      // 10 days: overdue.
      loan('c', { clientId: 'c3', oldestDue: '2026-06-20', branchId: 'branch-2' }),
      // Doubtful from overdue.
      loan('d', { clientId: 'c4', oldestDue: '2026-05-01', classification: 'overdue', daysPastDue: 59 }),
      // Performing, nothing to say.
      loan('e', { clientId: 'c5' }),
    ];
    const plan = planBatch(loans, asOf, defaultProvisioningLadder);
    const postings = plan.postings.map((posting) => [
      posting.branchId,
      posting.kind,
      Object.values(posting.productAccounts).join('>'),
      posting.amount.toFixed(0),
      posting.loans,
    ]);
    t.deepEqual(postings, [
      ['branch-1', 'reclassification_doubtful', '3352>3221', '1400000', 2],
      ['branch-1', 'provision_charge', '3931', '600000', 3],
      ['branch-2', 'reclassification_overdue', '3312>3221', '1000000', 1],
      ['branch-1', 'reclassification_doubtful', '3352>3312', '1000000', 1],
    ]);
    t.deepEqual(
      plan.rows.map((row) => [row.loanId, row.classification, row.amount, row.delta]),
      [
        ['a', 'doubtful', '250000', '250000'],
        ['b', 'doubtful', '100000', '100000'],
        ['c', 'overdue', '0', '0'],
        ['d', 'doubtful', '250000', '250000'],
      ],
    );
    t.deepEqual(
      plan.loanUpdates.map((update) => update.loanId),
      ['a', 'b', 'c', 'd'],
    );
    t.like(plan.totals, { loans: 5, changed: 3, reclassified: 4 });
    t.is(plan.totals.charged.toFixed(0), '600000');
  },
);

test(
  'planBatch: a followed position writes a row when its detail changes, not when only its days do; performing ' +
    'loans never do',
  (t) => {
    const latest = {
      classification: 'overdue' as const,
      rate: '0.000000',
      base: '1000000',
      uncovered: '1000000',
      amount: '0',
    };
    const overdue = {
      clientId: 'c1',
      classification: 'overdue' as const,
      oldestDue: '2026-06-20',
      daysPastDue: 9,
      latest,
    };
    const nextDay = planBatch([loan('a', overdue)], asOf, defaultProvisioningLadder);
    t.deepEqual(nextDay.rows, [], 'one day older, same class, rate and amount');
    t.deepEqual(
      nextDay.loanUpdates.map((update) => update.daysPastDue),
      [10],
      'the loan keeps its days past due',
    );
    const repaid = planBatch(
      [loan('a', { ...overdue, outstanding: new Money(900_000) })],
      asOf,
      defaultProvisioningLadder,
    );
    t.deepEqual(
      repaid.rows.map((row) => [row.base, row.amount]),
      [['900000', '0']],
      'the outstanding principal of an overdue loan is followed',
    );
    t.deepEqual(planBatch([loan('b', { outstanding: new Money(500_000) })], asOf, defaultProvisioningLadder).rows, []);
    const cured = planBatch(
      [loan('c', { classification: 'overdue', daysPastDue: 9, latest })],
      asOf,
      defaultProvisioningLadder,
    );
    t.deepEqual(
      cured.rows.map((row) => row.classification),
      ['performing'],
      'back to performing: one row, then none',
    );
    t.is(cured.postings[0]?.kind, 'reclassification_performing');
  },
);

test(
  'planBatch: a doubtful loan by its cover; its provision moved whole when its account changes, then only the ' +
    'delta charged',
  (t) => {
    const kinds = (plan: ReturnType<typeof planBatch>) =>
      plan.postings.map((posting) => [
        posting.kind,
        Object.values(posting.productAccounts).join('>'),
        posting.amount.toFixed(0),
      ]);
    // Downgraded with a mortgage of 600 000: 3342, 25 % of the 400 000 uncovered (60 days) = 100 000 on 3921.
    const mortgaged = planBatch(
      [loan('a', { oldestDue: '2026-05-01', cover: 'real', eligibleCover: new Money(600_000) })],
      asOf,
      defaultProvisioningLadder,
    );
    t.deepEqual(kinds(mortgaged), [
      ['reclassification_doubtful', '3342>3221', '1000000'],
      ['provision_charge', '3921', '100000'],
    ]);
    t.like(mortgaged.loanUpdates[0], { doubtfulAccount: '3342', provisionAccount: '3921' });
    // Doubtful for a year without cover, 400 000 on 3931: 100 % now (1 000 000), 400 000 moved to 3932 and 600 000
    // charged there.
    const doubtful = {
      classification: 'doubtful' as const,
      doubtfulSince: '2025-06-30',
      doubtfulAccount: '3352',
      provisionAccount: '3931',
      provisionAmount: new Money(400_000),
      oldestDue: '2025-05-01',
      daysPastDue: 365,
    };
    const aYear = planBatch([loan('b', doubtful)], asOf, defaultProvisioningLadder);
    t.deepEqual(kinds(aYear), [
      ['provision_transfer', '3931>3932', '400000'],
      ['provision_charge', '3932', '600000'],
    ]);
    t.like(aYear.loanUpdates[0], { doubtfulAccount: '3352', provisionAccount: '3932' });
    // Fully provisioned: the move alone, no charge; a State guarantee added since moves the principal to 3332 too.
    const covered = planBatch(
      [loan('c', { ...doubtful, provisionAmount: new Money(1_000_000), cover: 'state' })],
      asOf,
      defaultProvisioningLadder,
    );
    t.deepEqual(kinds(covered), [
      ['reclassification_doubtful', '3332>3352', '1000000'],
      ['provision_transfer', '3931>39100', '1000000'],
    ]);
    t.is(covered.totals.reclassified, 0, 'a move between doubtful accounts is no reclassification');
    // Cured: the principal back from its doubtful account, the provision reversed where it sat.
    const cured = planBatch(
      [loan('d', { ...doubtful, oldestDue: null, cover: 'real', doubtfulAccount: '3342', provisionAccount: '3922' })],
      asOf,
      defaultProvisioningLadder,
    );
    t.deepEqual(kinds(cured), [
      ['reclassification_performing', '3221>3342', '1000000'],
      ['provision_reversal', '3922', '400000'],
    ]);
    t.like(cured.loanUpdates[0], { doubtfulAccount: null, provisionAccount: null });
  },
);

test('planBatch: loans come in borrower order, or a borrower split in two would escape contagion', (t) => {
  t.throws(
    () => planBatch([loan('a', { clientId: 'c2' }), loan('b', { clientId: 'c1' })], asOf, defaultProvisioningLadder),
    { message: /borrower order/ },
  );
});
