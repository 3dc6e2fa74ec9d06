import type { Knex } from 'knex';

/**
 * Issue 31, go-live import, the pipeline (docs/domain.md §15.1): the tie-out of each subledger's detail to the trial
 * balance, the dry run, the batches applied (one row each, written with the batch: a batch rerun is a no-op), and
 * the rows the import created, so that cancelling finds them. The statuses of an import's life after validation.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE imports DROP CONSTRAINT imports_status_known');
  await knex.schema.alterTable('imports', (table) => {
    table.check(`status IN ('uploaded', 'validated', 'rejected', 'applying', 'applied', 'cancelled')`, [], 'imports_status_known');
    // What applying would produce, per kind and branch, and the opening balance sheet: written by the dry run.
    table.jsonb('dry_run');
    // Direction's documented reason for accepting the tie-out's differences (posted to the suspense account).
    table.text('accepted_difference_reason');
    table.uuid('accepted_by').references('users.id');
    // Who asked for apply (the maker of its four-eyes request): the author of what applying writes.
    table.uuid('applied_by').references('users.id');
    table.uuid('opening_entry_id').references('manual_entries.id');
    table.jsonb('reconciliation');
    table.timestamp('applied_at', { useTz: true });
    table.timestamp('cancelled_at', { useTz: true });
  });
  // One row per (branch, account) compared: the trial balance's debit − credit, the detail's, their difference.
  await knex.schema.createTable('import_tie_outs', (table) => {
    table.uuid('import_id').notNullable().references('imports.id').onDelete('CASCADE');
    table.string('branch_code', 20).notNullable();
    table.string('account_code', 12).notNullable();
    table.text('what').notNullable();
    table.decimal('trial_balance', 20, 0).notNullable();
    table.decimal('detail', 20, 0).notNullable();
    table.decimal('difference', 20, 0).notNullable();
    table.primary(['import_id', 'branch_code', 'account_code']);
  });
  await knex.schema.createTable('import_batches', (table) => {
    table.uuid('import_id').notNullable().references('imports.id').onDelete('CASCADE');
    table.string('kind', 30).notNullable();
    // The last row number the batch applied: the next batch starts after it.
    table.integer('last_row').notNullable();
    table.integer('rows').notNullable();
    table.timestamp('applied_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['import_id', 'kind', 'last_row']);
  });
  // The import that created the row, so that cancelling it finds what to mark; an opening entry of an import may
  // name subledger accounts, whose detail the same import creates.
  for (const name of ['client_profiles', 'comptes_clients', 'manual_entries']) {
    await knex.schema.alterTable(name, (table) => {
      table.uuid('import_id').references('imports.id');
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const name of ['client_profiles', 'comptes_clients', 'manual_entries']) {
    await knex.schema.alterTable(name, (table) => {
      table.dropColumn('import_id');
    });
  }
  await knex.schema.dropTable('import_batches');
  await knex.schema.dropTable('import_tie_outs');
  await knex.raw('ALTER TABLE imports DROP CONSTRAINT imports_status_known');
  await knex.schema.alterTable('imports', (table) => {
    for (const column of ['dry_run', 'accepted_difference_reason', 'accepted_by', 'applied_by', 'opening_entry_id', 'reconciliation', 'applied_at', 'cancelled_at']) table.dropColumn(column);
    table.check(`status IN ('uploaded', 'validated', 'rejected')`, [], 'imports_status_known');
  });
}
