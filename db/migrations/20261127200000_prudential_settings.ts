import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * The COBAC prudential thresholds and risk weights of an enterprise (docs/domain.md §10): only what the
 * enterprise changed is stored (`overrides`), the documented defaults live in domain/accounts/prudential-settings.ts,
 * so a default corrected later reaches every enterprise that kept it. Kept apart from enterprise_configurations.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('prudential_settings', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().unique().references('enterprises.id');
    table.jsonb('overrides').notNullable().defaultTo('{}');
    table.uuid('updated_by').references('users.id');
  });
  await touchUpdatedAtOnUpdate(knex, 'prudential_settings');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('prudential_settings');
}
