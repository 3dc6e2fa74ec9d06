import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * Issue 28, suppliers and expenses (docs/domain.md §12.5): each supplier is its own sub-account of 40110
 * (fournisseurs, dettes en compte hors réseau), its invoices credit it and its payments debit it. The rows keep
 * the detail the ledger has not: which invoice a payment settles, so a supplier's open items sum to its account.
 * Invoices, their lines, payments and allocations are append-only, as the entries they posted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('suppliers', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').references('branches.id'); // null: a supplier of the whole enterprise
    table.string('name', 200).notNullable();
    table.string('tax_id', 40); // NIU (numéro d'identifiant unique) of the tax administration
    table.text('contact');
    table.uuid('chart_entry_id').notNullable().unique().references('company_chart_entries.id');
    table.string('account_code', 12).notNullable();
    table.boolean('is_active').notNullable().defaultTo(true);
    table.uuid('created_by').references('users.id');
    table.index(['enterprise_id', 'name']);
  });
  await knex.raw('CREATE UNIQUE INDEX suppliers_tax_id_unique ON suppliers (enterprise_id, tax_id) WHERE tax_id IS NOT NULL');
  await touchUpdatedAtOnUpdate(knex, 'suppliers');

  await knex.schema.createTable('supplier_invoices', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('supplier_id').notNullable().references('suppliers.id');
    table.string('number', 60).notNullable();
    table.date('invoice_date').notNullable();
    table.date('due_date').notNullable();
    table.string('label', 200).notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.uuid('entry_id').notNullable().references('journal_entries.id');
    table.uuid('recorded_by').notNullable().references('users.id');
    table.unique(['supplier_id', 'number'], { indexName: 'supplier_invoices_number_unique' });
    table.check('amount > 0', [], 'supplier_invoices_amount_positive');
    table.check('due_date >= invoice_date', [], 'supplier_invoices_due_after_date');
    table.index(['enterprise_id', 'invoice_date']);
  });
  await knex.schema.createTable('supplier_invoice_lines', (table) => {
    table.uuid('invoice_id').notNullable().references('supplier_invoices.id');
    table.smallint('position').notNullable();
    table.string('account_code', 12).notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.string('label', 200).notNullable();
    table.primary(['invoice_id', 'position']);
    table.check('amount > 0', [], 'supplier_invoice_lines_amount_positive');
  });

  await knex.schema.createTable('supplier_payments', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('supplier_id').notNullable().references('suppliers.id');
    table.date('payment_date').notNullable();
    table.decimal('amount', 20, 0).notNullable();
    table.string('paying_account_code', 12).notNullable();
    table.string('reference', 100).notNullable().defaultTo('');
    table.uuid('entry_id').notNullable().references('journal_entries.id');
    table.uuid('recorded_by').notNullable().references('users.id');
    // The maker's Idempotency-Key: a retry after the approval answers this payment (docs/architecture.md §4).
    table.string('idempotency_key', 100);
    table.check('amount > 0', [], 'supplier_payments_amount_positive');
    table.index(['enterprise_id', 'payment_date']);
  });
  await knex.raw('CREATE UNIQUE INDEX supplier_payments_idempotency_unique ON supplier_payments (enterprise_id, recorded_by, idempotency_key) WHERE idempotency_key IS NOT NULL');
  await knex.schema.createTable('supplier_payment_allocations', (table) => {
    table.uuid('payment_id').notNullable().references('supplier_payments.id');
    table.uuid('invoice_id').notNullable().references('supplier_invoices.id');
    table.decimal('amount', 20, 0).notNullable();
    table.primary(['payment_id', 'invoice_id']);
    table.index(['invoice_id']);
    table.check('amount > 0', [], 'supplier_payment_allocations_amount_positive');
  });
  for (const table of ['supplier_invoices', 'supplier_invoice_lines', 'supplier_payments', 'supplier_payment_allocations']) {
    await knex.raw('CREATE TRIGGER ?? BEFORE UPDATE OR DELETE ON ?? FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()', [`${table}_append_only`, table]);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['supplier_payment_allocations', 'supplier_payments', 'supplier_invoice_lines', 'supplier_invoices', 'suppliers']) await knex.schema.dropTable(table);
}
