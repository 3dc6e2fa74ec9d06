import { daysBetween, type IsoDate } from '../calendar';
import type { JournalLine } from '../events/journal';
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

/** One loan's accrual with the accounts it is booked to: debit (accrued interest) and credit (interest income). */
export interface LoanAccrual {
  loanId: string;
  branchId: string;
  amount: Money;
  accruedInterestAccount: string;
  interestIncomeAccount: string;
}

/** One entry: the loans of a branch booked to the same pair of accounts, their sum in two lines. */
export interface AccrualPosting {
  branchId: string;
  amount: Money;
  lines: JournalLine[];
  loans: LoanAccrual[];
}

/**
 * The entries of a set of accruals, one per branch and pair of accounts (aggregated: a month end of thousands of
 * loans posts a handful of entries; the per-loan detail stays in loan_interest_accruals). `accrue` debits the
 * accrued interest and credits income; `reverse` posts the opposite. Loans with nothing to book are left out.
 */
export function accrualPostings(accruals: readonly LoanAccrual[], direction: 'accrue' | 'reverse'): AccrualPosting[] {
  const groups = new Map<string, LoanAccrual[]>();
  for (const accrual of accruals) {
    if (accrual.amount.isZero()) continue;
    const key = `${accrual.branchId} ${accrual.accruedInterestAccount} ${accrual.interestIncomeAccount}`;
    groups.set(key, [...(groups.get(key) ?? []), accrual]);
  }
  return [...groups.values()].map((loans) => {
    const { branchId, accruedInterestAccount, interestIncomeAccount } = loans[0]!;
    const amount = loans.reduce((sum, loan) => sum.plus(loan.amount), zero);
    const [debit, credit] = direction === 'accrue' ? [accruedInterestAccount, interestIncomeAccount] : [interestIncomeAccount, accruedInterestAccount];
    return { branchId, amount, loans, lines: [{ account: debit, debit: amount, credit: zero }, { account: credit, debit: zero, credit: amount }] };
  });
}
