import type { Knex } from 'knex';
import { AppError, ValidationError } from '../../domain/errors';
import { loanProductAccounts, productTermProblems, type LoanAccountField } from '../../domain/loans/loan-product';
import { Money } from '../../domain/money';
import { isUniqueViolation } from '../../db/errors';
import { LoanProduct } from '../../db/models/loan-product.model';
import { inTransaction } from '../../db/transaction';
import { changedValues, recordAudit } from '../audit';
import { hasNoChanges } from '../changes';
import type { ActivityContext, Actor } from '../context';
import { postableAccounts } from '../events/accounts';
import { assertProductWithinUsury } from './usury-rates.activity';

export type LoanProductFields = Pick<
  LoanProduct,
  | 'code'
  | 'name'
  | 'termCategory'
  | 'method'
  | 'frequency'
  | 'annualRate'
  | 'minAmount'
  | 'maxAmount'
  | 'minTermPeriods'
  | 'maxTermPeriods'
  | 'maxGracePeriods'
  | 'feeRate'
  | 'feeFixed'
  | 'penaltyRate'
  | 'realEstate'
  | 'portfolioAccountCode'
  | 'interestIncomeAccountCode'
  | 'feeIncomeAccountCode'
  | 'penaltyIncomeAccountCode'
  | 'accruedInterestAccountCode'
  | 'insuranceRate'
  | 'insuranceFixed'
  | 'insuranceCollection'
  | 'prepaymentStrategy'
  | 'prepaymentFeeRate'
  | 'prepaymentFeeMinimum'
>;

/** Code and category never change: loans and reports carry them. */
export type LoanProductChanges = Partial<Omit<LoanProductFields, 'code' | 'termCategory'> & { isActive: boolean }>;

const accountClasses: Readonly<Record<LoanAccountField, { digit: string; field: string; what: string }>> = {
  portfolioAccountCode: { digit: '3', field: 'portfolio_account_code', what: 'a class 3 account (credit to members)' },
  interestIncomeAccountCode: { digit: '7', field: 'interest_income_account_code', what: 'a class 7 account (income)' },
  feeIncomeAccountCode: { digit: '7', field: 'fee_income_account_code', what: 'a class 7 account (income)' },
  penaltyIncomeAccountCode: { digit: '7', field: 'penalty_income_account_code', what: 'a class 7 account (income)' },
  accruedInterestAccountCode: {
    digit: '3',
    field: 'accrued_interest_account_code',
    what: 'a class 3 account (créances rattachées)',
  },
};

/** The product's bounds agree with its category, and each account is of its class and postable. */
async function assertSoundProduct(
  trx: Knex.Transaction,
  enterpriseId: string,
  product: LoanProductFields,
): Promise<void> {
  const problems = productTermProblems({
    termCategory: product.termCategory,
    frequency: product.frequency,
    minTermPeriods: product.minTermPeriods,
    maxTermPeriods: product.maxTermPeriods,
    maxGracePeriods: product.maxGracePeriods,
    minAmount: new Money(product.minAmount),
    maxAmount: new Money(product.maxAmount),
  });
  for (const [key, rule] of Object.entries(accountClasses) as [
    LoanAccountField,
    (typeof accountClasses)[LoanAccountField],
  ][]) {
    if (!product[key].startsWith(rule.digit))
      problems.push({ field: rule.field, message: `${rule.field} must be ${rule.what}` });
  }
  if (problems.length > 0) throw new ValidationError(problems);
  await postableAccounts(
    trx,
    enterpriseId,
    Object.keys(accountClasses).map((key) => product[key as LoanAccountField]),
  );
}

type InsuranceField = 'insuranceRate' | 'insuranceFixed' | 'insuranceCollection';

/**
 * The early-repayment terms: a product that names none lowers the installments and charges no fee (docs/domain.md
 * §14.1).
 */
type PrepaymentField = 'prepaymentStrategy' | 'prepaymentFeeRate' | 'prepaymentFeeMinimum';
const prepaymentDefaults = {
  prepaymentStrategy: 'reduce_installment',
  prepaymentFeeRate: '0',
  prepaymentFeeMinimum: '0',
} as const;

/** A new product: the accounts it does not name are its term category's defaults; without insurance it carries none. */
type OptionalField = LoanAccountField | InsuranceField | PrepaymentField;
export type NewLoanProduct = Omit<LoanProductFields, OptionalField> & Partial<Pick<LoanProductFields, OptionalField>>;

export async function createLoanProduct(
  context: ActivityContext,
  actor: Actor,
  enterpriseId: string,
  named: NewLoanProduct,
): Promise<LoanProduct> {
  const fields: LoanProductFields = {
    ...named,
    insuranceRate: named.insuranceRate ?? '0',
    insuranceFixed: named.insuranceFixed ?? '0',
    insuranceCollection: named.insuranceCollection ?? 'withheld',
    prepaymentStrategy: named.prepaymentStrategy ?? prepaymentDefaults.prepaymentStrategy,
    prepaymentFeeRate: named.prepaymentFeeRate ?? prepaymentDefaults.prepaymentFeeRate,
    prepaymentFeeMinimum: named.prepaymentFeeMinimum ?? prepaymentDefaults.prepaymentFeeMinimum,
    ...loanProductAccounts(named.termCategory, named),
  };
  try {
    return await inTransaction(context.knex, async (trx) => {
      await assertSoundProduct(trx, enterpriseId, fields);
      await assertProductWithinUsury(trx, context.clock(), enterpriseId, fields);
      const product = await LoanProduct.query(trx).insertAndFetch({ enterpriseId, ...fields });
      await recordAudit(trx, actor, {
        action: 'loan_product.create',
        entityType: 'loan_product',
        entityId: product.id,
        enterpriseId,
        details: { ...fields },
      });
      return product;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'loan_products_code_unique'))
      throw new AppError('conflict', 'product_code_taken', `A loan product with code ${fields.code} already exists.`);
    throw error;
  }
}

/** What the TEG of a product's dearest loan depends on (docs/domain.md §14.6). */
const pricingFields: readonly (keyof LoanProductChanges)[] = [
  'method',
  'frequency',
  'annualRate',
  'minAmount',
  'minTermPeriods',
  'feeRate',
  'feeFixed',
  'insuranceRate',
  'insuranceFixed',
  'insuranceCollection',
];

/** Changes apply to later applications; loans already granted keep the terms they were granted with. */
export async function updateLoanProduct(
  context: ActivityContext,
  actor: Actor,
  productId: string,
  changes: LoanProductChanges,
): Promise<LoanProduct> {
  return inTransaction(context.knex, async (trx) => {
    const product = await LoanProduct.query(trx).findById(productId).forUpdate().throwIfNotFound();
    if (hasNoChanges(changes)) return product;
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    await assertSoundProduct(trx, product.enterpriseId, { ...product, ...defined });
    // Only a change of what its dearest loan costs is checked: a usurious product may still be renamed or deactivated.
    if (pricingFields.some((field) => field in defined))
      await assertProductWithinUsury(trx, context.clock(), product.enterpriseId, { ...product, ...defined });
    const updated = await LoanProduct.query(trx).patchAndFetchById(productId, defined);
    await recordAudit(trx, actor, {
      action: 'loan_product.update',
      entityType: 'loan_product',
      entityId: productId,
      enterpriseId: product.enterpriseId,
      details: defined,
      ...changedValues(defined, product, updated),
    });
    return updated;
  });
}
