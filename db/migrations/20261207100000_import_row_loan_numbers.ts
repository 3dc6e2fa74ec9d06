import type { Knex } from 'knex';

/**
 * Issue 31's benchmark at its full size (bench/README.md): the loans' checks look a loan number up among the
 * import's rows (an installment's loan in the loans file, a borrower's installments read by loan number, the
 * loans of a batch applied). Indexed as 20261206500000_import_row_keys indexes the other keys, the expression
 * exactly as the checks write it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX import_rows_loan_number ON import_rows (import_id, kind, (data->>\'loan_number\'))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX import_rows_loan_number');
}
