import type { Knex } from 'knex';

/**
 * Issue 31's benchmark (docs/domain.md §15.4): the validation's checks across rows look each row's key up among the
 * other rows of its import and kind (a member twice, an account's member in the members file). Without an index
 * on the key each lookup reads the kind's rows: validation grew with the square of the file. One index per key
 * the checks compare, the expression exactly as they write it.
 */
const keys = {
  import_rows_member_number: '(data->>\'member_number\')',
  import_rows_account_number: '(data->>\'account_number\')',
  import_rows_id_document: '(upper(replace(data->>\'id_document_number\', \' \', \'\')))',
} as const;

export async function up(knex: Knex): Promise<void> {
  for (const [name, key] of Object.entries(keys)) await knex.raw(`CREATE INDEX ${name} ON import_rows (import_id, kind, ${key})`);
}

export async function down(knex: Knex): Promise<void> {
  for (const name of Object.keys(keys)) await knex.raw(`DROP INDEX ${name}`);
}
