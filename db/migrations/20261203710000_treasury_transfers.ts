import type { Knex } from 'knex';

/**
 * Issue 28, banks and correspondents (docs/domain.md §12.6): money moved between the till and a bank, or two
 * banks, each posted in journal BQ. A null bank account is the till (5710). Append-only, as the entry it posted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('treasury_transfers', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('from_bank_account_id').references('bank_accounts.id');
    table.uuid('to_bank_account_id').references('bank_accounts.id');
    table.string('from_account_code', 12).notNullable();
    table.string('to_account_code', 12).notNullable();
    table.date('transfer_date').notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.string('reference', 100).notNullable().defaultTo('');
    table.uuid('entry_id').notNullable().references('journal_entries.id');
    table.uuid('recorded_by').notNullable().references('users.id');
    // The maker's Idempotency-Key: a retry after the approval answers this transfer (docs/architecture.md §4).
    table.string('idempotency_key', 100);
    table.check('amount > 0', [], 'treasury_transfers_amount_positive');
    table.check('from_account_code <> to_account_code', [], 'treasury_transfers_two_accounts');
    table.index(['enterprise_id', 'transfer_date']);
  });
  await knex.raw('CREATE UNIQUE INDEX treasury_transfers_idempotency_unique ON treasury_transfers (enterprise_id, recorded_by, idempotency_key) WHERE idempotency_key IS NOT NULL');
  await knex.raw('CREATE TRIGGER treasury_transfers_append_only BEFORE UPDATE OR DELETE ON treasury_transfers FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('treasury_transfers');
}
