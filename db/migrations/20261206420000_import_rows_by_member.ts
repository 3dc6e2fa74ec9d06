import type { Knex } from 'knex';

/**
 * Issue 31: the staged rows of an import by member number (docs/architecture.md §11). The checks across rows look a
 * row's member up among the import's members and its other shares rows once per row: by this index, each lookup is
 * a probe, not a scan of the file, so a file of 50 000 rows is not judged in n² steps.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX import_rows_member_number ON import_rows (import_id, kind, (data->>'member_number'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX import_rows_member_number');
}
