import type { Knex } from 'knex';

/**
 * Issue 31, guarantors' holds in the go-live import (docs/domain.md §15.2): the check that an account's balance
 * covers every hold the loans file puts on it sums the loan rows naming the same account, once per row naming one.
 * Indexed over the loans' rows only, the expression exactly as the check writes it, so the sum reads the rows of
 * its account instead of every loan of the import.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX import_rows_held_account ON import_rows (import_id, (data->>\'guarantee_held_account\')) WHERE kind = \'loans\'');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX import_rows_held_account');
}
