import test, { type ExecutionContext } from 'ava';
import {
  allocateRepayment,
  type AllocationResult,
  type DueComponent,
  type InstallmentDue,
} from '../../domain/loans/allocation';
import { Money } from '../../domain/money';

/** Expected figures are worked out by hand in each test's comment, never from the code under test. */

const due = (
  number: number,
  dueDate: string,
  penalty: string,
  interest: string,
  principal: string,
): InstallmentDue => ({
  number,
  dueDate,
  penalty: new Money(penalty),
  interest: new Money(interest),
  principal: new Money(principal),
});

/** [number, penalty, interest, principal(, total)] as strings, for t.deepEqual on literal rows. */
function rows(result: AllocationResult): { allocated: string[][]; remaining: string[][] } {
  if (!result.ok) throw new Error(`expected an allocation, got ${result.reason}`);
  return {
    allocated: result.allocations.map((a) => [a.number, a.penalty, a.interest, a.principal, a.total].map(String)),
    remaining: result.remaining.map((r) => [r.number, r.penalty, r.interest, r.principal].map(String)),
  };
}

// Two overdue installments (given newest first on purpose) and one not yet due.
const overdue = [
  due(3, '2026-03-15', '0', '10000', '90000'),
  due(2, '2026-02-15', '1500', '12000', '88000'),
  due(1, '2026-01-15', '3000', '15000', '85000'),
];

test('partial payment across two overdue installments: oldest first, penalties, interest, principal', (t) => {
  // 150 000 = installment 1 in full (3 000 + 15 000 + 85 000 = 103 000), then installment 2: penalty 1 500,
  // interest 12 000, principal 33 500 (of 88 000). Installment 3 gets nothing.
  const { allocated, remaining } = rows(allocateRepayment({ amount: new Money('150000'), dues: overdue }));
  t.deepEqual(allocated, [
    ['1', '3000', '15000', '85000', '103000'],
    ['2', '1500', '12000', '33500', '47000'],
    ['3', '0', '0', '0', '0'],
  ]);
  t.deepEqual(remaining, [
    ['1', '0', '0', '0'],
    ['2', '0', '0', '54500'],
    ['3', '0', '10000', '90000'],
  ]);
});

test('a custom order applies within each installment; the oldest still comes first', (t) => {
  // Principal first: installment 1 principal 85 000, then interest 15 000 → 100 000, then 5 000 goes to
  // its penalty only (3 000 due → 3 000), the last 2 000 to installment 2's principal.
  const order: DueComponent[] = ['principal', 'interest', 'penalty'];
  const { allocated, remaining } = rows(allocateRepayment({ amount: new Money('105000'), dues: overdue, order }));
  t.deepEqual(allocated[0], ['1', '3000', '15000', '85000', '103000']);
  t.deepEqual(allocated[1], ['2', '0', '0', '2000', '2000']);
  t.deepEqual(remaining[1], ['2', '1500', '12000', '86000']);
  // 50 000 with interest first: installment 1 interest 15 000, principal 35 000, penalty untouched.
  const partial = rows(
    allocateRepayment({ amount: new Money('50000'), dues: overdue, order: ['interest', 'principal', 'penalty'] }),
  );
  t.deepEqual(partial.allocated[0], ['1', '0', '15000', '35000', '50000']);
  t.deepEqual(partial.remaining[0], ['1', '3000', '0', '50000']);
});

test('an exact payoff clears every component of every installment', (t) => {
  // 103 000 + 101 500 + 100 000 = 304 500.
  const result = allocateRepayment({ amount: new Money('304500'), dues: overdue });
  const { allocated, remaining } = rows(result);
  t.deepEqual(
    allocated.map((row) => row[4]),
    ['103000', '101500', '100000'],
  );
  t.deepEqual(remaining, [
    ['1', '0', '0', '0'],
    ['2', '0', '0', '0'],
    ['3', '0', '0', '0'],
  ]);
});

test('an over-payment is refused with the total due, not thrown', (t) => {
  const result = allocateRepayment({ amount: new Money('304501'), dues: overdue });
  t.false(result.ok);
  if (result.ok) return;
  t.is(result.reason, 'exceeds_total_due');
  t.is(result.totalDue.toString(), '304500');
  const nothingDue = allocateRepayment({ amount: new Money('1'), dues: [] });
  t.deepEqual(nothingDue.ok ? undefined : [nothingDue.reason, nothingDue.totalDue.toString()], [
    'exceeds_total_due',
    '0',
  ]);
});

test('same due date: the lower installment number is older', (t) => {
  const dues = [due(5, '2026-01-15', '0', '0', '1000'), due(4, '2026-01-15', '0', '0', '1000')];
  const { allocated } = rows(allocateRepayment({ amount: new Money('1500'), dues }));
  t.deepEqual(allocated, [
    ['4', '0', '0', '1000', '1000'],
    ['5', '0', '0', '500', '500'],
  ]);
});

test('programming errors throw: non-positive or fractional amount, bad order, bad dues', (t) => {
  for (const amount of ['0', '-1', '10.5']) {
    t.throws(
      () => allocateRepayment({ amount: new Money(amount), dues: overdue }),
      { message: /positive whole number/ },
      amount,
    );
  }
  t.throws(
    () => allocateRepayment({ amount: new Money('1'), dues: overdue, order: ['penalty', 'penalty', 'principal'] }),
    { message: /permutation/ },
  );
  t.throws(() => allocateRepayment({ amount: new Money('1'), dues: overdue, order: ['penalty', 'interest'] }), {
    message: /permutation/,
  });
  t.throws(() => allocateRepayment({ amount: new Money('1'), dues: [due(1, '2026-01-15', '-1', '0', '5')] }), {
    message: /penalty due/,
  });
  t.throws(() => allocateRepayment({ amount: new Money('1'), dues: [due(1, '2026-01-15', '0', '0.5', '5')] }), {
    message: /interest due/,
  });
  t.throws(
    () =>
      allocateRepayment({
        amount: new Money('1'),
        dues: [due(1, '2026-01-15', '0', '0', '5'), due(1, '2026-02-15', '0', '0', '5')],
      }),
    {
      message: /twice/,
    },
  );
});

