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
export function accruedInterest(
  loan: { disbursedOn: IsoDate; installments: readonly AccrualInstallment[] },
  periodEnd: IsoDate,
): Money {
  if (loan.disbursedOn > periodEnd) return zero;
  const index = loan.installments.findIndex((installment) => installment.dueDate > periodEnd);
  if (index < 0) return zero;
  const current = loan.installments[index]!;
  const from = index === 0 ? loan.disbursedOn : loan.installments[index - 1]!.dueDate;
  const earned = earnedInterest({ from, dueDate: current.dueDate, interestDue: current.interestDue }, periodEnd);
  return Money.max(earned.minus(current.interestPaid), zero);
}

/**
 * An installment's interest and the period it runs over: from the previous due date (or the disbursement) to its own.
 */
interface InterestPeriod {
  from: IsoDate;
  dueDate: IsoDate;
  interestDue: Money;
}

/**
 * The part of an installment's interest earned by `asOf`: all of it once due; before, in proportion to the actual
 * days run since its period began, rounded half-up to the franc (the accrual's own measure, so that what a
 * repayment defers and what a month end accrues agree to the franc).
 */
function earnedInterest(period: InterestPeriod, asOf: IsoDate): Money {
  if (asOf >= period.dueDate) return period.interestDue;
  const elapsed = daysBetween(period.from, asOf);
  const length = daysBetween(period.from, period.dueDate);
  if (elapsed <= 0 || length <= 0) return zero;
  return period.interestDue.times(elapsed).div(length).toDecimalPlaces(0, Money.ROUND_HALF_UP);
}

/**
 * Interest paid before it is earned (docs/domain.md §3): what of `interestPaid` on the installment is beyond what it
 * has earned by `asOf`, income received in advance (produits perçus d'avance) until then; never below zero.
 */
export function unearnedInterest(period: InterestPeriod, interestPaid: Money, asOf: IsoDate): Money {
  return Money.max(interestPaid.minus(earnedInterest(period, asOf)), zero);
}

/**
 * What of a payment of `paying` interest on an installment, `paidBefore` already paid, is unearned at `asOf`: the
 * part beyond the interest earned and not yet paid. The rest is income at once.
 */
export const unearnedPart = (period: InterestPeriod, paidBefore: Money, paying: Money, asOf: IsoDate): Money =>
  unearnedInterest(period, paidBefore.plus(paying), asOf).minus(unearnedInterest(period, paidBefore, asOf));

/**
 * The interest a doubtful loan has earned and not been paid at `asOf` (docs/domain.md §12.2): what fell due unpaid,
 * and what runs on its current installment (`accruedInterest`). R-2017/07 keeps it out of income until collected;
 * the books follow it off-balance (9841).
 */
export function unpaidEarnedInterest(
  loan: { disbursedOn: IsoDate; installments: readonly AccrualInstallment[] },
  asOf: IsoDate,
): Money {
  if (loan.disbursedOn > asOf) return zero;
  const fallenDue = loan.installments.filter((installment) => installment.dueDate <= asOf);
  const unpaid = fallenDue.reduce(
    (sum, installment) => sum.plus(Money.max(installment.interestDue.minus(installment.interestPaid), zero)),
    zero,
  );
  return unpaid.plus(accruedInterest(loan, asOf));
}
