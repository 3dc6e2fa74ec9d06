import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * Event replay: a request re-runs a range of events through the current rules. Progress lives here, in the
 * same transactions as the postings, so a replay resumes exactly where it stopped after any crash.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('event_replay_requests', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.date('date_from').notNullable();
    table.date('date_to').notNullable();
    table.specificType('kinds', 'text[]').notNullable(); // empty: every kind
    table.string('mode', 10).notNullable();
    table.string('status', 20).notNullable().defaultTo('pending');
    table.integer('events_seen').notNullable().defaultTo(0);
    table.integer('events_changed').notNullable().defaultTo(0);
    table.integer('entries_posted').notNullable().defaultTo(0);
    table.integer('events_failed').notNullable().defaultTo(0);
    // Where the next batch starts: events are taken in (created_at, id) order.
    table.timestamp('cursor_created_at', { useTz: true });
    table.uuid('cursor_event_id');
    table.uuid('requested_by').references('users.id');
    table.timestamp('finished_at', { useTz: true });
    table.string('failure', 1000);
    table.check(`mode IN ('dry_run', 'apply')`, [], 'event_replay_mode_known');
    table.check(`status IN ('pending', 'running', 'completed', 'failed')`, [], 'event_replay_status_known');
    table.check('date_to >= date_from', [], 'event_replay_dates_ordered');
  });
  await touchUpdatedAtOnUpdate(knex, 'event_replay_requests');

  // One outcome per (request, event): the key that makes a replay idempotent per event.
  await knex.schema.createTable('event_replay_results', (table) => {
    table.bigIncrements('id');
    table.uuid('request_id').notNullable().references('event_replay_requests.id');
    table.uuid('event_id').notNullable().references('business_event_logs.id');
    table.string('outcome', 20).notNullable();
    table.uuid('reversal_entry_id').references('journal_entries.id');
    table.uuid('new_entry_id').references('journal_entries.id');
    table.string('detail', 500).notNullable().defaultTo('');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['request_id', 'event_id'], { indexName: 'event_replay_results_once' });
    table.check(`outcome IN ('unchanged', 'changed', 'reposted', 'failed')`, [], 'event_replay_outcome_known');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('event_replay_results');
  await knex.schema.dropTable('event_replay_requests');
}
