import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * Issue 28, recurring manual entries (docs/domain.md §12.7): a model an accountant defines once (the monthly rent),
 * its lines, and the drafts proposed from it. One proposal per model and period (unique): a rerun, a retry or a
 * second request proposes nothing twice. A model is never deleted; it is deactivated.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('recurring_entries', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    // The one branch of all its lines, else null: where it is seen, as a manual entry's.
    table.uuid('branch_id').references('branches.id');
    table.string('journal_code', 6).notNullable().references('journals.code');
    table.string('label', 200).notNullable();
    table.string('reference_pattern', 60).notNullable();
    table.string('frequency', 10).notNullable().defaultTo('monthly');
    table.integer('day_of_period').notNullable();
    table.string('first_period', 7).notNullable();
    table.string('last_period', 7);
    table.boolean('active').notNullable().defaultTo(true);
    table.uuid('created_by').notNullable().references('users.id');
    table.uuid('updated_by').notNullable().references('users.id');
    table.check(`frequency IN ('monthly', 'quarterly')`, [], 'recurring_entries_frequency_known');
    table.check('day_of_period BETWEEN 1 AND 31', [], 'recurring_entries_day_known');
    table.check('last_period IS NULL OR last_period >= first_period', [], 'recurring_entries_periods_ordered');
    table.index(['enterprise_id', 'active']);
  });
  await touchUpdatedAtOnUpdate(knex, 'recurring_entries');

  // A model's lines have no identity of their own: an edit replaces them all (as a draft's), keyed by their place.
  await knex.schema.createTable('recurring_entry_lines', (table) => {
    table.uuid('recurring_entry_id').notNullable().references('recurring_entries.id').onDelete('CASCADE');
    table.smallint('position').notNullable();
    table.string('account_code', 12).notNullable();
    table.uuid('branch_id').notNullable().references('branches.id');
    table.decimal('debit', 20, 0).notNullable().defaultTo(0);
    table.decimal('credit', 20, 0).notNullable().defaultTo(0);
    table.string('label', 200);
    table.primary(['recurring_entry_id', 'position']);
    table.check('debit >= 0 AND credit >= 0 AND (debit = 0) <> (credit = 0)', [], 'recurring_entry_lines_one_side');
  });

  await knex.schema.createTable('recurring_entry_proposals', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('recurring_entry_id').notNullable().references('recurring_entries.id');
    table.string('period', 7).notNullable();
    table.uuid('manual_entry_id').notNullable().references('manual_entries.id');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['recurring_entry_id', 'period'], { indexName: 'recurring_entry_proposals_once' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('recurring_entry_proposals');
  await knex.schema.dropTable('recurring_entry_lines');
  await knex.schema.dropTable('recurring_entries');
}
