import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * The allocation of a closed year's result by the general assembly (docs/domain.md §7, docs/architecture.md §9):
 * each enterprise's allocation policy (the AUSCOOP floors and caps, a row only once changed: the defaults are
 * the domain's), and the allocations themselves with the entries they posted. One posted allocation per year;
 * a cancelled one stays as history. The Idempotency-Key of the request is unique per enterprise.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('result_allocation_policies', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().unique().references('enterprises.id');
    table.decimal('general_reserve_rate_min', 7, 6).notNullable();
    table.decimal('training_reserve_rate_min', 7, 6).notNullable();
    table.decimal('optional_reserves_rate_max', 7, 6).notNullable();
    table.decimal('share_interest_rate_max', 7, 6).notNullable();
    table.uuid('updated_by').references('users.id');
    for (const column of ['general_reserve_rate_min', 'training_reserve_rate_min', 'optional_reserves_rate_max', 'share_interest_rate_max']) {
      table.check(`?? >= 0 AND ?? <= 1`, [column, column], `result_allocation_policies_${column}_rate`);
    }
  });
  await touchUpdatedAtOnUpdate(knex, 'result_allocation_policies');

  await knex.schema.createTable('result_allocations', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('exercice_id').notNullable().references('exercices_comptables.id');
    table.uuid('closing_id').notNullable().references('exercice_closings.id');
    table.string('status', 10).notNullable().defaultTo('posted');
    table.date('assembly_date').notNullable();
    table.string('assembly_reference', 100).notNullable();
    table.decimal('result', 20, 0).notNullable();
    table.string('result_account', 12).notNullable();
    // The assembly's decision, account by account: { "111": "12000", ... } (whole francs as strings).
    table.jsonb('amounts').notNullable();
    table.uuid('allocated_by').references('users.id');
    table.string('idempotency_key', 200).notNullable();
    table.jsonb('request').notNullable();
    table.timestamp('cancelled_at', { useTz: true });
    table.uuid('cancelled_by').references('users.id');
    table.text('cancel_reason');
    table.check(`status IN ('posted', 'cancelled')`, [], 'result_allocations_status_known');
    table.unique(['enterprise_id', 'idempotency_key'], { indexName: 'result_allocations_idempotency_key_unique' });
  });
  await knex.raw(`CREATE UNIQUE INDEX result_allocations_one_posted ON result_allocations (exercice_id) WHERE status = 'posted'`);
  await touchUpdatedAtOnUpdate(knex, 'result_allocations');

  await knex.schema.createTable('result_allocation_entries', (table) => {
    table.uuid('allocation_id').notNullable().references('result_allocations.id');
    table.uuid('entry_id').notNullable().primary().references('journal_entries.id');
  });
  await knex.raw('CREATE INDEX result_allocation_entries_allocation ON result_allocation_entries (allocation_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('result_allocation_entries');
  await knex.schema.dropTable('result_allocations');
  await knex.schema.dropTable('result_allocation_policies');
}
