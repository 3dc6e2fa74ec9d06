import Decimal from 'decimal.js';

/**
 * Money is a Decimal of this configured clone, never a JS number. A clone of its own (not the global
 * Decimal.set) so its settings hold in every context, the workflow sandbox included.
 */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });
export type Money = Decimal;

/** XAF has no minor unit: amounts are whole francs. */
const amountScale = 0;
/** Above any single operation of a cooperative (10^15 XAF); refuses absurd input before it reaches a sum. */
export const amountMax = new Money('999999999999999');

/** A positive amount in whole francs, as JSON carries it: "150000". Returns undefined when not one. */
export function parseAmount(text: string): Money | undefined {
  if (!/^\d{1,15}$/.test(text)) return undefined;
  const amount = new Money(text);
  return amount.isZero() || amount.gt(amountMax) ? undefined : amount;
}

/**
 * Whole francs as text (plain digits, never an exponent), rounded as the caller names it: how an amount loses
 * its fraction is a decision of each rule, not a default of the Decimal configuration.
 */
export const toFrancs = (amount: Money, rounding: Decimal.Rounding): string => amount.toFixed(0, rounding);

/** The JSON form: plain digits, never an exponent. */
export function formatAmount(amount: Money): string {
  return amount.toFixed(amountScale);
}
