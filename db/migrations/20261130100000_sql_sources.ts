import type { Knex } from 'knex';
import { applySqlSource } from '../migration-helpers';

/**
 * Every coopbank_* function and trigger function from its file under db/sql (issue 26): until now each was written
 * in the migrations, some several times over, and its current definition had to be pieced together from them.
 * The files hold them as the migrations before this one left them (pg_get_functiondef's text), so this migration
 * changes no behaviour; from now on a change to a function is an edit of its file and a new migration applying it
 * again (docs/architecture.md §4, "SQL sources"; test/db/sql-sources.test.ts holds the database to the files).
 */
const sources = [
  'functions/coopbank_held_amount',
  'functions/coopbank_loan_for_repayment',
  'functions/coopbank_lock_member_account',
  'functions/coopbank_move_cash',
  'functions/coopbank_post_entry',
  'functions/coopbank_record_event',
  'functions/coopbank_refuse',
  'functions/coopbank_unchanged_loan',
  'triggers/coopbank_check_entry_balanced',
  'triggers/coopbank_check_entry_has_lines',
  'triggers/coopbank_check_entry_in_open_exercice',
  'triggers/coopbank_number_entry',
  'triggers/coopbank_refuse_change',
  'triggers/coopbank_refuse_scope_change',
  'triggers/coopbank_reporting_pack_file_immutable',
  'triggers/coopbank_savings_rate_immutable',
  'triggers/coopbank_stored_reporting_pack_unchanged',
  'triggers/coopbank_touch_updated_at',
];

export async function up(knex: Knex): Promise<void> {
  for (const source of sources) await applySqlSource(knex, source);
}

// Nothing to undo: the definitions are the ones the database had before.
export async function down(): Promise<void> {}
