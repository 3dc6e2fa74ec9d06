import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * Issue 29, standing orders (virements permanents, docs/domain.md §13.5): a transfer from a member account to another,
 * or to the repayment of the member's loan, repeated monthly or weekly, each order on its own Temporal Schedule.
 * `standing_order_runs` holds one row per order and due date (unique: a Schedule firing twice makes one run), its
 * outcome and the transfer or repayment it made.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('standing_orders', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    // The giving account's branch: who sees and changes the order.
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('from_account_id').notNullable().references('comptes_clients.id');
    // Where the money goes: another member account, or the repayment of a loan of the same member.
    table.uuid('to_account_id').references('comptes_clients.id');
    table.uuid('to_loan_id').references('loans.id');
    table.decimal('amount', 20, 0).notNullable();
    table.string('reference', 100).notNullable().defaultTo('');
    table.string('frequency', 10).notNullable();
    table.smallint('day').notNullable();
    table.date('start_date').notNullable();
    table.date('end_date');
    table.smallint('retry_days').notNullable().defaultTo(0);
    // pending_approval: waits for a second person (from the transfer threshold on); rejected: refused or expired.
    table.string('status', 20).notNullable();
    // The maker: each run's transfer is recorded as theirs.
    table.uuid('created_by').notNullable().references('users.id');
    table.uuid('updated_by').notNullable().references('users.id');
    table.string('idempotency_key', 100);
    table.check('amount > 0', [], 'standing_orders_amount_positive');
    table.check('from_account_id <> to_account_id', [], 'standing_orders_two_accounts');
    table.check('(to_account_id IS NULL) <> (to_loan_id IS NULL)', [], 'standing_orders_one_destination');
    table.check(`frequency IN ('monthly', 'weekly') AND day >= 1 AND day <= CASE frequency WHEN 'monthly' THEN 31 ELSE 7 END`, [], 'standing_orders_frequency');
    table.check('end_date IS NULL OR end_date >= start_date', [], 'standing_orders_dates');
    table.check('retry_days >= 0 AND retry_days <= 30', [], 'standing_orders_retry_days');
    table.check(`status IN ('pending_approval', 'active', 'rejected', 'cancelled')`, [], 'standing_orders_status');
    table.index(['enterprise_id', 'status']);
  });
  await knex.raw('CREATE UNIQUE INDEX standing_orders_idempotency_unique ON standing_orders (enterprise_id, created_by, idempotency_key) WHERE idempotency_key IS NOT NULL');
  await touchUpdatedAtOnUpdate(knex, 'standing_orders');

  await knex.schema.createTable('standing_order_runs', (table) => {
    addStandardColumns(knex, table);
    table.uuid('standing_order_id').notNullable().references('standing_orders.id');
    table.date('due_date').notNullable();
    // done: the transfer made; retrying: refused for lack of funds, tried again on the next business days; failed: given up.
    table.string('outcome', 10).notNullable();
    table.smallint('attempts').notNullable().defaultTo(1);
    table.date('last_attempt_on').notNullable();
    table.uuid('transfer_id').references('member_transfers.id');
    table.uuid('repayment_id').references('loan_repayments.id');
    table.string('refusal_code', 60);
    table.string('refusal_message', 500);
    table.unique(['standing_order_id', 'due_date'], { indexName: 'standing_order_runs_once' });
    table.check(`outcome IN ('done', 'retrying', 'failed')`, [], 'standing_order_runs_outcome');
    table.check(`(outcome = 'done') = (transfer_id IS NOT NULL OR repayment_id IS NOT NULL)`, [], 'standing_order_runs_made');
  });
  await touchUpdatedAtOnUpdate(knex, 'standing_order_runs');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('standing_order_runs');
  await knex.schema.dropTable('standing_orders');
}
