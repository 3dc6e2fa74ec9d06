import type { IsoDate } from '../calendar';
import { Money } from '../money';

/**
 * Allocation of a repayment to what a loan still owes (docs/domain.md §4: repayments clear the oldest
 * arrears first). Within an installment, a spread insurance part is paid just before its interest (docs/domain.md
 * §14.6: penalties, insurance, interest, principal by default, as Fineract pays charges before interest). Pure: the
 * dues come from the caller, amounts are Money in whole francs. Guards throw
 * plain Errors (programming errors); a payment above the total due is a business refusal, returned as a
 * discriminated result that the activity maps to a 409.
 */

export type DueComponent = 'penalty' | 'interest' | 'principal';

const defaultAllocationOrder: readonly DueComponent[] = ['penalty', 'interest', 'principal'];

/** What remains unpaid of one installment, per component; whole francs, ≥ 0. */
export interface InstallmentDue {
  number: number;
  dueDate: IsoDate;
  penalty: Money;
  interest: Money;
  principal: Money;
  /** Its part of a spread insurance premium; absent: none. */
  insurance?: Money;
}

/** What a repayment pays on one installment, per component, and the sum of them. */
export interface InstallmentAllocation {
  number: number;
  dueDate: IsoDate;
  penalty: Money;
  insurance: Money;
  interest: Money;
  principal: Money;
  total: Money;
}

export interface AllocationInput {
  /** Whole francs, > 0. */
  amount: Money;
  dues: readonly InstallmentDue[];
  /** A permutation of the three components; defaults to penalties, then interest, then principal. */
  order?: readonly DueComponent[];
}

export type AllocationResult =
  | {
      ok: true;
      /** One row per installment, oldest first (dueDate, then number); rows that got nothing carry zeros. */
      allocations: InstallmentAllocation[];
      /** The dues after the payment, same order and rows as `allocations`, with their insurance. */
      remaining: Required<InstallmentDue>[];
    }
  | { ok: false; reason: 'exceeds_total_due'; totalDue: Money };

const components: readonly DueComponent[] = ['penalty', 'interest', 'principal'];

/** What remains of some dues, all components together. */
export const totalOf = (dues: readonly InstallmentDue[]): Money =>
  dues.reduce(
    (sum, due) =>
      sum
        .plus(due.penalty)
        .plus(due.insurance ?? 0)
        .plus(due.interest)
        .plus(due.principal),
    new Money(0),
  );

type Part = DueComponent | 'insurance';

/** The order with the insurance part just before the interest: it comes with the installment, as a charge. */
const withInsurance = (order: readonly DueComponent[]): Part[] =>
  order.flatMap((component): Part[] => (component === 'interest' ? ['insurance', 'interest'] : [component]));

const isWholeFranc = (amount: Money): boolean => amount.isFinite() && amount.isInteger();

export function allocateRepayment(input: AllocationInput): AllocationResult {
  const order = input.order ?? defaultAllocationOrder;
  assertValidInput(input.amount, input.dues, order);
  const dues = [...input.dues].sort(oldestFirst);
  const totalDue = totalOf(dues);
  if (input.amount.gt(totalDue)) return { ok: false, reason: 'exceeds_total_due', totalDue };

  let left = input.amount;
  const allocations: InstallmentAllocation[] = [];
  const remaining: Required<InstallmentDue>[] = [];
  const parts = withInsurance(order);
  for (const due of dues) {
    const owed: Record<Part, Money> = { ...due, insurance: due.insurance ?? new Money(0) };
    const paid: Record<Part, Money> = {
      penalty: new Money(0),
      insurance: new Money(0),
      interest: new Money(0),
      principal: new Money(0),
    };
    for (const component of parts) {
      const part = Money.min(left, owed[component]);
      paid[component] = part;
      left = left.minus(part);
    }
    allocations.push({
      number: due.number,
      dueDate: due.dueDate,
      ...paid,
      total: paid.penalty.plus(paid.insurance).plus(paid.interest).plus(paid.principal),
    });
    remaining.push({
      number: due.number,
      dueDate: due.dueDate,
      penalty: owed.penalty.minus(paid.penalty),
      insurance: owed.insurance.minus(paid.insurance),
      interest: owed.interest.minus(paid.interest),
      principal: owed.principal.minus(paid.principal),
    });
  }
  // amount ≤ totalDue, so the loop always spends all of it; a remainder would mean a bug above.
  if (!left.isZero()) throw new Error(`allocation left ${left.toString()} unallocated`);
  return { ok: true, allocations, remaining };
}

/** Oldest first: by due date (ISO dates sort as strings), then by installment number. */
function oldestFirst(a: InstallmentDue, b: InstallmentDue): number {
  if (a.dueDate !== b.dueDate) return a.dueDate < b.dueDate ? -1 : 1;
  return a.number - b.number;
}

function assertValidInput(amount: Money, dues: readonly InstallmentDue[], order: readonly DueComponent[]): void {
  if (!isWholeFranc(amount) || !amount.gt(0))
    throw new Error(`repayment amount must be a positive whole number of francs, got ${amount.toString()}`);
  if (order.length !== components.length || !components.every((component) => order.includes(component))) {
    throw new Error(`order must be a permutation of ${components.join(', ')}, got ${order.join(', ')}`);
  }
  const numbers = new Set<number>();
  for (const due of dues) {
    if (!Number.isInteger(due.number) || due.number < 1)
      throw new Error(`installment number must be a positive integer, got ${due.number}`);
    if (numbers.has(due.number)) throw new Error(`installment ${due.number} appears twice`);
    numbers.add(due.number);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(due.dueDate))
      throw new Error(`installment ${due.number}: dueDate must be YYYY-MM-DD, got ${due.dueDate}`);
    for (const component of [...components, 'insurance'] as const) {
      const value = due[component] ?? new Money(0);
      if (!isWholeFranc(value) || value.isNegative()) {
        throw new Error(
          `installment ${due.number}: ${component} due must be a whole number of francs ≥ 0, got ${value.toString()}`,
        );
      }
    }
  }
}
