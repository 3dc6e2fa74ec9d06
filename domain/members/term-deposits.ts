import { parseIsoDate, type IsoDate } from '../calendar';

/**
 * Term deposits (DAT, docs/domain.md §9): what a product does at maturity and the length of an account's term.
 * Pure: the dates come in as arguments.
 */

/**
 * At maturity: the capital and interest paid to the member's demand account (`pay_out`, the default), or the
 * principal renewed for a new term of the same length with the interest paid out (`renew`), or the principal and
 * the interest renewed as the new principal (`renew_with_interest`).
 */
export const maturityInstructions = ['pay_out', 'renew', 'renew_with_interest'] as const;
export type MaturityInstruction = (typeof maturityInstructions)[number];

/**
 * The months of a term from its first day to its maturity: a maturity is its first day plus whole months, clamped
 * to a shorter month's last day (31 January + 1 month = 28 February: one month), so the difference of the months
 * gives the term back.
 */
export function termMonthsBetween(start: IsoDate, maturity: IsoDate): number {
  const from = parseIsoDate(start);
  const to = parseIsoDate(maturity);
  return (to.year - from.year) * 12 + (to.month - from.month);
}
