import type { Knex } from 'knex';
import { addStandardColumns, applySqlSource, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * Issue 29, tills and the vault (docs/domain.md §13.1). A branch's vault is its 5710 Caisse FCFA; each till has
 * its own sub-account of 5712 "Caisses des guichets", assigned to one cashier at a time. A till session is a
 * cashier's day at their till, between an opening and a closing count. The `cash` role of the rules resolves to
 * the operator's till in a branch with a till assigned (coopbank_cash_account, called by coopbank_record_event).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tills', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.string('code', 20).notNullable();
    table.string('label', 200).notNullable();
    table.string('kind', 10).notNullable();
    table.string('account_code', 12).notNullable();
    table.decimal('cash_limit', 18, 0); // null: no limit set
    table.uuid('cashier_id').references('users.id');
    table.boolean('is_active').notNullable().defaultTo(true);
    table.uuid('created_by').references('users.id');
    table.check(`kind IN ('till', 'vault')`, [], 'tills_kind_known');
    table.check(`kind = 'till' OR cashier_id IS NULL`, [], 'tills_vault_unassigned');
    table.check('cash_limit IS NULL OR cash_limit >= 0', [], 'tills_cash_limit_positive');
    table.unique(['branch_id', 'code'], { indexName: 'tills_code_unique' });
  });
  await knex.raw(`CREATE UNIQUE INDEX tills_one_vault ON tills (branch_id) WHERE kind = 'vault'`);
  await knex.raw(`CREATE UNIQUE INDEX tills_one_per_cashier ON tills (cashier_id) WHERE cashier_id IS NOT NULL`);
  await knex.raw(`CREATE UNIQUE INDEX tills_account_unique ON tills (enterprise_id, account_code) WHERE kind = 'till'`);
  await touchUpdatedAtOnUpdate(knex, 'tills');

  await knex.schema.createTable('till_sessions', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('till_id').notNullable().references('tills.id');
    table.uuid('cashier_id').notNullable().references('users.id');
    table.date('business_date').notNullable();
    table.string('status', 10).notNullable().defaultTo('open');
    table.jsonb('opening_count').notNullable();
    table.decimal('opening_total', 18, 0).notNullable();
    table.decimal('opening_book_balance', 18, 0).notNullable();
    table.uuid('opening_entry_id').references('journal_entries.id'); // the difference's entry, when there is one
    table.jsonb('closing_count');
    table.decimal('closing_total', 18, 0);
    table.decimal('closing_book_balance', 18, 0);
    table.uuid('closing_entry_id').references('journal_entries.id');
    table.timestamp('opened_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('closed_at', { useTz: true });
    table.uuid('closed_by').references('users.id');
    table.check(`status IN ('open', 'closed')`, [], 'till_sessions_status_known');
    table.check(`(status = 'closed') = (closed_at IS NOT NULL AND closing_total IS NOT NULL)`, [], 'till_sessions_closed_with_count');
    table.index(['branch_id', 'business_date'], 'till_sessions_branch_date');
  });
  await knex.raw(`CREATE UNIQUE INDEX till_sessions_one_open ON till_sessions (till_id) WHERE status = 'open'`);
  await knex.raw(`CREATE INDEX till_sessions_open_by_cashier ON till_sessions (branch_id, cashier_id) WHERE status = 'open'`);
  await touchUpdatedAtOnUpdate(knex, 'till_sessions');

  for (const name of ['functions/coopbank_cash_account', 'functions/coopbank_record_event', 'triggers/coopbank_open_branch_vault']) await applySqlSource(knex, name);
  await knex.raw('CREATE TRIGGER branches_open_vault AFTER INSERT ON branches FOR EACH ROW EXECUTE FUNCTION coopbank_open_branch_vault()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER branches_open_vault ON branches');
  await knex.raw('DROP FUNCTION coopbank_open_branch_vault()');
  await knex.schema.dropTable('till_sessions');
  await knex.schema.dropTable('tills');
  await knex.raw('DROP FUNCTION coopbank_cash_account(uuid, uuid, text)');
}
