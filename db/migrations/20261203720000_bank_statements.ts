import type { Knex } from 'knex';

/**
 * Issue 28, banks (docs/domain.md §12.6): the statements imported from the banks and their lines, each matched
 * to at most one ledger line of the bank account, and a ledger line to at most one statement line.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bank_statements', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('bank_account_id').notNullable().references('bank_accounts.id');
    table.string('file_name', 200).notNullable().defaultTo('');
    table.integer('line_count').notNullable();
    table.uuid('imported_by').notNullable().references('users.id');
  });
  await knex.schema.createTable('bank_statement_lines', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('statement_id').notNullable().references('bank_statements.id');
    table.uuid('bank_account_id').notNullable().references('bank_accounts.id');
    table.integer('position').notNullable();
    table.date('line_date').notNullable();
    table.date('value_date');
    table.string('label', 200).notNullable();
    table.string('reference', 100).notNullable().defaultTo('');
    // From the cooperative's side: positive when money comes in (the bank's credit).
    table.decimal('amount', 20, 0).notNullable();
    table.decimal('balance', 20, 0); // the bank's balance after the line, when the file gives it
    table.bigInteger('journal_line_id').unique().references('journal_lines.id');
    table.string('matched_how', 10); // 'auto' or 'manual'
    table.check('amount <> 0', [], 'bank_statement_lines_amount_not_zero');
    table.unique(['statement_id', 'position']);
    table.index(['bank_account_id', 'line_date']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('bank_statement_lines');
  await knex.schema.dropTable('bank_statements');
}
