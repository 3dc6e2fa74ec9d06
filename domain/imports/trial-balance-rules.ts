import type { CellProblem } from './cells';

/**
 * The rules of a trial-balance row beyond its cells' formats (docs/domain.md §15.1), given what the activity looked
 * up. Pure. A line is one side: a debit or a credit balance, never both.
 */

type Row = Readonly<Record<string, string>>;

export interface TrialBalanceLookups {
  /** The branch codes of the enterprise, and those the import's branches-users file creates. */
  branchCodes: ReadonlySet<string>;
  /** The postable accounts of the enterprise's chart (leaves, active). */
  postable: ReadonlySet<string>;
  /**
   * Whether the cut-over opens an accounting year: its income and expenses were closed into the result, so a
   * class 6 or 7 balance is refused; cut over within a year, they are the year's result so far and come in.
   */
  yearStart: boolean;
}

const isPositive = (cell: string | undefined) =>
  /^\d+/.test(cell ?? '') && /[1-9]/.test((cell ?? '').replace(/\.\d*$/, ''));

export function trialBalanceProblems(row: Row, lookups: TrialBalanceLookups): CellProblem[] {
  const problems: CellProblem[] = [];
  const branch = row.branch_code ?? '';
  const account = row.account_code ?? '';
  if (branch !== '' && !lookups.branchCodes.has(branch))
    problems.push({
      column: 'branch_code',
      value: branch,
      problem: 'neither a branch of the enterprise nor in the branches-users file',
    });
  if (account !== '' && !lookups.postable.has(account))
    problems.push({
      column: 'account_code',
      value: account,
      problem: "not a postable account of the enterprise's chart (an active account without sub-accounts)",
    });
  if (lookups.yearStart && /^[67]/.test(account))
    problems.push({
      column: 'account_code',
      value: account,
      problem: "an income or expense account at a year's start: close it into the result first",
    });
  if (isPositive(row.debit) && isPositive(row.credit))
    problems.push({
      column: 'credit',
      value: row.credit!,
      problem: 'a debit and a credit on one line: give the balance on one side',
    });
  return problems;
}
