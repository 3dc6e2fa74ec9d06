import type { Knex } from 'knex';

/**
 * Issue 28, suppliers (docs/domain.md §12.5): an invoice or a payment posted by mistake is reversed, never changed.
 * The invoices and payments are append-only, so a reversal is a row of its own, one per invoice or payment, with
 * the entry that reversed the original's. Append-only too. An invoice's number is unique among the invoices not
 * reversed (the corrected invoice is booked again under its number), which the recording checks with the supplier's
 * row locked: a unique index cannot see the reversals' table.
 */
const reversals = [
  { table: 'supplier_invoice_reversals', column: 'invoice_id', reversed: 'supplier_invoices.id' },
  { table: 'supplier_payment_reversals', column: 'payment_id', reversed: 'supplier_payments.id' },
] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE supplier_invoices DROP CONSTRAINT supplier_invoices_number_unique');
  await knex.raw('CREATE INDEX supplier_invoices_number ON supplier_invoices (supplier_id, number)');
  for (const { table, column, reversed } of reversals) {
    await knex.schema.createTable(table, (builder) => {
      builder.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
      builder.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      builder.uuid('enterprise_id').notNullable().references('enterprises.id');
      // Unique: an invoice or a payment is reversed once.
      builder.uuid(column).notNullable().unique().references(reversed);
      builder.date('reversal_date').notNullable();
      builder.string('reason', 500).notNullable();
      builder.uuid('entry_id').notNullable().unique().references('journal_entries.id');
      builder.uuid('reversed_by').notNullable().references('users.id');
    });
    await knex.raw('CREATE TRIGGER ?? BEFORE UPDATE OR DELETE ON ?? FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()', [`${table}_append_only`, table]);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const { table } of [...reversals].reverse()) await knex.schema.dropTable(table);
  await knex.raw('DROP INDEX supplier_invoices_number');
  await knex.raw('ALTER TABLE supplier_invoices ADD CONSTRAINT supplier_invoices_number_unique UNIQUE (supplier_id, number)');
}
