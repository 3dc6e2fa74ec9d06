import type { JournalLine } from '../events/journal';
import { Money } from '../money';

/**
 * The cash count of a till (billetage, issue 29, docs/domain.md §13.1): how many of each XAF note and coin the
 * cashier counts, and what they add up to. Pure rules; the till sessions compare the total with the books.
 */

/** XAF notes and coins in circulation (BEAC). A 500 exists as both a note and a coin: each is counted apart. */
export const denominations = {
  note_10000: 10_000,
  note_5000: 5_000,
  note_2000: 2_000,
  note_1000: 1_000,
  note_500: 500,
  coin_500: 500,
  coin_100: 100,
  coin_50: 50,
  coin_25: 25,
  coin_10: 10,
  coin_5: 5,
  coin_2: 2,
  coin_1: 1,
} as const;

export type Denomination = keyof typeof denominations;

/** How many pieces of each denomination; a denomination left out counts none. */
export type CashCount = Partial<Record<Denomination, number>>;

export const denominationNames = Object.keys(denominations) as Denomination[];

/** The value of a count: the sum of each denomination's face value times its pieces, in Money. */
export function countTotal(count: CashCount): Money {
  return denominationNames.reduce(
    (total, name) => total.plus(new Money(denominations[name]).times(count[name] ?? 0)),
    new Money(0),
  );
}

/** The count with every denomination named, zeros included: what a session keeps and answers. */
export const fullCount = (count: CashCount): Record<Denomination, number> =>
  Object.fromEntries(denominationNames.map((name) => [name, count[name] ?? 0])) as Record<Denomination, number>;

/** 4631 Erreurs (manquants) and 4632 Erreurs (excédents), the PCEMF's accounts of a till's differences. */
const shortageAccount = '4631';
const excessAccount = '4632';

/**
 * What a count leaves to post against the till's book balance: counted less book, negative for a shortage.
 * A shortage debits 4631 and credits the till, an excess debits the till and credits 4632, so that the till's
 * book balance becomes what was counted. No lines when they agree.
 */
export function differenceLines(tillAccount: string, difference: Money): JournalLine[] {
  if (difference.isZero()) return [];
  const amount = difference.abs();
  const zero = new Money(0);
  return difference.isNegative()
    ? [
        { account: shortageAccount, debit: amount, credit: zero },
        { account: tillAccount, debit: zero, credit: amount },
      ]
    : [
        { account: tillAccount, debit: amount, credit: zero },
        { account: excessAccount, debit: zero, credit: amount },
      ];
}
