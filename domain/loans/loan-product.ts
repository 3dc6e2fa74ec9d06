import { daysBetween, type IsoDate } from '../calendar';
import { AppError } from '../errors';
import { Money, toFrancs } from '../money';
import { periodsPerYear, type Frequency, type ScheduleMethod } from './schedule';

/**
 * Loan product rules (docs/domain.md §3). Pure: the activity checks a product with `productTermProblems`
 * before storing it and computes an application's fees and a late installment's penalty with the helpers.
 */

export type TermCategory = 'cta' | 'mlt';

/** Policy: a CTA (court terme) loan's initial term is at most 24 months; beyond, it is MLT. */
export const ctaMaxMonths = 24;

/** The length of a term of `periods` installments, in months (52 weeks = 12 months). */
function termMonths(periods: number, frequency: Frequency): Money {
  return new Money(periods).mul(12).div(periodsPerYear[frequency]);
}

export function termCategoryOf(periods: number, frequency: Frequency): TermCategory {
  return termMonths(periods, frequency).lte(ctaMaxMonths) ? 'cta' : 'mlt';
}

/** The PCEMF accounts a loan product posts to: its portfolio (class 3) and its income (class 7). */
export type LoanAccountField =
  | 'portfolioAccountCode'
  | 'interestIncomeAccountCode'
  | 'feeIncomeAccountCode'
  | 'penaltyIncomeAccountCode'
  | 'accruedInterestAccountCode';

/** docs/domain.md §2: the accounts of each role by term category, for a product that names none. */
const defaultLoanAccounts: Readonly<Record<TermCategory, Record<LoanAccountField, string>>> = {
  cta: {
    portfolioAccountCode: '3221',
    interestIncomeAccountCode: '713',
    feeIncomeAccountCode: '7153',
    penaltyIncomeAccountCode: '719',
    accruedInterestAccountCode: '3291',
  },
  mlt: {
    portfolioAccountCode: '3130',
    interestIncomeAccountCode: '712',
    feeIncomeAccountCode: '7152',
    penaltyIncomeAccountCode: '719',
    accruedInterestAccountCode: '319',
  },
};

/** A new product's accounts: those it names, the category's defaults for the others. */
export function loanProductAccounts(
  category: TermCategory,
  named: Partial<Record<LoanAccountField, string>>,
): Record<LoanAccountField, string> {
  const defaults = defaultLoanAccounts[category];
  return {
    portfolioAccountCode: named.portfolioAccountCode ?? defaults.portfolioAccountCode,
    interestIncomeAccountCode: named.interestIncomeAccountCode ?? defaults.interestIncomeAccountCode,
    feeIncomeAccountCode: named.feeIncomeAccountCode ?? defaults.feeIncomeAccountCode,
    penaltyIncomeAccountCode: named.penaltyIncomeAccountCode ?? defaults.penaltyIncomeAccountCode,
    accruedInterestAccountCode: named.accruedInterestAccountCode ?? defaults.accruedInterestAccountCode,
  };
}

export interface ProductTerms {
  termCategory: TermCategory;
  frequency: Frequency;
  minTermPeriods: number;
  maxTermPeriods: number;
  maxGracePeriods: number;
  minAmount: Money;
  maxAmount: Money;
}

/**
 * What is wrong with a product's bounds, as (field, message) pairs; empty when it is sound. The category
 * must agree with every term the product allows: a CTA product may not allow a term beyond 24 months, an
 * MLT product may not allow one within it.
 */
export function productTermProblems(terms: ProductTerms): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  if (terms.minTermPeriods > terms.maxTermPeriods)
    problems.push({ field: 'min_term_periods', message: 'min_term_periods must not exceed max_term_periods' });
  if (terms.minAmount.gt(terms.maxAmount))
    problems.push({ field: 'min_amount', message: 'min_amount must not exceed max_amount' });
  // Each application's grace must also stay below its own term: checked at submission.
  if (terms.maxGracePeriods >= terms.maxTermPeriods)
    problems.push({
      field: 'max_grace_periods',
      message: 'max_grace_periods must be below max_term_periods (a loan must amortise)',
    });
  if (terms.termCategory === 'cta' && termCategoryOf(terms.maxTermPeriods, terms.frequency) !== 'cta') {
    problems.push({
      field: 'max_term_periods',
      message: `a CTA product allows terms of at most ${ctaMaxMonths} months`,
    });
  }
  if (terms.termCategory === 'mlt' && termCategoryOf(terms.minTermPeriods, terms.frequency) !== 'mlt') {
    problems.push({
      field: 'min_term_periods',
      message: `an MLT product allows terms of more than ${ctaMaxMonths} months only`,
    });
  }
  return problems;
}

/** Fees withheld at disbursement: rate × principal + fixed amount, half-up to the franc. */
export function loanFees(principal: Money, feeRate: Money, feeFixed: Money): Money {
  return principal.mul(feeRate).plus(feeFixed).toDecimalPlaces(0, Money.ROUND_HALF_UP);
}

/** Credit insurance (docs/domain.md §14.6): its premium withheld at disbursement, or spread over the installments. */
export const insuranceCollections = ['withheld', 'spread'] as const;
export type InsuranceCollection = (typeof insuranceCollections)[number];

