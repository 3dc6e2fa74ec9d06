import { daysBetween, type IsoDate } from '../calendar';
import { Money } from '../money';
import { ladderStepOf, type LadderStep } from '../provisioning-ladder';
import type { LoanClass } from './classification';

/**
 * Provisions on a loan (docs/domain.md §4, COBAC R-2017/07 Arts. 16-18). Pure.
 *
 * Guarantees never change the class; they split the outstanding principal:
 * - cash covered (a deposit pledged at the institution: the part of its hold the account still backs): never
 *   provisioned;
 * - eligible covered (mortgage, bank or public guarantee): on a doubtful loan, the regulatory minimum of 25 % / 50 % /
 *   75 % / 100 % at the end of years 1 to 4 after the downgrade;
 * - uncovered (the rest, personal guarantors included): max(ladder rate by age, regulatory minimum), the minimum being
 *   100 % once a doubtful loan has been so for a year, and at once for a litigious loan (its provision is due at the
 *   next annual closing at the latest, Arts. 17 and 22; the product books it at the first run: the ladder, which reads
 *   arrears, would give nothing to a litigious loan paid up to date). Covers are applied cash first, each capped at
 *   what remains, so covered parts never exceed the principal.
 */
export type GuaranteeKind =
  'pledged_deposit' | 'mortgage' | 'equipment_pledge' | 'bank_guarantee' | 'public_guarantee' | 'personal_guarantor';
export const guaranteeKinds: readonly GuaranteeKind[] = [
  'pledged_deposit',
  'mortgage',
  'equipment_pledge',
  'bank_guarantee',
  'public_guarantee',
  'personal_guarantor',
];

/**
 * Which part of the principal a guarantee of this kind covers for provisioning. A pledge of equipment (gage) counts for
 * nothing: whether Art. 18's list of real securities takes it is NOT FOUND, so the product takes the prudent reading.
 */
export function coverOf(kind: GuaranteeKind): 'cash' | 'eligible' | 'none' {
  if (kind === 'pledged_deposit') return 'cash';
  return kind === 'personal_guarantor' || kind === 'equipment_pledge' ? 'none' : 'eligible';
}

export interface ProvisionInput {
  outstanding: Money;
  loanClass: LoanClass;
  /** The borrower's age in days. */
  ageDays: number;
  cashCover: Money;
  eligibleCover: Money;
  /** When the loan became doubtful; null when it is not. */
  doubtfulSince: IsoDate | null;
  /** In litigation (a contentious claim, R-2017/07 Art. 8): doubtful whatever its arrears. */
  litigious?: boolean;
  asOf: IsoDate;
  ladder: readonly LadderStep[];
}

export interface Provision {
  /** The rate applied to the uncovered part. */
  rate: Money;
  /** The uncovered outstanding principal. */
  base: Money;
  /** The whole provision, whole francs. */
  amount: Money;
}

// Rates and constants parsed once: the run assesses every loan every day.
const stepRates = new Map<string, Money>();
const zero = new Money(0);
const one = new Money(1);
const quarter = new Money('0.25');

export function ladderRate(ladder: readonly LadderStep[], ageDays: number): Money {
  const step = ladderStepOf(ladder, ageDays);
  let rate = stepRates.get(step.rate);
  if (rate === undefined) stepRates.set(step.rate, (rate = new Money(step.rate)));
  return rate;
}

/** Whole years from the downgrade to `asOf` (a year ends on the same calendar day). */
export function yearsSince(since: IsoDate, asOf: IsoDate): number {
  if (daysBetween(since, asOf) < 0) throw new Error(`asOf ${asOf} is before the downgrade ${since}`);
  const [fromYear, fromRest] = [Number(since.slice(0, 4)), since.slice(4)];
  const [toYear, toRest] = [Number(asOf.slice(0, 4)), asOf.slice(4)];
  return toYear - fromYear - (toRest < fromRest ? 1 : 0);
}

/** What a cover takes of the principal that remains: all of it at most. */
const coveredPart = (cover: Money, remaining: Money): Money => (cover.isZero() ? zero : Money.min(cover, remaining));
/** `amount` × `rate` to the franc (zero without computing when either is). */
const provisionOf = (amount: Money, rate: Money): Money =>
  rate.isZero() || amount.isZero() ? zero : amount.mul(rate).toDecimalPlaces(0, Money.ROUND_HALF_UP);

/**
 * The share of an eligible cover a doubtful loan provisions after `years` whole years doubtful: 25 % a year, all of it
 * at most (Art. 17-2-b).
 */
const eligibleMinimum = (years: number): Money => Money.min(quarter.mul(years), one);

/**
 * What provisioning may count of a guarantee of `value` at `asOf` (the collateral register, docs/domain.md §14.4), by
 * the rule provisionFor applies: a cash cover all of it; an eligible cover what the regulatory minimum leaves of it on
 * a doubtful loan (all of it on another, which that minimum does not reach); any other kind nothing.
 */
export function countableValue(
  kind: GuaranteeKind,
  value: Money,
  loan: { doubtfulSince: IsoDate | null },
  asOf: IsoDate,
): Money {
  const cover = coverOf(kind);
  if (cover === 'none') return zero;
  if (cover === 'cash' || loan.doubtfulSince === null || loan.doubtfulSince > asOf) return value;
  return value.minus(provisionOf(value, eligibleMinimum(yearsSince(loan.doubtfulSince, asOf))));
}

export function provisionFor(input: ProvisionInput): Provision {
  const doubtful = input.loanClass === 'doubtful';
  if (doubtful !== (input.doubtfulSince !== null)) throw new Error('doubtfulSince is given for doubtful loans only');
  const cash = coveredPart(input.cashCover, input.outstanding);
  const afterCash = cash.isZero() ? input.outstanding : input.outstanding.minus(cash);
  const eligible = coveredPart(input.eligibleCover, afterCash);
  const uncovered = eligible.isZero() ? afterCash : afterCash.minus(eligible);
  const years = doubtful ? yearsSince(input.doubtfulSince!, input.asOf) : 0;
  const ladder = ladderRate(input.ladder, input.ageDays);
  const rate = doubtful && (years >= 1 || input.litigious === true) ? Money.max(ladder, one) : ladder;
  const regulatoryEligible = doubtful ? eligibleMinimum(years) : zero;
  const onUncovered = provisionOf(uncovered, rate);
  const onEligible = provisionOf(eligible, regulatoryEligible);
  return { rate, base: uncovered, amount: onEligible.isZero() ? onUncovered : onUncovered.plus(onEligible) };
}
