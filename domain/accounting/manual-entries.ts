import type { JournalCode } from '../events/journal';
import { formatAmount, Money } from '../money';
import { refusal, type Refusal } from '../refusal';

/**
 * Manual journal entries (opérations diverses, docs/domain.md §12.1): the rules a draft's lines follow, whoever
 * drafts them, checked when it is saved and again when it is posted. Pure.
 */

/** The journals a person may write in: not those of the automatic postings (CLO, AFF, INT, PRV, DAT). */
export const manualJournals = ['OD', 'CAI', 'BQ', 'AN'] as const satisfies readonly JournalCode[];
export type ManualJournal = (typeof manualJournals)[number];

export type ManualEntryStatus = 'draft' | 'submitted' | 'posted' | 'rejected' | 'cancelled';
/** What an accountant may still change (and submit): a draft, or one a checker sent back. */
export const editableStatuses: readonly ManualEntryStatus[] = ['draft', 'rejected'];

export interface DraftLine {
  account: string;
  branchId: string;
  debit: Money;
  credit: Money;
  label: string | null;
}

const lineField = (index: number, field: string) => `lines[${index}].${field}`;
const onLine = (found: Refusal, index: number, field: string): Refusal => ({
  ...found,
  field: lineField(index, field),
});

const isOffBalance = (account: string) => account.startsWith('9');

/**
 * Off-balance accounts (class 9) balance among themselves: a draft is all class 9 or none of it. The refusal
 * names the first line whose side differs from the first line's.
 */
export function classMixRefusal(lines: readonly DraftLine[]): Refusal | null {
  if (lines.length === 0) return null;
  const offBalance = isOffBalance(lines[0]!.account);
  const index = lines.findIndex((line) => isOffBalance(line.account) !== offBalance);
  if (index < 0) return null;
  return onLine(
    refusal(
      'off_balance_mixed',
      'Off-balance accounts (class 9) balance within class 9: post them in an entry of their own.',
    ),
    index,
    'account',
  );
}

/**
 * What a draft must be to be submitted or posted: two lines at least, debits equal to credits in total and
 * within each branch (each branch's part is one journal entry, which the database refuses unbalanced).
 */
export function balanceRefusal(lines: readonly DraftLine[]): Refusal | null {
  if (lines.length < 2)
    return { ...refusal('manual_entry_unbalanced', 'An entry needs two lines at least.'), field: 'lines' };
  const byBranch = new Map<string, Money>();
  for (const line of lines)
    byBranch.set(line.branchId, (byBranch.get(line.branchId) ?? new Money(0)).plus(line.debit).minus(line.credit));
  const total = [...byBranch.values()].reduce((sum, net) => sum.plus(net), new Money(0));
  if (!total.isZero())
    return {
      ...refusal('manual_entry_unbalanced', `Debits and credits differ by ${formatAmount(total.abs())}.`),
      field: 'lines',
    };
  const branch = [...byBranch].find(([, net]) => !net.isZero());
  if (branch === undefined) return null;
  const index = lines.findIndex((line) => line.branchId === branch[0]);
  return onLine(
    refusal(
      'manual_entry_unbalanced',
      `The lines of a branch must balance (liaison accounts between branches): ` +
        `this branch is off by ${formatAmount(branch[1].abs())}.`,
    ),
    index,
    'branch',
  );
}

/** The lines grouped by branch, in the order of their first line: one journal entry each. */
export function linesByBranch<L extends Pick<DraftLine, 'branchId'>>(lines: readonly L[]): Map<string, L[]> {
  const groups = new Map<string, L[]>();
  for (const line of lines) groups.set(line.branchId, [...(groups.get(line.branchId) ?? []), line]);
  return groups;
}

/** A correction is a reversing entry: each line on the other side. */
export const reversedLines = (lines: readonly DraftLine[]): DraftLine[] =>
  lines.map((line) => ({ ...line, debit: line.credit, credit: line.debit }));

/** The label of the lines an opening entry adds to balance each branch. */
const suspenseLabel = "Écart d'ouverture à justifier par l'import";

/**
 * An opening entry from a trial balance (docs/domain.md §12.1): the balances as given, and for each branch whose
 * balances do not net to zero one line on the suspense account for the difference, "to be justified by the
 * import" of the subledgers (member deposits, loans, capital), which the opening entry may not touch.
 */
export function openingLines(balances: readonly DraftLine[], suspenseAccount: string): DraftLine[] {
  const zero = new Money(0);
  const suspense = [...linesByBranch(balances)].flatMap(([branchId, lines]) => {
    const net = lines.reduce((sum, line) => sum.plus(line.debit).minus(line.credit), zero);
    if (net.isZero()) return [];
    return [
      {
        account: suspenseAccount,
        branchId,
        debit: net.isNegative() ? net.negated() : zero,
        credit: net.isPositive() ? net : zero,
        label: suspenseLabel,
      },
    ];
  });
  return [...balances, ...suspense];
}
