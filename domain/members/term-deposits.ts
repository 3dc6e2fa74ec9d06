import { parseIsoDate, type IsoDate } from '../calendar';
import { Money } from '../money';

/**
 * Term deposits (DAT, docs/domain.md §9): what a product does at maturity, the length of an account's term, and the
 * settlement of a closure before maturity. Pure: the dates, figures and rates come in as arguments.
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

/**
 * What the closed term earns at the penalty rate (gross, to the franc) and what it was paid already at the contract
 * rate.
 */
export interface EarlyClosureFacts {
  grossDue: Money;
  withholdingTaxRate: Money;
  grossPaid: Money;
  taxPaid: Money;
}

/**
 * The settlement of an early closure: the tax on the interest due is its withholding rate, rounded half up as any
 * posting's; the interest already paid beyond what is due is taken back (`interestDelta` negative: the expense
 * reduced) and the tax withheld on it given back (`taxDelta` negative), or what is due beyond it is paid (positive).
 * The member's account moves by the net difference, `memberDelta` = interestDelta − taxDelta, recovered from the
 * principal when negative.
 */
export function earlyClosureSettlement(facts: EarlyClosureFacts): {
  taxDue: Money;
  interestDelta: Money;
  taxDelta: Money;
  memberDelta: Money;
} {
  const taxDue = facts.grossDue.times(facts.withholdingTaxRate).toDecimalPlaces(0, Money.ROUND_HALF_UP);
  const interestDelta = facts.grossDue.minus(facts.grossPaid);
  const taxDelta = taxDue.minus(facts.taxPaid);
  return { taxDue, interestDelta, taxDelta, memberDelta: interestDelta.minus(taxDelta) };
}
