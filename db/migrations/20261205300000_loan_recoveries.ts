import type { Knex } from 'knex';
import { addDefaultRules, removeDefaultRules } from '../migration-helpers';

/**
 * Issue 30, write-off and recovery (docs/domain.md §14.3): money recovered on a written-off loan. Each recovery is
 * one `loan_recovery` event, the till or the member's account against 792 Récupération sur créances abandonnées,
 * and one row here, append-only: the loan's recovery history and the write-off register read it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('loan_recoveries', (table) => {
    table.uuid('id').primary();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('loan_id').notNullable().references('loans.id');
    table.decimal('amount', 20, 0).notNullable();
    table.string('channel', 16).notNullable();
    table.uuid('account_id').references('comptes_clients.id');
    table.string('reference', 100).notNullable().defaultTo('');
    table.date('business_date').notNullable();
    table.uuid('event_id').notNullable().references('business_event_logs.id');
    table.uuid('recorded_by').notNullable().references('users.id');
    // The client's Idempotency-Key and what was asked under it: a retry answers this recovery.
    table.string('idempotency_key', 100);
    table.jsonb('request').notNullable();
    table.check('amount > 0', [], 'loan_recoveries_amount_positive');
    table.check(`channel IN ('cash', 'account')`, [], 'loan_recoveries_channel');
    table.check(`(channel = 'account') = (account_id IS NOT NULL)`, [], 'loan_recoveries_account');
    table.index(['loan_id']);
    table.index(['enterprise_id', 'business_date']);
  });
  await knex.raw('CREATE UNIQUE INDEX loan_recoveries_idempotency_unique ON loan_recoveries (enterprise_id, recorded_by, idempotency_key) WHERE idempotency_key IS NOT NULL');
  await knex.raw('CREATE TRIGGER loan_recoveries_append_only BEFORE UPDATE OR DELETE ON loan_recoveries FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()');
  await addDefaultRules(knex, newRules);
}

const newRules = [{ kind: 'loan_recovery', legs: [{ debit: { role: 'cash' }, credit: { account: '792' } }] }];

export async function down(knex: Knex): Promise<void> {
  await removeDefaultRules(knex, newRules);
  await knex.schema.dropTable('loan_recoveries');
}