/** A loan's credit insurance: the premium owed to the insurer (whole francs) and how the borrower pays it. */
export interface LoanInsurance {
  premium: Money;
  collection: InsuranceCollection;
}

/** A stored product as the rules below read it: amounts and rates as decimal text. */
export interface LoanProductRules {
  code: string;
  method: ScheduleMethod;
  frequency: Frequency;
  annualRate: string;
  minAmount: string;
  maxAmount: string;
  minTermPeriods: number;
  maxTermPeriods: number;
  maxGracePeriods: number;
  feeRate: string;
  feeFixed: string;
  /** Credit insurance; a product without these carries none. */
  insuranceRate?: string;
  insuranceFixed?: string;
  insuranceCollection?: InsuranceCollection;
}

/** The insurance a product puts on a principal. */
export function productInsurance(product: LoanProductRules, principal: Money): LoanInsurance {
  return {
    // Rate × principal + fixed amount, half-up to the franc, as the fees are.
    premium: loanFees(principal, new Money(product.insuranceRate ?? 0), new Money(product.insuranceFixed ?? 0)),
    collection: product.insuranceCollection ?? 'withheld',
  };
}

/** What is withheld from the principal at disbursement: the fees, and the premium when it is withheld too. */
export function withheldAtDisbursement(fees: Money, insurance: LoanInsurance | undefined): Money {
  return insurance?.collection === 'withheld' ? fees.plus(insurance.premium) : fees;
}

/** What a member asks for: an amount, a number of installments and of grace periods. */
export interface RequestedTerms {
  amount: Money;
  termPeriods: number;
  gracePeriods: number;
}

/**
 * Amount, term and grace within the product's bounds, and an amount above the fees withheld from it (a loan
 * that pays out nothing has no rate); 422 naming the field otherwise.
 */
export function assertWithinProduct(product: LoanProductRules, requested: RequestedTerms): void {
  const outOfBounds = (field: 'amount' | 'term_periods' | 'grace_periods', message: string) =>
    new AppError('unprocessable', `${field}_out_of_bounds`, message, [{ field, message }]);
  if (requested.amount.lt(product.minAmount) || requested.amount.gt(product.maxAmount)) {
    throw outOfBounds(
      'amount',
      `amount must be from ${product.minAmount} to ${product.maxAmount} XAF for product ${product.code}`,
    );
  }
  const fees = loanFees(requested.amount, new Money(product.feeRate), new Money(product.feeFixed));
  const withheld = withheldAtDisbursement(fees, productInsurance(product, requested.amount));
  if (withheld.gte(requested.amount)) {
    throw outOfBounds(
      'amount',
      `amount must exceed the fees and insurance of ${toFrancs(withheld, Money.ROUND_HALF_UP)} XAF that product ` +
        `${product.code} withholds from it`,
    );
  }
  if (requested.termPeriods < product.minTermPeriods || requested.termPeriods > product.maxTermPeriods) {
    throw outOfBounds(
      'term_periods',
      `term_periods must be from ${product.minTermPeriods} to ${product.maxTermPeriods} for product ${product.code}`,
    );
  }
  if (requested.gracePeriods > product.maxGracePeriods || requested.gracePeriods >= requested.termPeriods) {
    throw outOfBounds(
      'grace_periods',
      `grace_periods must be at most ${Math.min(product.maxGracePeriods, requested.termPeriods - 1)} for product ` +
        `${product.code}`,
    );
  }
}

/** What a schedule, its fees and its TEG depend on: a product's pricing and an application's terms. */
export interface LoanTerms {
  method: ScheduleMethod;
  frequency: Frequency;
  annualRate: Money;
  feeRate: Money;
  feeFixed: Money;
  principal: Money;
  termPeriods: number;
  gracePeriods: number;
  /** Disbursement date (or its expected date): the first installment falls one period later. */
  startDate: IsoDate;
  /** Credit insurance, when the loan carries any. */
  insurance?: LoanInsurance;
}

/** The product's pricing applied to requested terms. */
export function loanTermsOf(product: LoanProductRules, requested: RequestedTerms, startDate: string): LoanTerms {
  return {
    method: product.method,
    frequency: product.frequency,
    annualRate: new Money(product.annualRate),
    feeRate: new Money(product.feeRate),
    feeFixed: new Money(product.feeFixed),
    principal: requested.amount,
    termPeriods: requested.termPeriods,
    gracePeriods: requested.gracePeriods,
    startDate,
    insurance: productInsurance(product, requested.amount),
  };
}

/**
 * Late-payment penalty on an unpaid amount from one date to another: annual rate, actual/365
 * (docs/domain.md §3), half-up to the franc; nothing when `to` is not after `from`.
 */
export function penaltyFor(unpaid: Money, annualRate: Money, from: IsoDate, to: IsoDate): Money {
  const days = daysBetween(from, to);
  if (days <= 0 || unpaid.isZero()) return new Money(0);
  return unpaid.mul(annualRate).mul(days).div(365).toDecimalPlaces(0, Money.ROUND_HALF_UP);
}
