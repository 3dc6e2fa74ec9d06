import type { Knex } from 'knex';

/**
 * An absolute lifetime per sign-in (token family): refreshing never extends a session beyond it. Sign-ins
 * opened before this migration end seven days after they began, the default lifetime.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('token_families', (table) => {
    table.timestamp('expires_at', { useTz: true });
  });
  await knex.raw(`UPDATE token_families SET expires_at = created_at + interval '7 days'`);
  await knex.raw('ALTER TABLE token_families ALTER COLUMN expires_at SET NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('token_families', (table) => table.dropColumn('expires_at'));
}
