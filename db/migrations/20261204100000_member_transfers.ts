import type { Knex } from 'knex';
import { addDefaultRules, removeDefaultRules } from '../migration-helpers';

/**
 * Issue 29, transfers between members and the liaison accounts (docs/domain.md §13.5). A transfer is two business
 * events, the source account debited and the destination credited, each posted in its own account's branch: through
 * 459 when both are of one branch (as a term deposit's payout), through 45200 when they are of two branches, so each
 * branch's books balance. `liaison_movements` keeps, per entry that moved 45200, the branch it was posted in and the
 * other branch: the liaison report reads the open balance per pair of branches from it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('member_transfers', (table) => {
    table.uuid('id').primary();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('from_account_id').notNullable().references('comptes_clients.id');
    table.uuid('to_account_id').notNullable().references('comptes_clients.id');
    table.uuid('from_branch_id').notNullable().references('branches.id');
    table.uuid('to_branch_id').notNullable().references('branches.id');
    table.decimal('amount', 20, 0).notNullable();
    table.string('reference', 100).notNullable().defaultTo('');
    table.date('business_date').notNullable();
    table.uuid('debit_event_id').notNullable().references('business_event_logs.id');
    table.uuid('credit_event_id').notNullable().references('business_event_logs.id');
    table.uuid('recorded_by').notNullable().references('users.id');
    // The maker's Idempotency-Key: a retry, or the same request after its approval, answers this transfer.
    table.string('idempotency_key', 100);
    table.check('amount > 0', [], 'member_transfers_amount_positive');
    table.check('from_account_id <> to_account_id', [], 'member_transfers_two_accounts');
    table.index(['enterprise_id', 'business_date']);
    table.index(['from_account_id']);
    table.index(['to_account_id']);
  });
  await knex.raw('CREATE UNIQUE INDEX member_transfers_idempotency_unique ON member_transfers (enterprise_id, recorded_by, idempotency_key) WHERE idempotency_key IS NOT NULL');
  await knex.raw('CREATE TRIGGER member_transfers_append_only BEFORE UPDATE OR DELETE ON member_transfers FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()');

  await knex.schema.createTable('liaison_movements', (table) => {
    table.bigIncrements('id');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.date('business_date').notNullable();
    // The branch whose books the entry is in, and the branch on the other side of the operation.
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('counterpart_branch_id').notNullable().references('branches.id');
    // The movement of 45200 in branch_id's books: debit positive (the counterpart owes the branch), credit negative.
    table.decimal('amount', 20, 0).notNullable();
    table.uuid('entry_id').notNullable().references('journal_entries.id');
    // What made it: 'member_transfer' and its id (deposits at another branch will add theirs).
    table.string('source_type', 40).notNullable();
    table.uuid('source_id').notNullable();
    table.check('branch_id <> counterpart_branch_id', [], 'liaison_movements_two_branches');
    table.check('amount <> 0', [], 'liaison_movements_amount');
    table.index(['enterprise_id', 'business_date']);
  });
  await knex.raw('CREATE TRIGGER liaison_movements_append_only BEFORE UPDATE OR DELETE ON liaison_movements FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()');
  await addDefaultRules(knex, newRules);
}

const role = (name: string) => ({ role: name });
const newRules = [
  { kind: 'member_transfer_debit', legs: [{ debit: role('member_deposits'), credit: role('internal_transfers') }] },
  { kind: 'member_transfer_credit', legs: [{ debit: role('internal_transfers'), credit: role('member_deposits') }] },
];

export async function down(knex: Knex): Promise<void> {
  await removeDefaultRules(knex, newRules);
  await knex.schema.dropTable('liaison_movements');
  await knex.schema.dropTable('member_transfers');
}
