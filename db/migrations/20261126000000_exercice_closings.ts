import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * The closing of an accounting year (docs/architecture.md §9): one row per attempt, moved on step by step by
 * the yearEndClosing workflow, and the entries each step posted. A step's entries and the row's move to the
 * next step commit together, so a step retried after a lost worker finds itself done and posts nothing.
 * One live closing per year (running or closed); a reopened or failed one stays as history.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('exercice_closings', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('exercice_id').notNullable().references('exercices_comptables.id');
    table.uuid('next_exercice_id').notNullable().references('exercices_comptables.id');
    table.string('status', 10).notNullable().defaultTo('running');
    // requested → income_closed (closing entries posted, year locked) → carried_forward (à-nouveaux posted).
    table.string('step', 20).notNullable().defaultTo('requested');
    table.decimal('result', 20, 0);
    table.string('result_account', 12);
    table.uuid('requested_by').references('users.id');
    table.text('failure');
    table.timestamp('finished_at', { useTz: true });
    table.check(`status IN ('running', 'closed', 'failed', 'reopened')`, [], 'exercice_closings_status_known');
    table.check(`step IN ('requested', 'income_closed', 'carried_forward')`, [], 'exercice_closings_step_known');
  });
  await knex.raw(`CREATE UNIQUE INDEX exercice_closings_one_live ON exercice_closings (exercice_id) WHERE status IN ('running', 'closed', 'failed')`);
  await touchUpdatedAtOnUpdate(knex, 'exercice_closings');

  await knex.schema.createTable('exercice_closing_entries', (table) => {
    table.uuid('closing_id').notNullable().references('exercice_closings.id');
    table.string('step', 20).notNullable();
    table.uuid('entry_id').notNullable().primary().references('journal_entries.id');
    table.check(`step IN ('closing', 'opening')`, [], 'exercice_closing_entries_step_known');
  });
  await knex.raw('CREATE INDEX exercice_closing_entries_closing ON exercice_closing_entries (closing_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('exercice_closing_entries');
  await knex.schema.dropTable('exercice_closings');
}
