import type { GuaranteeKind } from './provisioning';

/**
 * Where the PCEMF (2010 chart, accounts 333/334/335 and 391/392/393; docs/domain.md §2, §4) keeps a doubtful
 * loan's principal and its provision. Pure.
 *
 * The chart separates doubtful loans by their cover: guaranteed by the State (3332), covered by real guarantees,
 * sûretés réelles (3342), the others (3352); and their provisions by cover and, for the last two, by how long the
 * loan has been doubtful: 39100 (State); 3921 / 3922 / 3923 / 3924 (real: under a year, 1–2, 2–3, over 3 years);
 * 3931 / 3932 / 3933 (others: under a year, 1–2, over 2 years). An overdue loan provisioned by the optional ladder
 * (R-2017/07 Art. 17-1) is not doubtful: its provision stays in 3931, the account of the uncovered loans.
 */
export type CoverClass = 'state' | 'real' | 'other';

/**
 * The cover class of a loan from the kinds of its guarantees that count (confirmed, in force at the date): the
 * State's guarantee first, then a sûreté réelle (a mortgage, a deposit pledged at the institution); a bank's
 * guarantee or a personal guarantor is a sûreté personnelle and leaves the loan among the others.
 */
export function coverClassOf(kinds: readonly GuaranteeKind[]): CoverClass {
  if (kinds.includes('public_guarantee')) return 'state';
  return kinds.includes('mortgage') || kinds.includes('pledged_deposit') ? 'real' : 'other';
}

const doubtfulByCover: Readonly<Record<CoverClass, string>> = { state: '3332', real: '3342', other: '3352' };

/** The account of a doubtful loan's principal. */
export const doubtfulAccountOf = (cover: CoverClass): string => doubtfulByCover[cover];

/** By cover, the provision accounts by whole years doubtful: the last one holds every later year. */
const provisionsByCover: Readonly<Record<CoverClass, readonly string[]>> = {
  state: ['39100'],
  real: ['3921', '3922', '3923', '3924'],
  other: ['3931', '3932', '3933'],
};

/** The account of a doubtful loan's provision, from its cover and the whole years it has been doubtful (yearsSince). */
export function provisionAccountOf(cover: CoverClass, yearsDoubtful: number): string {
  if (!Number.isSafeInteger(yearsDoubtful) || yearsDoubtful < 0)
    throw new Error(`yearsDoubtful must be an integer ≥ 0, got ${yearsDoubtful}`);
  const accounts = provisionsByCover[cover];
  return accounts[Math.min(yearsDoubtful, accounts.length - 1)]!;
}

/**
 * The provision of a loan that is not doubtful (overdue, on the optional ladder): with the uncovered loans under a
 * year.
 */
export const notDoubtfulProvisionAccount = provisionsByCover.other[0]!;

/**
 * Every account that may hold a doubtful loan's principal, and every one that may hold a provision: what the ledger
 * agreement adds up.
 */
export const doubtfulAccounts: readonly string[] = Object.values(doubtfulByCover);
export const provisionAccounts: readonly string[] = Object.values(provisionsByCover).flat();
