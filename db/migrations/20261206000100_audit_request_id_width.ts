import type { Knex } from 'knex';

/**
 * Scheduled and system work is audited with the workflow that did it (issue 27, controls review): its id, named by
 * the Schedule that started it (`recurring-entries-{enterprise}-{time}`), goes into `request_id`, which held an API
 * request id only and was too short for it. Widening a varchar rewrites no row: the append-only trigger and the
 * chain's hashes (over the text, not its type) are untouched.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE audit_events ALTER COLUMN request_id TYPE varchar(200)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE audit_events ALTER COLUMN request_id TYPE varchar(64)');
}
