import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';

/**
 * The columns every table shares: a UUID primary key made by PostgreSQL, and creation/update times kept by
 * the database itself (the trigger catches set-based updates that bypass the models).
 */
export function addStandardColumns(knex: Knex, table: Knex.CreateTableBuilder): void {
  table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
  table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
}

export function touchUpdatedAtOnUpdate(knex: Knex, tableName: string): Knex.Raw {
  return knex.raw(
    `CREATE TRIGGER ?? BEFORE UPDATE ON ?? FOR EACH ROW EXECUTE FUNCTION coopbank_touch_updated_at()`,
    [`${tableName}_touch_updated_at`, tableName],
  );
}

/** db/sql: beside this module in the sources, and in dist/db/sql when compiled (`npm run build` copies it). */
const sqlSourcesDirectory = path.join(__dirname, 'sql');

/**
 * Creates or replaces a function from its file under db/sql (`name` without `.sql`, e.g.
 * `functions/coopbank_post_entry`), the one place its current definition lives (docs/architecture.md §4, "SQL
 * sources"). A migration that changes a function edits its file and applies it again.
 */
export async function applySqlSource(knex: Knex, name: string): Promise<void> {
  const sql = await fs.promises.readFile(path.join(sqlSourcesDirectory, `${name}.sql`), 'utf8');
  // An earlier migration applying a file reads its newest text, which may name a table or column a later
  // migration adds: as pg_dump does, bodies are checked when called, not now (in the migration's transaction).
  await knex.raw('SET LOCAL check_function_bodies = off');
  // knex reads every `?` as a placeholder, even without bindings (the jsonb operators are `?`, `?|`, `?&`): `\?` is a `?`.
  await knex.raw(sql.replace(/\?/g, '\\?'));
}
