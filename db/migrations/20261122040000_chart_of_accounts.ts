import fs from 'node:fs';
import type { Knex } from 'knex';
import { pcemfCsvPath, pcemfPlanCode, pcemfRecords } from '../fixtures/pcemf';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * Charts of accounts: the standard plans (the PCEMF 2010, loaded here from fixtures/) with their account
 * records, and each enterprise's own chart, a copy of its plan's records plus the enterprise's sub-accounts.
 * Codes are digits, each account's code extends its parent's, and the first digit is the class.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('account_plans', (table) => {
    addStandardColumns(knex, table);
    table.string('code', 30).notNullable().unique({ indexName: 'account_plans_code_unique' });
    table.string('name', 200).notNullable();
    table.string('description', 1000).notNullable().defaultTo('');
  });
  await touchUpdatedAtOnUpdate(knex, 'account_plans');

  await knex.schema.createTable('account_records', (table) => {
    addStandardColumns(knex, table);
    table.uuid('plan_id').notNullable().references('account_plans.id');
    accountColumns(table, 'account_records', 10);
    table.check('class BETWEEN 1 AND 8', [], 'account_records_class_range');
    table.unique(['plan_id', 'code'], { indexName: 'account_records_code_unique' });
    table.foreign(['plan_id', 'parent_code'], 'account_records_parent_fk').references(['plan_id', 'code']).inTable('account_records');
    table.index(['plan_id', 'parent_code'], 'account_records_parent');
  });
  await touchUpdatedAtOnUpdate(knex, 'account_records');

  await knex.schema.createTable('company_charts', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().unique({ indexName: 'company_charts_enterprise_unique' }).references('enterprises.id');
    table.uuid('plan_id').notNullable().references('account_plans.id');
    // Target of the entries' (chart_id, enterprise_id) key: an entry's denormalised enterprise is its chart's.
    table.unique(['id', 'enterprise_id'], { indexName: 'company_charts_id_enterprise_unique' });
  });
  await touchUpdatedAtOnUpdate(knex, 'company_charts');

  await knex.schema.createTable('company_chart_entries', (table) => {
    addStandardColumns(knex, table);
    table.uuid('chart_id').notNullable();
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('record_id').references('account_records.id'); // null: the enterprise's own sub-account
    accountColumns(table, 'company_chart_entries', 12);
    table.boolean('is_active').notNullable().defaultTo(true);
    table.check('class BETWEEN 1 AND 8', [], 'company_chart_entries_class_range');
    table.check('record_id IS NOT NULL OR class <= 5', [], 'company_chart_entries_sub_account_class');
    table.unique(['chart_id', 'code'], { indexName: 'company_chart_entries_code_unique' });
    table.unique(['enterprise_id', 'code'], { indexName: 'company_chart_entries_enterprise_code_unique' });
    table.foreign(['chart_id', 'enterprise_id'], 'company_chart_entries_chart_fk').references(['id', 'enterprise_id']).inTable('company_charts');
    // A parent cannot disappear under its children, whatever deletes it.
    table.foreign(['chart_id', 'parent_code'], 'company_chart_entries_parent_fk').references(['chart_id', 'code']).inTable('company_chart_entries');
    table.index(['chart_id', 'parent_code'], 'company_chart_entries_parent');
  });
  await touchUpdatedAtOnUpdate(knex, 'company_chart_entries');

  // Whether an account is a leaf is derived, never stored (it changes when a sub-account is opened). The
  // ledger posts to leaves only; this view is the one definition of "leaf", served by the parent index.
  await knex.raw(`
    CREATE VIEW company_chart_leaves AS
    SELECT entry.* FROM company_chart_entries entry
    WHERE NOT EXISTS (
      SELECT 1 FROM company_chart_entries child WHERE child.chart_id = entry.chart_id AND child.parent_code = entry.code
    )`);

  await loadPcemf(knex);
}

/** The account columns records and entries share, with the rules of the code tree. */
function accountColumns(table: Knex.CreateTableBuilder, name: string, codeLengthMax: number): void {
  table.string('code', codeLengthMax).notNullable();
  table.text('label').notNullable();
  table.smallint('class').notNullable();
  table.string('parent_code', codeLengthMax); // null for the class roots only
  table.boolean('is_system').notNullable();
  table.check(`code ~ '^[0-9]+$' AND left(code, 1) = class::text`, [], `${name}_code_digits_of_class`);
  table.check(`(parent_code IS NULL) = (char_length(code) = 1)`, [], `${name}_root_has_no_parent`);
  table.check(`parent_code IS NULL OR (starts_with(code, parent_code) AND code <> parent_code)`, [], `${name}_code_extends_parent`);
  table.check(`is_system = (class IN (6, 7, 8))`, [], `${name}_system_classes`);
  table.check(`label <> ''`, [], `${name}_label_present`);
}

/** The standard plan and its 1,355 records, in one INSERT (the parent key is checked at its end). */
async function loadPcemf(knex: Knex): Promise<void> {
  const [plan] = await knex('account_plans')
    .insert({
      code: pcemfPlanCode,
      name: 'Plan comptable des établissements de microfinance (COBAC), édition janvier 2010',
      description: 'Classes 1 to 8 of the PCEMF, with one root per class. Source: fixtures/pcemf-2010.SOURCES.md.',
    })
    .returning('id');
  const records = pcemfRecords(fs.readFileSync(pcemfCsvPath, 'utf8'));
  await knex('account_records').insert(
    records.map((record) => ({
      plan_id: plan.id,
      code: record.code,
      label: record.label,
      class: record.class,
      parent_code: record.parentCode,
      is_system: record.isSystem,
    })),
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP VIEW company_chart_leaves');
  for (const table of ['company_chart_entries', 'company_charts', 'account_records', 'account_plans']) {
    await knex.schema.dropTable(table);
  }
}
