import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * The monthly reporting pack (docs/architecture.md §10): one pack per enterprise and month, and its files
 * stored as they were produced, with their SHA-256, so that what was sent to COBAC can be shown later byte for
 * byte. A file is never changed nor deleted (the trigger below), and a stored pack never regenerated.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('reporting_packs', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.string('period', 7).notNullable();
    table.string('status', 10).notNullable().defaultTo('running');
    table.uuid('requested_by').references('users.id');
    table.text('failure');
    table.timestamp('generated_at', { useTz: true });
    table.unique(['enterprise_id', 'period'], { indexName: 'reporting_packs_one_per_month' });
    table.check(`status IN ('running', 'stored', 'failed')`, [], 'reporting_packs_status_known');
    table.check(`period ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'`, [], 'reporting_packs_period_month');
  });
  await touchUpdatedAtOnUpdate(knex, 'reporting_packs');

  await knex.schema.createTable('reporting_pack_files', (table) => {
    table.uuid('pack_id').notNullable().references('reporting_packs.id');
    table.string('report', 40).notNullable();
    table.string('format', 10).notNullable();
    table.binary('content').notNullable();
    table.string('sha256', 64).notNullable();
    table.integer('size_bytes').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['pack_id', 'report', 'format']);
    table.check(`format IN ('csv', 'xlsx')`, [], 'reporting_pack_files_format_known');
    table.check(`size_bytes = octet_length(content)`, [], 'reporting_pack_files_size_exact');
    table.check(`sha256 = encode(sha256(content), 'hex')`, [], 'reporting_pack_files_digest_exact');
  });
  await knex.raw(`
    CREATE FUNCTION coopbank_reporting_pack_file_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'reporting_pack_files is append-only: a file sent stays as it was sent';
    END $$;
    CREATE TRIGGER reporting_pack_files_immutable BEFORE UPDATE OR DELETE ON reporting_pack_files
      FOR EACH ROW EXECUTE FUNCTION coopbank_reporting_pack_file_immutable();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('reporting_pack_files');
  await knex.raw('DROP FUNCTION coopbank_reporting_pack_file_immutable()');
  await knex.schema.dropTable('reporting_packs');
}
