import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION coopbank_touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.updated_at := now();
      RETURN NEW;
    END $$`);

  // Gap-free counters (member, account, loan and share numbers). A number is taken by incrementing the row
  // inside the caller's transaction: a rollback gives the number back, and the row lock makes concurrent
  // takers of the same counter wait for each other, so no two transactions commit the same value.
  await knex.schema.createTable('sequence_counters', (table) => {
    addStandardColumns(knex, table);
    table.string('name', 64).notNullable();
    table.uuid('enterprise_id');
    table.uuid('branch_id');
    table.integer('year');
    table.bigInteger('value').notNullable();
    table.check('value >= 1', [], 'sequence_counters_value_positive');
  });
  // NULLS NOT DISTINCT (PostgreSQL 15+): a counter without a branch or year is still one row per scope.
  await knex.raw(`
    ALTER TABLE sequence_counters ADD CONSTRAINT sequence_counters_scope_unique
    UNIQUE NULLS NOT DISTINCT (name, enterprise_id, branch_id, year)`);
  await touchUpdatedAtOnUpdate(knex, 'sequence_counters');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sequence_counters');
  await knex.raw('DROP FUNCTION coopbank_touch_updated_at()');
}
