import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * Issue 28, fixed assets (docs/domain.md §12.4): the categories an accountant creates (the period and the five
 * accounts an asset of the category posts to), the register of assets (each acquisition posted under four eyes),
 * and the depreciation booked per asset (by the month end, or up to a disposal), the register's detail of 28x.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('fixed_asset_categories', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.string('name', 200).notNullable();
    table.integer('depreciation_months').notNullable();
    table.string('asset_account_code', 12).notNullable();
    table.string('depreciation_account_code', 12).notNullable();
    table.string('charge_account_code', 12).notNullable();
    table.string('disposal_value_account_code', 12).notNullable();
    table.string('disposal_proceeds_account_code', 12).notNullable();
    table.uuid('created_by').notNullable().references('users.id');
    table.unique(['enterprise_id', 'name'], { indexName: 'fixed_asset_categories_name_unique' });
    table.check('depreciation_months BETWEEN 1 AND 1200', [], 'fixed_asset_categories_months');
  });
  await touchUpdatedAtOnUpdate(knex, 'fixed_asset_categories');
  await knex.schema.createTable('fixed_assets', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('category_id').notNullable().references('fixed_asset_categories.id');
    table.string('label', 200).notNullable();
    table.string('supplier', 200);
    table.date('acquisition_date').notNullable();
    table.decimal('cost', 20, 0).notNullable();
    table.integer('depreciation_months').notNullable();
    table.string('method', 20).notNullable().defaultTo('straight_line');
    table.string('funding_account_code', 12).notNullable();
    table.uuid('acquisition_entry_id').notNullable().references('journal_entries.id');
    table.string('status', 16).notNullable().defaultTo('active');
    table.date('disposal_date');
    table.decimal('disposal_proceeds', 20, 0);
    table.string('proceeds_account_code', 12);
    table.uuid('disposal_entry_id').references('journal_entries.id');
    table.uuid('created_by').notNullable().references('users.id');
    table.uuid('disposed_by').references('users.id');
    table.check('cost > 0', [], 'fixed_assets_cost_positive');
    table.check('depreciation_months BETWEEN 1 AND 1200', [], 'fixed_assets_months');
    table.check(`method = 'straight_line'`, [], 'fixed_assets_method');
    table.check(`status IN ('active', 'disposed')`, [], 'fixed_assets_status');
    table.check(`(status = 'disposed') = (disposal_date IS NOT NULL AND disposal_entry_id IS NOT NULL)`, [], 'fixed_assets_disposed');
    table.index(['enterprise_id', 'status']);
  });
  await touchUpdatedAtOnUpdate(knex, 'fixed_assets');
  await knex.schema.createTable('fixed_asset_depreciations', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('asset_id').notNullable().references('fixed_assets.id');
    // The last day of use the amount depreciates to: a period's last day, or the day before a disposal.
    table.date('through_date').notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.uuid('entry_id').notNullable().references('journal_entries.id');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Booked once per asset and date: a month end run again, or a disposal after it, adds nothing twice.
    table.unique(['asset_id', 'through_date'], { indexName: 'fixed_asset_depreciations_once' });
    table.check('amount > 0', [], 'fixed_asset_depreciations_positive');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('fixed_asset_depreciations');
  await knex.schema.dropTable('fixed_assets');
  await knex.schema.dropTable('fixed_asset_categories');
}
