import type { Knex } from 'knex';
import type { CategoryAccounts } from '../../domain/accounting/fixed-assets';

/**
 * The reads of the fixed-asset register (docs/domain.md §12.4): categories, assets with their category's accounts,
 * depreciation booked.
 */

export interface CategoryRow {
  id: string;
  enterprise_id: string;
  name: string;
  depreciation_months: number;
  asset_account_code: string;
  depreciation_account_code: string;
  charge_account_code: string;
  disposal_value_account_code: string;
  disposal_proceeds_account_code: string;
  created_by: string;
  created_at: Date;
}

export const categoryAccounts = (row: CategoryRow): CategoryAccounts => ({
  asset: row.asset_account_code,
  depreciation: row.depreciation_account_code,
  charge: row.charge_account_code,
  disposalValue: row.disposal_value_account_code,
  disposalProceeds: row.disposal_proceeds_account_code,
});

export const categoriesQuery = (knex: Knex) => knex<CategoryRow>('fixed_asset_categories as c').select('c.*');

export const categoryById = (knex: Knex, id: string) =>
  categoriesQuery(knex).where('c.id', id).first() as Promise<CategoryRow | undefined>;

export interface FixedAssetRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  category_id: string;
  category_name: string;
  label: string;
  supplier: string | null;
  acquisition_date: string;
  cost: string;
  depreciation_months: number;
  method: 'straight_line';
  funding_account_code: string;
  acquisition_entry_id: string;
  status: 'active' | 'disposed';
  disposal_date: string | null;
  disposal_proceeds: string | null;
  proceeds_account_code: string | null;
  disposal_entry_id: string | null;
  /** Depreciation booked so far (all of it, whatever the date). */
  depreciated: string;
  created_by: string;
  created_at: Date;
}

/** Assets with their category's name and the depreciation booked on each: the register's rows. */
export function fixedAssetsQuery(knex: Knex) {
  return knex('fixed_assets as a')
    .join('fixed_asset_categories as c', 'c.id', 'a.category_id')
    .select(
      'a.id',
      'a.enterprise_id',
      'a.branch_id',
      'a.category_id',
      'c.name as category_name',
      'a.label',
      'a.supplier',
      knex.raw(`to_char(a.acquisition_date, 'YYYY-MM-DD') AS acquisition_date`),
      'a.cost',
      'a.depreciation_months',
      'a.method',
      'a.funding_account_code',
      'a.acquisition_entry_id',
      'a.status',
      knex.raw(`to_char(a.disposal_date, 'YYYY-MM-DD') AS disposal_date`),
      'a.disposal_proceeds',
      'a.proceeds_account_code',
      'a.disposal_entry_id',
      'a.created_by',
      'a.created_at',
      knex.raw(
        '(SELECT COALESCE(sum(d.amount), 0)::text FROM fixed_asset_depreciations d ' +
          'WHERE d.asset_id = a.id) AS depreciated',
      ),
    );
}

export const fixedAssetById = (knex: Knex, id: string) =>
  fixedAssetsQuery(knex).where('a.id', id).first() as Promise<FixedAssetRow | undefined>;

/**
 * The accounts the register details (its categories' class 2 and 28 accounts): subledger-backed, so they move
 * only through the register's own operations (acquisition, depreciation, disposal), never a manual entry. A query
 * of `code`: the manual entries' subledger source (subledger-accounts.ts) and the register's list alike.
 */
export const fixedAssetAccountsQuery = (knex: Knex | Knex.Transaction, enterpriseId: string): Knex.QueryBuilder =>
  knex('fixed_asset_categories')
    .where({ enterprise_id: enterpriseId })
    .select('asset_account_code as code')
    .union((depreciation) =>
      depreciation
        .from('fixed_asset_categories')
        .where({ enterprise_id: enterpriseId })
        .select('depreciation_account_code'),
    );

/** The same accounts, in code order: the register's `accounts`, whose balances its totals equal. */
export async function fixedAssetSubledgerAccounts(knex: Knex, enterpriseId: string): Promise<string[]> {
  return knex.from(fixedAssetAccountsQuery(knex, enterpriseId).as('kept')).orderBy('code').pluck('code');
}
