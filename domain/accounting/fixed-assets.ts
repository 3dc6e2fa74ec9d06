import type { JournalLine } from '../events/journal';
import { Money } from '../money';

/**
 * Fixed assets (docs/domain.md §12.4): which PCEMF accounts each role may be, and the lines of a disposal. Pure.
 */

/**
 * A category's accounts: the asset (class 2), its accumulated depreciation (28), the charge (68), and on disposal the
 * net book value written off (676) and the price (775).
 */
export interface CategoryAccounts {
  asset: string;
  depreciation: string;
  charge: string;
  disposalValue: string;
  disposalProceeds: string;
}

/**
 * The class each account of a category, an acquisition's funding and a disposal's proceeds must be in: a code prefix
 * and what it means.
 */
const accountClasses = {
  asset: {
    test: (code: string) => code.startsWith('2') && !code.startsWith('28') && !code.startsWith('29'),
    rule: 'a class 2 asset account (not 28 or 29)',
  },
  depreciation: { test: (code: string) => code.startsWith('28'), rule: 'an accumulated depreciation account (28)' },
  charge: { test: (code: string) => code.startsWith('68'), rule: 'a depreciation charge account (68)' },
  disposalValue: {
    test: (code: string) => code.startsWith('6'),
    rule: 'a class 6 account (676, net book value of assets sold)',
  },
  disposalProceeds: {
    test: (code: string) => code.startsWith('7'),
    rule: 'a class 7 account (775, price of assets sold)',
  },
  // Paid in cash or from a bank (class 5), or bought on credit from a supplier (40).
  funding: {
    test: (code: string) => code.startsWith('5') || code.startsWith('40'),
    rule: 'a treasury account (class 5) or a supplier account (40)',
  },
  // Received in cash or at a bank (class 5), or owed by the buyer (466, créances sur cession d'immobilisations).
  proceeds: {
    test: (code: string) => code.startsWith('5') || code.startsWith('46'),
    rule: 'a treasury account (class 5) or a receivable on the sale (46)',
  },
} as const;

export type AccountRole = keyof typeof accountClasses;

/** The fields whose account is not of its role's class, each with the rule it breaks. */
export function misclassifiedAccounts(
  accounts: readonly { field: string; role: AccountRole; code: string }[],
): { field: string; message: string }[] {
  return accounts
    .filter(({ role, code }) => !accountClasses[role].test(code))
    .map(({ field, role }) => ({ field, message: `${field} must be ${accountClasses[role].rule}` }));
}

export interface Disposal {
  cost: Money;
  /** Depreciation booked up to the day before the disposal. */
  accumulated: Money;
  proceeds: Money;
  proceedsAccount: string;
}

const zero = new Money(0);
const debit = (account: string, amount: Money): JournalLine => ({ account, debit: amount, credit: zero });
const credit = (account: string, amount: Money): JournalLine => ({ account, debit: zero, credit: amount });

/**
 * The entry of a disposal, the PCEMF's gross presentation: the asset leaves at cost (credit class 2) with its
 * accumulated depreciation (debit 28), the net book value is a charge (676), the price an income (775). The gain or
 * loss is their difference, `gain` (negative: a loss).
 */
export function disposalEntry(
  disposal: Disposal,
  accounts: CategoryAccounts,
): { lines: JournalLine[]; netBookValue: Money; gain: Money } {
  const netBookValue = disposal.cost.minus(disposal.accumulated);
  const lines = [
    ...(disposal.accumulated.gt(0) ? [debit(accounts.depreciation, disposal.accumulated)] : []),
    ...(netBookValue.gt(0) ? [debit(accounts.disposalValue, netBookValue)] : []),
    ...(disposal.proceeds.gt(0)
      ? [debit(disposal.proceedsAccount, disposal.proceeds), credit(accounts.disposalProceeds, disposal.proceeds)]
      : []),
    credit(accounts.asset, disposal.cost),
  ];
  return { lines, netBookValue, gain: disposal.proceeds.minus(netBookValue) };
}
