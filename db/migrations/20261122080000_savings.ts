import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/** Savings products, members' accounts (CompteClient), and the link from an event to the account it moved. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('savings_products', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.string('code', 20).notNullable();
    table.string('name', 200).notNullable();
    table.string('kind', 20).notNullable();
    table.decimal('minimum_opening_balance', 20, 0).notNullable().defaultTo(0);
    table.decimal('minimum_balance', 20, 0).notNullable().defaultTo(0);
    table.boolean('withdrawals_allowed').notNullable().defaultTo(true);
    table.decimal('interest_rate', 9, 6).notNullable().defaultTo(0);
    // The chart account holding the product's deposits: the `member_deposits` role of its events.
    table.string('deposit_account_code', 12).notNullable();
    table.boolean('is_active').notNullable().defaultTo(true);
    table.unique(['enterprise_id', 'code'], { indexName: 'savings_products_code_unique' });
    table.check(`kind IN ('demand_deposit', 'term_deposit', 'blocked_savings')`, [], 'savings_products_kind_known');
    table.check('minimum_opening_balance >= 0 AND minimum_balance >= 0', [], 'savings_products_minimums_positive');
    table.check('interest_rate >= 0 AND interest_rate <= 1', [], 'savings_products_rate_range');
  });
  await touchUpdatedAtOnUpdate(knex, 'savings_products');

  await knex.schema.createTable('comptes_clients', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('client_id').notNullable().references('client_profiles.id');
    table.uuid('product_id').notNullable().references('savings_products.id');
    table.string('number', 40).notNullable();
    table.string('status', 10).notNullable().defaultTo('open');
    // Kept by the deposit and withdrawal activities in the transaction of their posting; the reconciliation
    // endpoint proves it equals the ledger.
    table.decimal('balance', 20, 0).notNullable().defaultTo(0);
    table.date('opened_on').notNullable();
    table.date('closed_on');
    table.uuid('opened_by').references('users.id');
    table.unique(['enterprise_id', 'number'], { indexName: 'comptes_clients_number_unique' });
    table.check(`status IN ('open', 'frozen', 'closed')`, [], 'comptes_clients_status_known');
    table.check('balance >= 0', [], 'comptes_clients_no_overdraft');
    table.check(`status <> 'closed' OR balance = 0`, [], 'comptes_clients_closed_empty');
  });
  await knex.raw('CREATE INDEX comptes_clients_client ON comptes_clients (client_id)');
  await touchUpdatedAtOnUpdate(knex, 'comptes_clients');

  // What an event is about (a CompteClient for deposits and withdrawals, a loan later): statements and the
  // reconciliation find an account's ledger movements through it.
  await knex.schema.alterTable('business_event_logs', (table) => {
    table.uuid('subject_id');
    table.index(['subject_id', 'created_at'], 'business_event_logs_subject');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('business_event_logs', (table) => table.dropColumn('subject_id'));
  await knex.schema.dropTable('comptes_clients');
  await knex.schema.dropTable('savings_products');
}
