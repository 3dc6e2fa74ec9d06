import type { Knex } from 'knex';
import { addStandardColumns } from '../migration-helpers';

/**
 * Issue 30, the usury rate (docs/domain.md §14.6): the ceiling of the TEG the monetary authority publishes by period
 * (Règlement n°04/19/CEMAC/UMAC/CM; in Cameroon the CNEF per credit category), configured per enterprise with the
 * date it takes effect and where it was read. The rate in force at a date is the one of the latest `effective_from`
 * on or before it; none: no check. Append-only: a new rate is a new row, set under four eyes (`usury_rate.change`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('usury_rates', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    // A TEG ceiling, as the TEG is shown: percent with two decimals (60.94 = 60.94 %).
    table.decimal('rate', 7, 2).notNullable();
    table.date('effective_from').notNullable();
    table.string('source_reference', 300).notNullable();
    table.uuid('created_by').notNullable().references('users.id');
    table.unique(['enterprise_id', 'effective_from'], { indexName: 'usury_rates_effective_unique' });
    table.check('rate > 0', [], 'usury_rates_rate_positive');
  });
  await knex.raw('CREATE TRIGGER usury_rates_append_only BEFORE UPDATE OR DELETE ON usury_rates FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('usury_rates');
}
