import type { Knex } from 'knex';

/**
 * Issue 28: the six columns count the opening balance sheet (a manual entry of kind `opening`) as the year's opening,
 * found from each ledger line's entry: the lines of manual entries by their journal entry.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('manual_entry_lines', (table) => {
    table.index(['journal_entry_id'], 'manual_entry_lines_journal_entry');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('manual_entry_lines', (table) => {
    table.dropIndex(['journal_entry_id'], 'manual_entry_lines_journal_entry');
  });
}
