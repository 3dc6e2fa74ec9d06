import type { Knex } from 'knex';

/**
 * Issue 31, branches and users brought in by a go-live import (docs/domain.md §15.3): the import that created them,
 * so that cancelling it closes those branches and deactivates those users, and no other.
 */
export async function up(knex: Knex): Promise<void> {
  for (const name of ['branches', 'users']) {
    await knex.schema.alterTable(name, (table) => {
      table.uuid('import_id').references('imports.id');
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const name of ['branches', 'users']) {
    await knex.schema.alterTable(name, (table) => {
      table.dropColumn('import_id');
    });
  }
}
