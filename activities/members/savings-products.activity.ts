import type { Knex } from 'knex';
import { AppError } from '../../domain/errors';
import { defaultInterestExpenseAccount, defaultInterestSettings } from '../../domain/members/savings-interest';
import { isUniqueViolation } from '../../db/errors';
import { SavingsProduct } from '../../db/models/savings-product.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import { hasNoChanges } from '../changes';
import type { ActivityContext, Actor } from '../context';
import { postableAccounts } from '../events/accounts';

export interface ProductFields {
  code: string;
  name: string;
  kind: SavingsProduct['kind'];
  minimumOpeningBalance: string;
  minimumBalance: string;
  withdrawalsAllowed: boolean;
  interestRate: string;
  depositAccountCode: string;
  /** Term deposits only, and required for them. */
  termMonths?: number;
}

/** How the product pays interest (docs/domain.md §9); what a creation leaves out takes the defaults. */
export type InterestSettings = Pick<SavingsProduct, 'interestBasis' | 'dayCount' | 'postingFrequency' | 'withholdingTaxRate' | 'withholdingTaxAccountCode' | 'interestExpenseAccountCode'>;

type ProductChanges = Partial<Omit<ProductFields, 'code' | 'kind'> & InterestSettings> & { isActive?: boolean };

/** The fields given: an absent optional field of the caller's object must not override a default. */
const withoutUndefined = <T extends object>(fields: T): Partial<T> => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;

const invalid = (field: string, message: string) => new AppError('validation', 'invalid_request', message, [{ field, message }]);

/**
 * Deposits of a product are held on a postable class-3 account (operations with members) of the
 * enterprise's chart: 3711 current accounts, 373 savings books, 36x term deposits, or a sub-account of those.
 */
async function assertDepositAccount(trx: Knex.Transaction, enterpriseId: string, code: string): Promise<void> {
  if (!code.startsWith('3')) throw invalid('deposit_account_code', 'deposit_account_code must be a class 3 account (operations with members)');
  await postableAccounts(trx, enterpriseId, [code]);
}

/**
 * The interest is an expense of 61 (interest on operations with members: 612 term deposits, 613 savings books…),
 * the tax withheld a debt to the State in 43 (4302 État, autres impôts et taxes): docs/domain.md §9. Both postable.
 */
async function assertInterestAccounts(trx: Knex.Transaction, enterpriseId: string, codes: Partial<Pick<InterestSettings, 'interestExpenseAccountCode' | 'withholdingTaxAccountCode'>>): Promise<void> {
  const { interestExpenseAccountCode: expense, withholdingTaxAccountCode: tax } = codes;
  if (expense !== undefined && !expense.startsWith('61')) throw invalid('interest_expense_account_code', 'interest_expense_account_code must be an account of 61 (interest on operations with members)');
  if (tax !== undefined && !tax.startsWith('43')) throw invalid('withholding_tax_account_code', 'withholding_tax_account_code must be an account of 43 (the State, taxes)');
  await postableAccounts(trx, enterpriseId, [expense, tax].filter((code): code is string => code !== undefined));
}

export async function createSavingsProduct(
  context: ActivityContext,
  actor: Actor,
  enterpriseId: string,
  fields: ProductFields & Partial<InterestSettings>,
): Promise<SavingsProduct> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      if ((fields.kind === 'term_deposit') !== (fields.termMonths !== undefined)) throw invalid('term_months', 'term_months is required for a term deposit and only for one');
      await assertDepositAccount(trx, enterpriseId, fields.depositAccountCode);
      const defaults: InterestSettings = { ...defaultInterestSettings, interestExpenseAccountCode: defaultInterestExpenseAccount(fields.depositAccountCode) };
      const settled = { ...defaults, ...withoutUndefined(fields), termMonths: fields.termMonths ?? null };
      await assertInterestAccounts(trx, enterpriseId, settled);
      const product = await SavingsProduct.query(trx).insertAndFetch({ enterpriseId, ...settled });
      await recordAudit(trx, actor, { action: 'savings_product.create', entityType: 'savings_product', entityId: product.id, enterpriseId, details: { ...settled } });
      return product;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'savings_products_code_unique')) throw new AppError('conflict', 'product_code_taken', `A savings product with code ${fields.code} already exists.`);
    throw error;
  }
}

/**
 * The code and kind of a product never change (account numbers and reports carry them); the rest may. Interest
 * settings apply from the next posting; a new term, to the accounts opened after (a maturity is fixed at opening).
 */
export async function updateSavingsProduct(context: ActivityContext, actor: Actor, productId: string, changes: ProductChanges): Promise<SavingsProduct> {
  return inTransaction(context.knex, async (trx) => {
    const product = await SavingsProduct.query(trx).findById(productId).forUpdate().throwIfNotFound();
    if (hasNoChanges(changes)) return product;
    if (changes.termMonths !== undefined && product.kind !== 'term_deposit') throw invalid('term_months', 'term_months is only for a term deposit');
    await assertInterestAccounts(trx, product.enterpriseId, changes);
    if (changes.depositAccountCode !== undefined && changes.depositAccountCode !== product.depositAccountCode) {
      const [opened] = await trx('comptes_clients').where({ product_id: productId }).whereNot('status', 'closed').count({ count: '*' });
      if (Number(opened?.count) > 0) {
        throw new AppError('conflict', 'product_has_accounts', 'Accounts of this product hold deposits on the current account: its deposit account cannot move.');
      }
      await assertDepositAccount(trx, product.enterpriseId, changes.depositAccountCode);
    }
    const updated = await SavingsProduct.query(trx).patchAndFetchById(productId, changes);
    await recordAudit(trx, actor, { action: 'savings_product.update', entityType: 'savings_product', entityId: productId, enterpriseId: product.enterpriseId, details: { ...changes } });
    return updated;
  });
}
