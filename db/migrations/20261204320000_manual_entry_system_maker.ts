import type { Knex } from 'knex';

/**
 * Issue 28, recurring entries (docs/domain.md §12.7): the draft the enterprise's Schedule proposes is the system's,
 * not a person's (no one wrote it at that moment), so its `created_by` and `updated_by` are null until a person
 * changes it, as the house's other scheduled work records no user.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE manual_entries ALTER COLUMN created_by DROP NOT NULL, ALTER COLUMN updated_by DROP NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE manual_entries ALTER COLUMN created_by SET NOT NULL, ALTER COLUMN updated_by SET NOT NULL');
}
