import { daysBetween, type IsoDate } from '../calendar';
import { Money } from '../money';

/**
 * Loan interest accrual at a month end (docs/domain.md §8): the interest a performing loan has earned and not
 * yet fallen due, from its last due date (or its disbursement) to the period's last day, booked to accrued
 * interest receivable (créances rattachées) against interest income, and reversed on the next period's first
 * day, when the installment's own interest takes over.
 */

export interface AccrualInstallment {
  dueDate: IsoDate;
  interestDue: Money;
  interestPaid: Money;
}

const zero = new Money(0);

/**
 * The interest a loan has earned and not yet fallen due at `periodEnd`: the interest of its current installment
 * (the first due after `periodEnd`) in proportion to the actual days run since the installment's period began
 * (the previous due date, or the disbursement), rounded half-up to the franc, less what the borrower has
 * already paid of it (never below zero). The schedule's interest of the installment is the whole to prorate, so
 * the accrual never exceeds what will fall due. Nothing once every installment has fallen due (the rest is
 * arrears, not accrual) or before the disbursement. `installments` are in schedule order.
 */
export function accruedInterest(loan: { disbursedOn: IsoDate; installments: readonly AccrualInstallment[] }, periodEnd: IsoDate): Money {
  if (loan.disbursedOn > periodEnd) return zero;
  const index = loan.installments.findIndex((installment) => installment.dueDate > periodEnd);
  if (index < 0) return zero;
  const current = loan.installments[index]!;
  const from = index === 0 ? loan.disbursedOn : loan.installments[index - 1]!.dueDate;
  const elapsed = daysBetween(from, periodEnd);
  const length = daysBetween(from, current.dueDate);
  if (elapsed <= 0 || length <= 0) return zero;
  const earned = current.interestDue.times(elapsed).div(length).toDecimalPlaces(0, Money.ROUND_HALF_UP);
  return Money.max(earned.minus(current.interestPaid), zero);
}
