import type { JournalLine } from '../events/journal';
import type { Money } from '../money';
import { cashMove } from './till-transfers';
import { vaultAccount } from './tills';

/**
 * The settlement of a cash difference (issue 29, docs/domain.md §13.2): what closes 4631 (a shortage) or 4632 (an
 * excess) once the branch head has decided, under four eyes. Pure.
 */

export type DifferenceKind = 'shortage' | 'excess';
export type SettlementMode = 'recovered' | 'written_off' | 'returned';

export const settlementModes: readonly SettlementMode[] = ['recovered', 'written_off', 'returned'];

const shortageAccount = '4631';
const excessAccount = '4632';

/**
 * 6798 "Autres pertes exceptionnelles" (PCEMF class 6): a shortage written off, unless the request names another
 * expense.
 */
export const defaultShortageExpense = '6798';
/** 7786 "Excédents de caisse": an excess written off. */
const excessIncome = '7786';

/**
 * The modes each kind allows: a shortage is recovered from the cashier or written off; an excess written off or
 * returned.
 */
export const modeAllowed = (kind: DifferenceKind, mode: SettlementMode): boolean =>
  kind === 'shortage' ? mode !== 'returned' : mode !== 'recovered';

/** What a difference entry's lines say: a debit of 4631 is a shortage, a credit of 4632 an excess; null: neither. */
export function differenceOf(
  lines: readonly { account: string; debit: Money; credit: Money }[],
): { kind: DifferenceKind; amount: Money } | null {
  const shortage = lines.find((line) => line.account === shortageAccount && line.debit.gt(0));
  if (shortage !== undefined) return { kind: 'shortage', amount: shortage.debit };
  const excess = lines.find((line) => line.account === excessAccount && line.credit.gt(0));
  return excess === undefined ? null : { kind: 'excess', amount: excess.credit };
}

/**
 * The account on the other side of 4631 or 4632: the vault for cash handed in or paid back, else the expense or 7786.
 */
export function settlementAccount(kind: DifferenceKind, mode: SettlementMode, expenseAccount: string | null): string {
  if (mode === 'recovered' || mode === 'returned') return vaultAccount;
  return kind === 'shortage' ? (expenseAccount ?? defaultShortageExpense) : excessIncome;
}

/**
 * A shortage: debit the vault (cash handed in by the cashier) or the expense, credit 4631. An excess: debit 4632,
 * credit 7786 or the vault (the cash paid back to whom it belongs).
 */
export function settlementLines(kind: DifferenceKind, account: string, amount: Money): JournalLine[] {
  return kind === 'shortage' ? cashMove(shortageAccount, account, amount) : cashMove(account, excessAccount, amount);
}
