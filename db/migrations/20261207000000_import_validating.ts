import type { Knex } from 'knex';

/**
 * Issue 31, the import's workflow validates (docs/domain.md §15.1): an import is `validating` while its workflow
 * validates, ties out and runs the dry run, and `failed` when one of those steps failed for a reason of the system
 * (not of the files), so that it never stays `validating`. Either is validated again by a new request.
 */
const statuses = ['uploaded', 'validating', 'validated', 'rejected', 'failed', 'applying', 'applied', 'cancelled'];
const before = ['uploaded', 'validated', 'rejected', 'applying', 'applied', 'cancelled'];

const listed = (names: readonly string[]) => `status IN (${names.map((name) => `'${name}'`).join(', ')})`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE imports DROP CONSTRAINT imports_status_known');
  await knex.raw(`ALTER TABLE imports ADD CONSTRAINT imports_status_listed CHECK (${listed(statuses)})`);
}

export async function down(knex: Knex): Promise<void> {
  await knex('imports').whereIn('status', ['validating', 'failed']).update({ status: 'uploaded' });
  await knex.raw('ALTER TABLE imports DROP CONSTRAINT imports_status_listed');
  await knex.raw(`ALTER TABLE imports ADD CONSTRAINT imports_status_known CHECK (${listed(before)})`);
}
