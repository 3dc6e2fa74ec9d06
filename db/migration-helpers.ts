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
