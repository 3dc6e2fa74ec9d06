import { addDaysTo, parseIsoDate, type IsoDate } from '../calendar';
import type { JournalLine } from '../events/journal';
import { Money } from '../money';
import { refusal, type Refusal } from '../refusal';

/**
 * The closing of an accounting year (docs/domain.md §7): the result is income (class 7) minus expenses
 * (class 6); the closing entries bring every income and expense account to zero against the result account,
 * 131 for a profit, 132 for a loss (PCEMF); the opening entries (à-nouveaux) of the next year carry the
 * balance-sheet accounts (classes 1 to 5, the result included, which stays in 13 until the general assembly
 * allocates it). Class 8 holds no postings (its balances are computed). Class 9 (off-balance) is carried as the
 * balance-sheet classes are (an engagement does not end with the year), in an entry of its own: the database keeps
 * class 9 apart from the other classes (docs/domain.md §12.2).
 */

const resultAccounts = { profit: '131', loss: '132' } as const;

/** An account's balance (debit minus credit) in one branch (null: entries of the enterprise itself). */
export interface BranchBalance {
  branchId: string | null;
  account: string;
  accountClass: number;
  balance: Money;
}

/** One entry to post: the lines of one branch. */
export interface BranchEntry {
  branchId: string | null;
  lines: JournalLine[];
}

const zero = new Money(0);

/** The line that brings `balance` (debit minus credit) to zero, or moves it, when `carry`, to the same side. */
function lineFor(account: string, balance: Money, carry: boolean): JournalLine {
  const debit = carry === balance.isPositive();
  return { account, debit: debit ? balance.abs() : zero, credit: debit ? zero : balance.abs() };
}

function byBranch(balances: readonly BranchBalance[]): Map<string | null, BranchBalance[]> {
  const groups = new Map<string | null, BranchBalance[]>();
  for (const balance of balances) {
    if (balance.balance.isZero()) continue;
    groups.set(balance.branchId, [...(groups.get(balance.branchId) ?? []), balance]);
  }
  return groups;
}

const isIncomeOrExpense = (accountClass: number) => accountClass === 6 || accountClass === 7;
const isBalanceSheet = (accountClass: number) => accountClass >= 1 && accountClass <= 5;
const isOffBalance = (accountClass: number) => accountClass === 9;

/** Income minus expenses: minus the sum of the balances of classes 6 and 7 (income is a credit balance). */
export function yearResult(balances: readonly BranchBalance[]): Money {
  return balances
    .filter((row) => isIncomeOrExpense(row.accountClass))
    .reduce((sum, row) => sum.minus(row.balance), zero);
}

/**
 * The closing entries, one per branch: each income and expense account of the branch back to zero, the
 * branch's share of the result to the result account of the enterprise's result (a branch with a loss in a
 * profitable year debits 131: the account says what the enterprise's year was). A branch with nothing in
 * classes 6 and 7 gets no entry.
 */
export function closingEntries(balances: readonly BranchBalance[]): {
  result: Money;
  resultAccount: string;
  entries: BranchEntry[];
} {
  const result = yearResult(balances);
  const resultAccount = result.isNegative() ? resultAccounts.loss : resultAccounts.profit;
  const entries: BranchEntry[] = [];
  for (const [branchId, rows] of byBranch(balances.filter((row) => isIncomeOrExpense(row.accountClass)))) {
    const lines = rows.map((row) => lineFor(row.account, row.balance, false));
    const branchResult = yearResult(rows);
    if (!branchResult.isZero()) lines.push(lineFor(resultAccount, branchResult.negated(), true));
    entries.push({ branchId, lines });
  }
  return { result, resultAccount, entries };
}

/**
 * The opening entries (à-nouveaux), one per branch: each balance-sheet account with its closing balance; then,
 * apart, one per branch holding off-balance accounts, each with its balance.
 */
export function openingEntries(balances: readonly BranchBalance[]): BranchEntry[] {
  const carried = (carry: (accountClass: number) => boolean) =>
    [...byBranch(balances.filter((row) => carry(row.accountClass)))].map(([branchId, rows]) => ({
      branchId,
      lines: rows.map((row) => lineFor(row.account, row.balance, true)),
    }));
  return [...carried(isBalanceSheet), ...carried(isOffBalance)];
}

export interface YearFacts {
  code: string;
  startDate: IsoDate;
  endDate: IsoDate;
  status: 'open' | 'closed';
}

export interface ClosingFacts {
  year: YearFacts;
  /** The enterprise's other years. */
  others: readonly YearFacts[];
  /**
   * The months of the year whose month end must be done and is not (domain/enterprise/month-end.ts, monthEndsRequired);
   * none when absent.
   */
  monthEndsNotDone?: readonly string[];
  /**
   * Whether the year's loans were provisioned at its last day: false when the year had loans and no provisioning
   * run completed as of that day (R-2017/07 Art. 22: provisions are booked at the latest at the annual closing).
   */
  provisionedAtEnd?: boolean;
}

/** The year that starts the day after `year` ends, if the enterprise has opened it. */
export const nextYearOf = <Y extends { startDate: IsoDate }>(
  year: { endDate: IsoDate },
  others: readonly Y[],
): Y | undefined => others.find((other) => other.startDate === addDaysTo(parseIsoDate(year.endDate), 1));

/**
 * Why the year cannot be closed now, or null. The next year must be open (the à-nouveaux go there), the
 * previous one closed (else this year has not received its own), every month end the year needs done (its
 * accruals are part of its result), and its loans provisioned as of its last day.
 */
export function closingRefusal({
  year,
  others,
  monthEndsNotDone = [],
  provisionedAtEnd = true,
}: ClosingFacts): Refusal | null {
  if (year.status === 'closed')
    return refusal('exercice_already_closed', `The accounting year ${year.code} is already closed.`);
  const previous = others.find((other) => nextYearOf(other, [year]) !== undefined);
  if (previous?.status === 'open')
    return refusal(
      'previous_exercice_open',
      `The accounting year ${previous.code} before it is still open: close it first.`,
    );
  const next = nextYearOf(year, others);
  if (next?.status !== 'open') {
    return refusal(
      'next_exercice_not_open',
      `The accounting year that follows ${year.code} must be open to receive its opening balances: open it first.`,
    );
  }
  if (monthEndsNotDone.length > 0) {
    return refusal(
      'month_end_not_done',
      `The month end of ${monthEndsNotDone.join(', ')} is not done: run the year's month ends before closing it.`,
    );
  }
  if (!provisionedAtEnd) {
    return refusal(
      'year_end_not_provisioned',
      `No provisioning run has completed as of ${year.endDate}, the year's last day: ` +
        `run it (POST /api/v1/loans/provisions/runs/ with that as_of) before closing.`,
    );
  }
  return null;
}