/** mulberry32: a small seeded PRNG, so every run checks the same cases (and a failure names its seed). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const allOrders: DueComponent[][] = [
  ['penalty', 'interest', 'principal'],
  ['penalty', 'principal', 'interest'],
  ['interest', 'penalty', 'principal'],
  ['interest', 'principal', 'penalty'],
  ['principal', 'penalty', 'interest'],
  ['principal', 'interest', 'penalty'],
];

/** Installments whose components are often zero, sometimes large; due dates monthly with occasional ties. */
function randomDues(random: () => number): InstallmentDue[] {
  const int = (max: number): number => Math.floor(random() * (max + 1));
  const amountOf = (): Money => (random() < 0.3 ? new Money(0) : new Money(int(10_000_000)));
  const count = 1 + int(7);
  const dues: InstallmentDue[] = [];
  for (let number = 1; number <= count; number += 1) {
    const month = Math.min(12, number + (random() < 0.2 ? -1 : 0) + 1);
    dues.push({
      number,
      dueDate: `2026-${String(month).padStart(2, '0')}-15`,
      penalty: amountOf(),
      interest: amountOf(),
      principal: amountOf(),
    });
  }
  return dues;
}

type Allocated = Extract<ReturnType<typeof allocateRepayment>, { ok: true }>;

/** Σ allocated = amount, and allocated + remaining = due, component by component, in whole francs ≥ 0. */
function assertConserved(
  t: ExecutionContext,
  label: string,
  dues: InstallmentDue[],
  order: DueComponent[],
  amount: Money,
  { allocations, remaining }: Allocated,
): void {
  const allocatedSum = allocations.reduce((sum, a) => sum.plus(a.total), new Money(0));
  t.true(allocatedSum.eq(amount), `${label}: Σ allocated ${allocatedSum.toString()} ≠ ${amount.toString()}`);
  for (const [index, allocation] of allocations.entries()) {
    const original = dues.find((d) => d.number === allocation.number)!;
    const left = remaining[index]!;
    t.is(left.number, allocation.number, label);
    t.true(allocation.total.eq(allocation.penalty.plus(allocation.interest).plus(allocation.principal)), label);
    for (const component of order) {
      t.true(
        allocation[component].plus(left[component]).eq(original[component]),
        `${label}: ${component} of ${allocation.number}`,
      );
      t.true(allocation[component].gte(0) && left[component].gte(0), `${label}: negative ${component}`);
      t.true(allocation[component].isInteger() && left[component].isInteger(), `${label}: fractional ${component}`);
    }
  }
}

/**
 * Oldest first: rows sorted by (dueDate, number), and once a row still owes anything no later row has received
 * money; within that row, no component later in `order` got money while an earlier one owes.
 */
function assertOldestFirst(
  t: ExecutionContext,
  label: string,
  order: DueComponent[],
  amount: Money,
  totalDue: Money,
  { allocations, remaining }: Allocated,
): void {
  for (let index = 1; index < allocations.length; index += 1) {
    const [previous, current] = [allocations[index - 1]!, allocations[index]!];
    t.true(
      previous.dueDate < current.dueDate || (previous.dueDate === current.dueDate && previous.number < current.number),
      `${label}: rows out of order`,
    );
  }
  const firstOwing = remaining.findIndex((r) => r.penalty.gt(0) || r.interest.gt(0) || r.principal.gt(0));
  if (firstOwing < 0) {
    t.true(amount.eq(totalDue), `${label}: everything cleared but amount ≠ total due`);
    return;
  }
  for (const later of allocations.slice(firstOwing + 1))
    t.true(later.total.isZero(), `${label}: installment ${later.number} paid before an older one`);
  const owingIndex = order.findIndex((component) => remaining[firstOwing]![component].gt(0));
  for (const component of order.slice(owingIndex + 1))
    t.true(allocations[firstOwing]![component].isZero(), `${label}: ${component} paid out of order`);
}

test('property: conservation, oldest first, order within an installment, nothing negative', (t) => {
  for (let seed = 1; seed <= 500; seed += 1) {
    const random = prng(seed);
    const dues = randomDues(random);
    const shuffled = [...dues].sort(() => random() - 0.5);
    const order = allOrders[Math.floor(random() * 6)]!;
    const totalDue = dues.reduce((sum, d) => sum.plus(d.penalty).plus(d.interest).plus(d.principal), new Money(0));
    const label = `seed ${seed}`;
    if (totalDue.isZero() || random() < 0.1) {
      const refused = allocateRepayment({
        amount: totalDue.plus(1 + Math.floor(random() * 1001)),
        dues: shuffled,
        order,
      });
      t.true(!refused.ok && refused.totalDue.eq(totalDue), label);
      continue;
    }
    const amount = random() < 0.1 ? totalDue : Money.max(1, totalDue.mul(random()).floor());
    const result = allocateRepayment({ amount, dues: shuffled, order });
    if (!result.ok) {
      t.fail(`${label}: refused ${amount.toString()} of ${totalDue.toString()}`);
      continue;
    }
    t.is(result.allocations.length, dues.length, label);
    assertConserved(t, label, dues, order, amount, result);
    assertOldestFirst(t, label, order, amount, totalDue, result);
  }
});
