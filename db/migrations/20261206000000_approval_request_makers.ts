import type { Knex } from 'knex';

/**
 * Four eyes excludes everyone who made what a request decides, not only the request's submitter (issue 27): a
 * manual entry drafted by one person and submitted by another is decided by neither. `makers` lists them all, the
 * submitter (`maker_id`) included; the database refuses a decision by any of them, as it refused the submitter's.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE approval_requests ADD COLUMN makers uuid[]`);
  await knex.raw(`UPDATE approval_requests SET makers = ARRAY[maker_id]`);
  await knex.raw(`ALTER TABLE approval_requests ALTER COLUMN makers SET NOT NULL`);
  await knex.raw(`ALTER TABLE approval_requests ADD CONSTRAINT approval_requests_maker_among_makers CHECK (maker_id = ANY (makers))`);
  await knex.raw(`ALTER TABLE approval_requests DROP CONSTRAINT approval_requests_four_eyes`);
  await knex.raw(`ALTER TABLE approval_requests ADD CONSTRAINT approval_requests_four_eyes CHECK (decided_by IS NULL OR decided_by <> ALL (makers))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE approval_requests DROP CONSTRAINT approval_requests_four_eyes`);
  await knex.raw(`ALTER TABLE approval_requests ADD CONSTRAINT approval_requests_four_eyes CHECK (decided_by IS NULL OR decided_by <> maker_id)`);
  await knex.raw(`ALTER TABLE approval_requests DROP CONSTRAINT approval_requests_maker_among_makers`);
  await knex.raw(`ALTER TABLE approval_requests DROP COLUMN makers`);
}
