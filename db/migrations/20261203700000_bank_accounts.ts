import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * Issue 28, banks and correspondents (docs/domain.md §12.6): each bank account of the cooperative is its own
 * sub-account of a leaf of 560 (comptes à vue nostri), with what identifies it at its bank. Unlike a supplier's,
 * it is no subledger account: bank fees and interest are booked on it by manual entries.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bank_accounts', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').references('branches.id'); // null: an account of the whole enterprise
    table.string('bank_name', 200).notNullable();
    table.string('account_number', 60).notNullable(); // RIB or IBAN, as the bank writes it
    table.string('bank_branch', 200); // the bank's agency that keeps the account
    table.uuid('chart_entry_id').notNullable().unique().references('company_chart_entries.id');
    table.string('account_code', 12).notNullable();
    table.boolean('is_active').notNullable().defaultTo(true);
    table.uuid('created_by').references('users.id');
    table.unique(['enterprise_id', 'account_number'], { indexName: 'bank_accounts_number_unique' });
  });
  await touchUpdatedAtOnUpdate(knex, 'bank_accounts');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bank_accounts');
}
