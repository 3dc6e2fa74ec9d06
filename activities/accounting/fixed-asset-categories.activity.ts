import type { Knex } from 'knex';
import { misclassifiedAccounts, type AccountRole } from '../../domain/accounting/fixed-assets';
import { AppError, ValidationError } from '../../domain/errors';
import { isUniqueViolation } from '../../db/errors';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { postableAccounts } from '../events/accounts';
import type { CategoryRow } from './fixed-assets.queries';

/** An account a request names, with its field (for the refusal) and the role whose class it must be in. */
export interface NamedAccount {
  field: string;
  role: AccountRole;
  code: string;
}

/**
 * The accounts a request names, each of its role's class (400 naming the field) and postable in the enterprise's
 * chart (422 naming the field: unknown, inactive or with sub-accounts).
 */
export async function assertAccountsFit(
  trx: Knex.Transaction,
  enterpriseId: string,
  accounts: readonly NamedAccount[],
): Promise<void> {
  const misfits = misclassifiedAccounts(accounts);
  if (misfits.length > 0) throw new ValidationError(misfits);
  for (const account of accounts) {
    try {
      await postableAccounts(trx, enterpriseId, [account.code]);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      throw new AppError(error.kind, error.code, error.message, [{ field: account.field, message: error.message }]);
    }
  }
}

export interface NewCategory {
  enterpriseId: string;
  name: string;
  depreciationMonths: number;
  assetAccount: string;
  depreciationAccount: string;
  chargeAccount: string;
  disposalValueAccount: string;
  disposalProceedsAccount: string;
}

/**
 * Creates a category of the enterprise (docs/domain.md §12.4), its accounts checked; its name is unique in the
 * enterprise. Audited.
 */
export async function createFixedAssetCategory(
  context: DataContext,
  actor: Actor,
  input: NewCategory,
): Promise<CategoryRow> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      await assertAccountsFit(trx, input.enterpriseId, [
        { field: 'asset_account', role: 'asset', code: input.assetAccount },
        { field: 'depreciation_account', role: 'depreciation', code: input.depreciationAccount },
        { field: 'charge_account', role: 'charge', code: input.chargeAccount },
        { field: 'disposal_value_account', role: 'disposalValue', code: input.disposalValueAccount },
        { field: 'disposal_proceeds_account', role: 'disposalProceeds', code: input.disposalProceedsAccount },
      ]);
      const [row] = await trx('fixed_asset_categories')
        .insert({
          enterprise_id: input.enterpriseId,
          name: input.name,
          depreciation_months: input.depreciationMonths,
          asset_account_code: input.assetAccount,
          depreciation_account_code: input.depreciationAccount,
          charge_account_code: input.chargeAccount,
          disposal_value_account_code: input.disposalValueAccount,
          disposal_proceeds_account_code: input.disposalProceedsAccount,
          created_by: actor.userId,
        })
        .returning('*');
      await recordAudit(trx, actor, {
        action: 'fixed_asset_category.create',
        entityType: 'fixed_asset_category',
        entityId: row.id,
        enterpriseId: input.enterpriseId,
        details: { ...input },
      });
      return row as CategoryRow;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'fixed_asset_categories_name_unique')) {
      throw new AppError(
        'conflict',
        'fixed_asset_category_taken',
        `The enterprise already has a fixed-asset category named ${input.name}.`,
        [{ field: 'name', message: 'name is taken' }],
      );
    }
    throw error;
  }
}
