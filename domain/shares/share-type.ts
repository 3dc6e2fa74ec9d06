import type { FieldError } from '../errors';
import { Money } from '../money';

/**
 * Share types (the seed): 001 Founder, 002 Ordinary, 003 Honorary, at most one of each per enterprise. The
 * legal bounds every type keeps (OHADA AUSCOOP): at least a quarter of a share paid at subscription and the
 * rest within three years (Art. 270 for founders, Art. 384 for later subscriptions), and founder shares not
 * withdrawable before five years of seniority (the seed).
 */
export const shareTypeCodes = ['001', '002', '003'] as const;
export type ShareTypeCode = (typeof shareTypeCodes)[number];

export const founderCode: ShareTypeCode = '001';
const founderSeniorityYearsMin = 5;
const minimumInitialPaymentRateFloor = new Money('0.25');
const paymentPeriodMonthsMax = 36;

/** What the rules of subscription, payment and withdrawal read of a type. */
export interface ShareTypeTerms {
  code: ShareTypeCode;
  nominalValue: Money;
  minShares: number;
  maxShares: number;
  seniorityYears: number;
  partialPaymentAllowed: boolean;
  /** Share of the amount paid at subscription when partial payment is allowed (0.25 to 1). */
  minimumInitialPaymentRate: Money;
  /** Months after the subscription by which the rest is paid, when partial payment is allowed. */
  paymentPeriodMonths: number;
}

export const isShareTypeCode = (code: string): code is ShareTypeCode =>
  (shareTypeCodes as readonly string[]).includes(code);

/** Every rule a type breaks, each naming its field; empty when the type is sound. */
export function shareTypeProblems(terms: ShareTypeTerms): FieldError[] {
  const problems: FieldError[] = [];
  if (terms.minShares > terms.maxShares)
    problems.push({ field: 'min_shares', message: `min_shares must be at most max_shares (${terms.maxShares})` });
  if (terms.code === founderCode && terms.seniorityYears < founderSeniorityYearsMin) {
    problems.push({
      field: 'seniority_years',
      message: `founder shares need at least ${founderSeniorityYearsMin} years of seniority before withdrawal`,
    });
  }
  if (terms.minimumInitialPaymentRate.lt(minimumInitialPaymentRateFloor) || terms.minimumInitialPaymentRate.gt(1)) {
    problems.push({
      field: 'minimum_initial_payment_rate',
      message: 'minimum_initial_payment_rate must be from 0.25 to 1 (AUSCOOP: at least a quarter at subscription)',
    });
  }
  if (terms.paymentPeriodMonths < 1 || terms.paymentPeriodMonths > paymentPeriodMonthsMax) {
    problems.push({
      field: 'payment_period_months',
      message:
        `payment_period_months must be from 1 to ${paymentPeriodMonthsMax} (AUSCOOP: ` + `the rest within three years)`,
    });
  }
  return problems;
}

/**
 * One member, one vote, whatever the shares held (AUSCOOP Art. 378), and only members up to date with their
 * payments vote (Art. 384): a vote for a member holding voting shares with no payment overdue.
 */
export const votesOf = (member: { holdsVotingShares: boolean; paymentOverdue: boolean }): 0 | 1 =>
  member.holdsVotingShares && !member.paymentOverdue ? 1 : 0;
