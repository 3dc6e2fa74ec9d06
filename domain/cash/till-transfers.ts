import type { JournalLine } from '../events/journal';
import { Money } from '../money';
import { vaultAccount } from './tills';

/**
 * Cash between a branch's vault and one of its tills (issue 29, docs/domain.md §13.2): an approvisionnement
 * (`to_till`, vault → till) or a dégagement (`to_vault`, till → vault). The giver requests, the receiver confirms
 * with a count; meanwhile the cash is in transit on 459. Pure rules; the activity posts and records.
 */

export type TillTransferKind = 'to_till' | 'to_vault';

export const tillTransferKinds: readonly TillTransferKind[] = ['to_till', 'to_vault'];

/** 459 "Mouvements de fonds et autres virements internes" (PCEMF): cash handed over and not yet counted in. */
export const transitAccount = '459';

/** The giver's and the receiver's accounts of a transfer: the vault's 5710 on one side, the till's own on the other. */
export function transferSides(kind: TillTransferKind, tillAccount: string): { giver: string; receiver: string } {
  return kind === 'to_till'
    ? { giver: vaultAccount, receiver: tillAccount }
    : { giver: tillAccount, receiver: vaultAccount };
}

/** Cash moved from one account to another: debit the one it enters, credit the one it leaves. */
export const cashMove = (from: string, to: string, amount: Money): JournalLine[] => [
  { account: to, debit: amount, credit: new Money(0) },
  { account: from, debit: new Money(0), credit: amount },
];

/** A till holding more than its cash limit is told to hand cash to the vault (a dégagement); no limit, never over. */
export const overCashLimit = (balance: string, cashLimit: string | null): boolean =>
  cashLimit !== null && new Money(balance).gt(cashLimit);
