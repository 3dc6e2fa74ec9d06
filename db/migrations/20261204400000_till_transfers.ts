import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * Issue 29, cash between the vault and the tills (docs/domain.md §13.2). A till transfer moves cash from a branch's
 * vault to one of its tills (approvisionnement) or back (dégagement): requested by the giver, the cash then on 459
 * until the receiver confirms it with a count, or the giver cancels it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('till_transfers', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('till_id').notNullable().references('tills.id');
    table.string('kind', 10).notNullable();
    table.decimal('amount', 18, 0).notNullable();
    table.jsonb('count'); // the giver's count by denomination, when they gave one
    table.string('status', 10).notNullable().defaultTo('pending');
    table.date('business_date').notNullable();
    table.uuid('requested_by').notNullable().references('users.id');
    table.uuid('request_entry_id').notNullable().references('journal_entries.id');
    table.jsonb('received_count');
    table.uuid('decided_by').references('users.id');
    table.timestamp('decided_at', { useTz: true });
    table.uuid('decision_entry_id').references('journal_entries.id');
    table.check(`kind IN ('to_till', 'to_vault')`, [], 'till_transfers_kind_known');
    table.check(`status IN ('pending', 'confirmed', 'cancelled')`, [], 'till_transfers_status_known');
    table.check('amount > 0', [], 'till_transfers_amount_positive');
    table.check(`(status = 'pending') = (decided_at IS NULL)`, [], 'till_transfers_decided');
    table.check(`status <> 'confirmed' OR decided_by <> requested_by`, [], 'till_transfers_four_eyes');
    table.index(['branch_id', 'business_date'], 'till_transfers_branch_date');
    table.index(['till_id', 'status'], 'till_transfers_till_status');
  });
  await touchUpdatedAtOnUpdate(knex, 'till_transfers');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('till_transfers');
}
