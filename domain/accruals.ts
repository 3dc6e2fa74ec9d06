import type { JournalLine } from './events/journal';
import { Money } from './money';

/**
 * Accruals at a month end (docs/domain.md §8, §9): what a subject (a loan, a member's account) has earned or owes
 * and has not fallen due, booked on the period's last day and reversed on the next period's first, when the real
 * interest takes over. Loans accrue income receivable, savings accrue interest payable; both post the same way.
 */
export interface Accrual {
  /** The loan or member account the amount is about. */
  subjectId: string;
  branchId: string;
  amount: Money;
  /** The accounts the accrual debits and credits (a reversal posts the opposite). */
  debitAccount: string;
  creditAccount: string;
}

/** One entry: the accruals of a branch booked to the same pair of accounts, their sum in two lines. */
export interface AccrualPosting<T extends Accrual> {
  branchId: string;
  amount: Money;
  lines: JournalLine[];
  accruals: T[];
}

const zero = new Money(0);

/**
 * The entries of a set of accruals, one per branch and pair of accounts (aggregated: a month end of thousands of
 * subjects posts a handful of entries; the detail stays in the accrual tables). `accrue` posts each accrual's
 * debit and credit; `reverse` the opposite. Subjects with nothing to book are left out.
 */
export function accrualPostings<T extends Accrual>(
  accruals: readonly T[],
  direction: 'accrue' | 'reverse',
): AccrualPosting<T>[] {
  const groups = new Map<string, T[]>();
  for (const accrual of accruals) {
    if (accrual.amount.isZero()) continue;
    const key = `${accrual.branchId} ${accrual.debitAccount} ${accrual.creditAccount}`;
    groups.set(key, [...(groups.get(key) ?? []), accrual]);
  }
  return [...groups.values()].map((grouped) => {
    const { branchId, debitAccount, creditAccount } = grouped[0]!;
    const amount = grouped.reduce((sum, accrual) => sum.plus(accrual.amount), zero);
    const [debit, credit] = direction === 'accrue' ? [debitAccount, creditAccount] : [creditAccount, debitAccount];
    return {
      branchId,
      amount,
      accruals: grouped,
      lines: [
        { account: debit, debit: amount, credit: zero },
        { account: credit, debit: zero, credit: amount },
      ],
    };
  });
}
