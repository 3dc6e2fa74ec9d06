import type { Knex } from 'knex';

/**
 * Issue 28, the opening entry (docs/domain.md §12.1): a posted opening entry whose reversal is posted no longer
 * stands, so a new one may be posted. `reversed_at` marks a posted entry once its reversal posts (the original
 * stays `posted`: its journal entries are still in the books), and the one-opening index counts the standing ones.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('manual_entries', (table) => {
    table.timestamp('reversed_at', { useTz: true });
  });
  await knex.raw(`UPDATE manual_entries o SET reversed_at = r.posted_at FROM manual_entries r WHERE r.reverses_id = o.id AND r.status = 'posted'`);
  await knex.raw('DROP INDEX manual_entries_one_opening');
  await knex.raw(`CREATE UNIQUE INDEX manual_entries_one_opening ON manual_entries (enterprise_id) WHERE kind = 'opening' AND status = 'posted' AND reversed_at IS NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX manual_entries_one_opening');
  await knex.raw(`CREATE UNIQUE INDEX manual_entries_one_opening ON manual_entries (enterprise_id) WHERE kind = 'opening' AND status = 'posted'`);
  await knex.schema.alterTable('manual_entries', (table) => {
    table.dropColumn('reversed_at');
  });
}
