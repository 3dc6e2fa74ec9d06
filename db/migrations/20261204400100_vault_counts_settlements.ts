import type { Knex } from 'knex';
import { addStandardColumns } from '../migration-helpers';

/**
 * Issue 29, the vault's count and the settlement of cash differences (docs/domain.md §13.2). A vault count is the
 * branch head's billetage of the vault for a business date; its difference with the book balance is posted as a
 * till's is. A settlement closes one difference entry (a till session's or a vault count's), once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('vault_counts', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.date('business_date').notNullable();
    table.jsonb('count').notNullable();
    table.decimal('total', 18, 0).notNullable();
    table.decimal('book_balance', 18, 0).notNullable();
    table.uuid('entry_id').references('journal_entries.id'); // the difference's entry, when there is one
    table.uuid('counted_by').notNullable().references('users.id');
    table.unique(['branch_id', 'business_date'], { indexName: 'vault_counts_one_a_day' });
  });

  await knex.schema.createTable('cash_settlements', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('difference_entry_id').notNullable().references('journal_entries.id');
    table.string('kind', 10).notNullable();
    table.string('mode', 12).notNullable();
    table.decimal('amount', 18, 0).notNullable();
    table.string('account_code', 12).notNullable();
    table.uuid('entry_id').notNullable().references('journal_entries.id');
    table.uuid('settled_by').notNullable().references('users.id');
    table.check(`kind IN ('shortage', 'excess')`, [], 'cash_settlements_kind_known');
    table.check(`(kind = 'shortage' AND mode IN ('recovered', 'written_off')) OR (kind = 'excess' AND mode IN ('written_off', 'returned'))`, [], 'cash_settlements_mode_known');
    table.unique(['difference_entry_id'], { indexName: 'cash_settlements_once' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('cash_settlements');
  await knex.schema.dropTable('vault_counts');
}
