import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * Issue 28, manual journal entries (docs/architecture.md §4, docs/domain.md §12.1): an accountant's draft, its
 * lines, and the journal entries its posting made (one per branch, on each line). A draft is validated by a second
 * person through the four-eyes mechanism; it is never deleted, a cancelled one is kept with its status.
 * `opening_suspense_account_code`: where an opening entry puts the difference the go-live import will justify.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('manual_entries', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    // The one branch of all its lines, else null (the entry is then the whole enterprise's): where it is seen and approved.
    table.uuid('branch_id').references('branches.id');
    table.string('kind', 10).notNullable().defaultTo('standard');
    table.string('journal_code', 6).notNullable().references('journals.code');
    table.date('entry_date').notNullable();
    table.string('reference', 60).notNullable();
    table.string('label', 200).notNullable();
    table.string('status', 10).notNullable().defaultTo('draft');
    // Each edit moves it on: a request carries the version it was made for, so an approval posts what was submitted.
    table.integer('version').notNullable().defaultTo(1);
    table.uuid('reverses_id').references('manual_entries.id');
    table.uuid('approval_request_id').references('approval_requests.id');
    table.string('rejection_reason', 500);
    table.uuid('created_by').notNullable().references('users.id');
    table.uuid('updated_by').notNullable().references('users.id');
    table.timestamp('posted_at', { useTz: true });
    table.check(`kind IN ('standard', 'opening')`, [], 'manual_entries_kind_known');
    table.check(`status IN ('draft', 'submitted', 'posted', 'rejected', 'cancelled')`, [], 'manual_entries_status_known');
    table.check(`(status = 'posted') = (posted_at IS NOT NULL)`, [], 'manual_entries_posted_at');
    table.index(['enterprise_id', 'status', 'entry_date']);
  });
  await touchUpdatedAtOnUpdate(knex, 'manual_entries');
  // One opening balance sheet per enterprise; a posted entry is reversed once.
  await knex.raw(`CREATE UNIQUE INDEX manual_entries_one_opening ON manual_entries (enterprise_id) WHERE kind = 'opening' AND status = 'posted'`);
  await knex.raw(`CREATE UNIQUE INDEX manual_entries_reversed_once ON manual_entries (reverses_id) WHERE reverses_id IS NOT NULL AND status <> 'cancelled'`);

  await knex.schema.createTable('manual_entry_lines', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('manual_entry_id').notNullable().references('manual_entries.id').onDelete('CASCADE');
    table.integer('position').notNullable();
    table.string('account_code', 12).notNullable();
    table.uuid('branch_id').notNullable().references('branches.id');
    table.decimal('debit', 20, 0).notNullable().defaultTo(0);
    table.decimal('credit', 20, 0).notNullable().defaultTo(0);
    table.string('label', 200);
    // The journal entry of the line's branch, once posted.
    table.uuid('journal_entry_id').references('journal_entries.id');
    table.unique(['manual_entry_id', 'position'], { indexName: 'manual_entry_lines_position_unique' });
    table.check('debit >= 0 AND credit >= 0 AND (debit = 0) <> (credit = 0)', [], 'manual_entry_lines_one_side');
  });

  await knex.raw(`ALTER TABLE enterprise_configurations ADD COLUMN opening_suspense_account_code varchar(12) NOT NULL DEFAULT '4780'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE enterprise_configurations DROP COLUMN opening_suspense_account_code');
  await knex.schema.dropTable('manual_entry_lines');
  await knex.schema.dropTable('manual_entries');
}
