import { AppError } from '../../domain/errors';
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
}

/**
 * Deposits of a product are held on a postable class-3 account (operations with members) of the
 * enterprise's chart: 3711 current accounts, 373 savings books, 36x term deposits, or a sub-account of those.
 */
async function assertDepositAccount(trx: import('knex').Knex.Transaction, enterpriseId: string, code: string): Promise<void> {
  if (!code.startsWith('3')) {
    throw new AppError('validation', 'invalid_request', 'The deposit account must be in class 3.', [{ field: 'deposit_account_code', message: 'deposit_account_code must be a class 3 account (operations with members)' }]);
  }
  await postableAccounts(trx, enterpriseId, [code]);
}

export async function createSavingsProduct(context: ActivityContext, actor: Actor, enterpriseId: string, fields: ProductFields): Promise<SavingsProduct> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      await assertDepositAccount(trx, enterpriseId, fields.depositAccountCode);
      const product = await SavingsProduct.query(trx).insertAndFetch({ enterpriseId, ...fields });
      await recordAudit(trx, actor, { action: 'savings_product.create', entityType: 'savings_product', entityId: product.id, enterpriseId, details: { ...fields } });
      return product;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'savings_products_code_unique')) throw new AppError('conflict', 'product_code_taken', `A savings product with code ${fields.code} already exists.`);
    throw error;
  }
}

/** The code and kind of a product never change (account numbers and reports carry them); the rest may. */
export async function updateSavingsProduct(
  context: ActivityContext,
  actor: Actor,
  productId: string,
  changes: Partial<Omit<ProductFields, 'code' | 'kind'>> & { isActive?: boolean },
): Promise<SavingsProduct> {
  return inTransaction(context.knex, async (trx) => {
    const product = await SavingsProduct.query(trx).findById(productId).forUpdate().throwIfNotFound();
    if (hasNoChanges(changes)) return product;
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
