import type { Knex } from 'knex';
import { addDefaultRules, removeDefaultRules } from '../migration-helpers';

/**
 * Issue 29, serving members across branches (docs/domain.md §13.4). A member of one branch deposits or withdraws
 * at another branch's counter when the enterprise allows it (`inter_branch_service`, off until the direction turns
 * it on). Each operation is two events: the cash in the counter's branch (its till, or its vault), the member's
 * account in the account's branch, the two meeting on 45200 so each branch's books balance.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('enterprise_configurations', (table) => {
    table.boolean('inter_branch_service').notNullable().defaultTo(false);
  });
  await knex.schema.createTable('inter_branch_operations', (table) => {
    table.uuid('id').primary();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.string('direction', 10).notNullable();
    table.uuid('account_id').notNullable().references('comptes_clients.id');
    // The account's branch (its books move the member's money) and the branch whose counter handled the cash.
    table.uuid('account_branch_id').notNullable().references('branches.id');
    table.uuid('counter_branch_id').notNullable().references('branches.id');
    table.decimal('amount', 20, 0).notNullable();
    table.string('reference', 100).notNullable().defaultTo('');
    table.date('business_date').notNullable();
    table.uuid('account_event_id').notNullable().references('business_event_logs.id');
    table.uuid('cash_event_id').notNullable().references('business_event_logs.id');
    table.uuid('recorded_by').notNullable().references('users.id');
    // The maker's Idempotency-Key: a retry, or the same request after its approval, answers this operation.
    table.string('idempotency_key', 100);
    table.check(`direction IN ('deposit', 'withdrawal')`, [], 'inter_branch_operations_direction');
    table.check('amount > 0', [], 'inter_branch_operations_amount_positive');
    table.check('account_branch_id <> counter_branch_id', [], 'inter_branch_operations_two_branches');
    table.index(['enterprise_id', 'business_date']);
    table.index(['account_id']);
  });
  await knex.raw('CREATE UNIQUE INDEX inter_branch_operations_idempotency_unique ON inter_branch_operations (enterprise_id, recorded_by, idempotency_key) WHERE idempotency_key IS NOT NULL');
  await knex.raw('CREATE TRIGGER inter_branch_operations_append_only BEFORE UPDATE OR DELETE ON inter_branch_operations FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()');
  await addDefaultRules(knex, newRules);
}

const role = (name: string) => ({ role: name });
const newRules = [
  { kind: 'inter_branch_deposit', legs: [{ debit: role('internal_transfers'), credit: role('member_deposits') }] },
  { kind: 'inter_branch_deposit_cash', legs: [{ debit: role('cash'), credit: role('internal_transfers') }] },
  { kind: 'inter_branch_withdrawal', legs: [{ debit: role('member_deposits'), credit: role('internal_transfers') }] },
  { kind: 'inter_branch_withdrawal_cash', legs: [{ debit: role('internal_transfers'), credit: role('cash') }] },
];

export async function down(knex: Knex): Promise<void> {
  await removeDefaultRules(knex, newRules);
  await knex.schema.dropTable('inter_branch_operations');
  await knex.schema.alterTable('enterprise_configurations', (table) => {
    table.dropColumn('inter_branch_service');
  });
}
