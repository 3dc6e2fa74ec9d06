import { Money, toFrancs } from '../money';

/**
 * Credit caps of COBAC R-2017/08 (docs/domain.md §3), checked at submission and at final approval. Pure:
 * the caller supplies the client's outstanding credit and the institution's paid-up share capital. Guards
 * throw plain Errors (programming errors); breaches are data, and `mode` decides whether they block.
 */

export type CreditCapCode = 'cap_share_capital' | 'cap_related_party';
export type CreditCapMode = 'enforce' | 'warn';

/** A client's outstanding credit ≤ 10 % of the paid-up share capital. */
const shareCapitalCapRate = new Money('0.1');
/** Credit to a member of the board, director, manager or employee ≤ 50 000 000 XAF. */
export const relatedPartyCap = new Money('50000000');

export interface CreditCapInput {
  /** The new loan, whole francs, > 0. */
  requested: Money;
  /** The client's credit already outstanding, whole francs, ≥ 0. */
  existingOutstanding: Money;
  /** The institution's paid-up share capital, whole francs, ≥ 0. */
  paidUpCapital: Money;
  /** Member of the board, director, manager or employee. */
  relatedParty: boolean;
  mode: CreditCapMode;
}

export interface CreditCapBreach {
  code: CreditCapCode;
  limit: Money;
  /** existingOutstanding + requested. */
  total: Money;
}

export interface CreditCapResult {
  breaches: CreditCapBreach[];
  /** False only when mode is 'enforce' and there is a breach; in 'warn' mode breaches are reported only. */
  allowed: boolean;
}

/** 10 % of the paid-up capital, rounded down to the franc (the cap never exceeds the regulatory ratio). */
export function shareCapitalLimit(paidUpCapital: Money): Money {
  return paidUpCapital.mul(shareCapitalCapRate).toDecimalPlaces(0, Money.ROUND_DOWN);
}

export function checkCreditCaps(input: CreditCapInput): CreditCapResult {
  assertValidInput(input);
  const breaches = creditCapBreaches(
    input.existingOutstanding.plus(input.requested),
    input.paidUpCapital,
    input.relatedParty,
  );
  return { breaches, allowed: input.mode === 'warn' || breaches.length === 0 };
}

/**
 * The caps a client's total credit exceeds: at lending (checkCreditCaps) and restated at a date by the prudential
 * report.
 */
export function creditCapBreaches(total: Money, paidUpCapital: Money, relatedParty: boolean): CreditCapBreach[] {
  const breaches: CreditCapBreach[] = [];
  const capitalLimit = shareCapitalLimit(paidUpCapital);
  if (total.gt(capitalLimit)) breaches.push({ code: 'cap_share_capital', limit: capitalLimit, total });
  if (relatedParty && total.gt(relatedPartyCap))
    breaches.push({ code: 'cap_related_party', limit: relatedPartyCap, total });
  return breaches;
}

function assertValidInput(input: CreditCapInput): void {
  const wholeFranc = (amount: Money): boolean => amount.isFinite() && amount.isInteger();
  if (!wholeFranc(input.requested) || !input.requested.gt(0))
    throw new Error(`requested must be a positive whole number of francs, got ${input.requested.toString()}`);
  for (const field of ['existingOutstanding', 'paidUpCapital'] as const) {
    const value = input[field];
    if (!wholeFranc(value) || value.isNegative())
      throw new Error(`${field} must be a whole number of francs ≥ 0, got ${value.toString()}`);
  }
  if (input.mode !== 'enforce' && input.mode !== 'warn')
    throw new Error(`mode must be enforce or warn, got ${String(input.mode)}`);
}

/** A breach as stored and shown (amounts as whole-franc strings). */
export interface CreditCapBreachRow {
  code: CreditCapCode;
  limit: string;
  total: string;
}

export const breachRow = (breach: CreditCapBreach): CreditCapBreachRow => ({
  code: breach.code,
  limit: toFrancs(breach.limit, Money.ROUND_HALF_UP),
  total: toFrancs(breach.total, Money.ROUND_HALF_UP),
});
