import { daysBetween, type IsoDate } from '../calendar';
import { Money } from '../money';
import { totalOf, type InstallmentDue } from './allocation';
import { penaltyFor } from './loan-product';

/**
 * Where a loan stands at a business date, from its installments (the RepaymentSchedule rows). Pure: the
 * repayment activity and the loan detail read the same figures from the same functions.
 */
export interface InstallmentState {
  number: number;
  dueDate: IsoDate;
  principalDue: Money;
  interestDue: Money;
  /** Penalties accrued up to `penaltyThrough`. */
  penaltyDue: Money;
  principalPaid: Money;
  interestPaid: Money;
  penaltyPaid: Money;
  penaltyThrough: IsoDate;
  /** Its part of a spread insurance premium and what was paid of it (docs/domain.md §14.6); absent: none. */
  insuranceDue?: Money;
  insurancePaid?: Money;
}

/** What remains of an installment's insurance part. It bears no penalty: the penalty runs on principal and interest. */
export const unpaidInsurance = (installment: InstallmentState): Money =>
  (installment.insuranceDue ?? new Money(0)).minus(installment.insurancePaid ?? 0);

const unpaidScheduled = (installment: InstallmentState): Money =>
  installment.principalDue
    .minus(installment.principalPaid)
    .plus(installment.interestDue.minus(installment.interestPaid));

export const isSettled = (installment: InstallmentState): boolean =>
  unpaidScheduled(installment).isZero() &&
  installment.penaltyDue.eq(installment.penaltyPaid) &&
  unpaidInsurance(installment).isZero();

/**
 * Accrues late-payment penalties up to `asOf` on every installment past due: the rate runs on what remains
 * unpaid of its principal and interest since the last accrual. Accruing at each repayment makes the base
 * follow partial payments: each stretch of time is charged on the balance it really had.
 */
export function accruePenalties(
  installments: readonly InstallmentState[],
  asOf: IsoDate,
  penaltyRate: Money,
): InstallmentState[] {
  return installments.map((installment) => {
    if (installment.penaltyThrough >= asOf) return installment;
    const penalty = penaltyFor(unpaidScheduled(installment), penaltyRate, installment.penaltyThrough, asOf);
    return { ...installment, penaltyDue: installment.penaltyDue.plus(penalty), penaltyThrough: asOf };
  });
}

/**
 * What may be paid at `asOf`: every installment due by then, and the next one (paid ahead of its date, as
 * members do at the till). Anything beyond is a prepayment, a separate operation.
 */
export function payableDues(installments: readonly InstallmentState[], asOf: IsoDate): InstallmentDue[] {
  const open = installments.filter((installment) => !isSettled(installment)).sort((a, b) => a.number - b.number);
  const dueByNow = open.filter((installment) => installment.dueDate <= asOf);
  const next = open.find((installment) => installment.dueDate > asOf);
  return [...dueByNow, ...(next === undefined ? [] : [next])].map((installment) => ({
    number: installment.number,
    dueDate: installment.dueDate,
    penalty: installment.penaltyDue.minus(installment.penaltyPaid),
    insurance: unpaidInsurance(installment),
    interest: installment.interestDue.minus(installment.interestPaid),
    principal: installment.principalDue.minus(installment.principalPaid),
  }));
}

/** Days past due: the age at `asOf` of the oldest installment left unpaid after its due date; 0 when none. */
export function daysPastDue(installments: readonly InstallmentState[], asOf: IsoDate): number {
  const oldest = installments
    .filter((installment) => installment.dueDate < asOf && !isSettled(installment))
    .reduce<IsoDate | undefined>(
      (earliest, installment) =>
        earliest === undefined || installment.dueDate < earliest ? installment.dueDate : earliest,
      undefined,
    );
  return oldest === undefined ? 0 : daysBetween(oldest, asOf);
}

export interface LoanPosition {
  outstandingPrincipal: Money;
  /** Unpaid principal and interest of the installments due by `asOf`. */
  overduePrincipal: Money;
  overdueInterest: Money;
  /** Unpaid penalties, accrued to `asOf`. */
  penalties: Money;
  daysPastDue: number;
  /** The most a repayment may be at `asOf`. */
  payable: Money;
}

export function loanPosition(
  installments: readonly InstallmentState[],
  asOf: IsoDate,
  penaltyRate: Money,
): LoanPosition {
  const accrued = accruePenalties(installments, asOf, penaltyRate);
  const sum = (rows: readonly InstallmentState[], part: (installment: InstallmentState) => Money) =>
    rows.reduce((total, row) => total.plus(part(row)), new Money(0));
  const dueByNow = accrued.filter((installment) => installment.dueDate <= asOf);
  return {
    outstandingPrincipal: sum(accrued, (row) => row.principalDue.minus(row.principalPaid)),
    overduePrincipal: sum(dueByNow, (row) => row.principalDue.minus(row.principalPaid)),
    overdueInterest: sum(dueByNow, (row) => row.interestDue.minus(row.interestPaid)),
    penalties: sum(accrued, (row) => row.penaltyDue.minus(row.penaltyPaid)),
    daysPastDue: daysPastDue(accrued, asOf),
    payable: totalOf(payableDues(accrued, asOf)),
  };
}

/**
 * What a share refund may take from a loan at `asOf` (the member's debt is set off against what the
 * cooperative owes them): every installment due by then, and, when `withOutstandingPrincipal` (the member
 * leaves), the principal of the installments not yet due, without their interest, which is not earned.
 */
export function offsetDues(
  installments: readonly InstallmentState[],
  asOf: IsoDate,
  withOutstandingPrincipal: boolean,
): InstallmentDue[] {
  const open = installments.filter((installment) => !isSettled(installment)).sort((a, b) => a.number - b.number);
  return open
    .filter((installment) => withOutstandingPrincipal || installment.dueDate <= asOf)
    .map((installment) => {
      const due = installment.dueDate <= asOf;
      return {
        number: installment.number,
        dueDate: installment.dueDate,
        penalty: due ? installment.penaltyDue.minus(installment.penaltyPaid) : new Money(0),
        insurance: due ? unpaidInsurance(installment) : new Money(0),
        interest: due ? installment.interestDue.minus(installment.interestPaid) : new Money(0),
        principal: installment.principalDue.minus(installment.principalPaid),
      };
    });
}

/**
 * An installment not yet due whose principal is repaid ahead owes no more interest: it was never earned; nor its
 * insurance part: the cover ends with the debt (docs/domain.md §14.6). A grace installment (no principal of its own)
 * earns its interest on the principal still owed: it is waived only once the loan owes none. `installments` are the
 * loan's open installments (the settled ones owe no principal).
 */
export function waiveUnearnedInterest(installments: readonly InstallmentState[], asOf: IsoDate): InstallmentState[] {
  const principalOwed = installments.some((installment) => installment.principalPaid.lt(installment.principalDue));
  return installments.map((installment) => {
    if (installment.dueDate <= asOf || installment.principalPaid.lt(installment.principalDue)) return installment;
    if (installment.principalDue.eq(0) && principalOwed) return installment;
    if (installment.interestDue.eq(installment.interestPaid) && unpaidInsurance(installment).isZero())
      return installment;
    const insurance =
      installment.insuranceDue === undefined ? {} : { insuranceDue: installment.insurancePaid ?? new Money(0) };
    return { ...installment, interestDue: installment.interestPaid, ...insurance };
  });
}
