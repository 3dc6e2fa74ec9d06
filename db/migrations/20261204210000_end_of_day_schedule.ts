import type { Knex } from 'knex';

/**
 * Issue 29: the hour of the enterprise's daily end-of-day Schedule, in its time zone (docs/domain.md §13.3). Null,
 * the default: no Schedule, direction starts each end of day.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('enterprise_configurations', (table) => {
    table.smallint('end_of_day_hour');
    table.check('end_of_day_hour BETWEEN 0 AND 23', [], 'enterprise_configurations_end_of_day_hour');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('enterprise_configurations', (table) => {
    table.dropChecks('enterprise_configurations_end_of_day_hour');
    table.dropColumn('end_of_day_hour');
  });
}
