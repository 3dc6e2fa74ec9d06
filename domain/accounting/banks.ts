import { AppError } from '../errors';
import type { JournalLine } from '../events/journal';
import { Money } from '../money';

/**
 * Banks and correspondents (issue 28, docs/domain.md §12.6). Pure rules: under which accounts of the chart a bank
 * account is opened, its code, and what a treasury transfer moves.
 */

/**
 * The PCEMF's leaves of 560 « Comptes à vue nostri » (the cooperative's demand accounts at its correspondents):
 * a bank account is a sub-account of one of them. 5609 (EMF) is not a leaf: its leaves 56090 and 56099 are.
 */
export const bankParentAccounts = [
  '5600',
  '5601',
  '5602',
  '5603',
  '5604',
  '5605',
  '5606',
  '5607',
  '5608',
  '56090',
  '56099',
] as const;

/** Most cooperatives bank with commercial banks outside their network: 5603, banques non associées. */
export const defaultBankParentAccount = '5603';

export const isBankParentAccount = (code: string): boolean => (bankParentAccounts as readonly string[]).includes(code);

/** Three digits after the parent, as any sub-account of the chart (001 to 999). */
const subAccountNumberMax = 999;

/**
 * The next free sub-account of `parent` (`5603001`, `5603002`…), after the highest taken, or null once the 999
 * are taken. Codes of another length under the parent are not numbered so and are skipped.
 */
export function nextSubAccountCode(parent: string, taken: readonly string[]): string | null {
  const numbers = taken
    .filter((code) => code.startsWith(parent) && code.length === parent.length + 3)
    .map((code) => Number(code.slice(parent.length)));
  const next = numbers.reduce((max, number) => Math.max(max, number), 0) + 1;
  return next > subAccountNumberMax ? null : `${parent}${String(next).padStart(3, '0')}`;
}

/** 5710 Caisse FCFA: the till, one side of a transfer when the request names no bank account. */
export const cashAccount = '5710';

/** One side of a treasury transfer: a bank account (its treasury account) or, null, the till. */
export interface TransferSide {
  bankAccountId: string | null;
  account: string;
}

/**
 * A transfer moves money between two different treasury accounts: the till and a bank, or two banks. The same
 * side twice (null: the till) is refused naming `to_bank_account`; each bank account has its own chart account.
 */
export function assertTransferSides(fromBankAccountId: string | null, toBankAccountId: string | null): void {
  if (fromBankAccountId === toBankAccountId) {
    throw new AppError(
      'unprocessable',
      'treasury_transfer_same_account',
      "The transfer's two sides are the same account.",
      [{ field: 'to_bank_account', message: 'to_bank_account must differ from from_bank_account' }],
    );
  }
}

/** Debit the account the money goes to, credit the one it leaves. */
export const transferEntryLines = (from: TransferSide, to: TransferSide, amount: Money): JournalLine[] => [
  { account: to.account, debit: amount, credit: new Money(0) },
  { account: from.account, debit: new Money(0), credit: amount },
];
