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
  return knex.raw(`CREATE TRIGGER ?? BEFORE UPDATE ON ?? FOR EACH ROW EXECUTE FUNCTION coopbank_touch_updated_at()`, [
    `${tableName}_touch_updated_at`,
    tableName,
  ]);
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
  // knex reads every `?` as a placeholder, even without bindings (the jsonb operators are `?`, `?|`, `?&`): `\?` is a
  // `?`.
  await knex.raw(sql.replace(/\?/g, '\\?'));
}

/** A default accounting rule as a migration adds it: fixtures/accounting-rules.json's line for a new kind. */
export interface DefaultRule {
  kind: string;
  legs: readonly { debit: Record<string, string>; credit: Record<string, string> }[];
}

/**
 * Gives every existing enterprise the default rule of each new kind (version 1), unless it has one already: new
 * enterprises get them from the fixture. Issue 29 onwards; earlier migrations wrote this loop themselves.
 */
export async function addDefaultRules(knex: Knex, rules: readonly DefaultRule[]): Promise<void> {
  for (const rule of rules) {
    await knex.raw(
      `INSERT INTO accounting_rule_configs (enterprise_id, kind, version, legs, is_active, reason)
       SELECT e.id, ?, 1, ?::jsonb, true, 'default rule (fixtures/accounting-rules.json)'
       FROM enterprises e
       WHERE NOT EXISTS (SELECT 1 FROM accounting_rule_configs r WHERE r.enterprise_id = e.id AND r.kind = ?)`,
      [rule.kind, JSON.stringify(rule.legs), rule.kind],
    );
  }
}

/**
 * Undoes addDefaultRules: rules are append-only, and undoing the migration that added them is the one legitimate
 * removal.
 */
export async function removeDefaultRules(knex: Knex, rules: readonly DefaultRule[]): Promise<void> {
  await knex.raw('ALTER TABLE accounting_rule_configs DISABLE TRIGGER accounting_rule_configs_append_only');
  await knex('accounting_rule_configs')
    .whereIn(
      'kind',
      rules.map((rule) => rule.kind),
    )
    .delete();
  await knex.raw('ALTER TABLE accounting_rule_configs ENABLE TRIGGER accounting_rule_configs_append_only');
}
