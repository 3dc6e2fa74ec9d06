import type { Knex } from 'knex';
import { applySqlSource } from '../migration-helpers';

/**
 * Issue 32, the distributable schema (docs/scaling.md §4): the tables whose rows belong to an enterprise only
 * through their parent carry `enterprise_id` themselves, copied from that parent, so that each of their keys and
 * foreign keys can include it (the next migration) and a distributed database keeps a row beside its parent.
 * No foreign key to `enterprises`: the composite foreign key to the parent (next migration) already holds the
 * column to an existing enterprise, and the hottest of these tables (`journal_lines`) pays for every check.
 * Each child: its parent and the column that names the parent. coopbank_post_entry gives the lines their column.
 */
const children: Record<string, { parent: string; by: string }> = {
  journal_lines: { parent: 'journal_entries', by: 'entry_id' },
  loan_installments: { parent: 'loans', by: 'loan_id' },
  loan_schedule_versions: { parent: 'loans', by: 'loan_id' },
  loan_application_decisions: { parent: 'loan_applications', by: 'application_id' },
  guarantee_revaluations: { parent: 'loan_guarantees', by: 'guarantee_id' },
  manual_entry_lines: { parent: 'manual_entries', by: 'manual_entry_id' },
  recurring_entry_lines: { parent: 'recurring_entries', by: 'recurring_entry_id' },
  recurring_entry_proposals: { parent: 'recurring_entries', by: 'recurring_entry_id' },
  supplier_invoice_lines: { parent: 'supplier_invoices', by: 'invoice_id' },
  supplier_payment_allocations: { parent: 'supplier_payments', by: 'payment_id' },
  bank_statement_lines: { parent: 'bank_statements', by: 'statement_id' },
  fixed_asset_depreciations: { parent: 'fixed_assets', by: 'asset_id' },
  standing_order_runs: { parent: 'standing_orders', by: 'standing_order_id' },
  governance_members: { parent: 'governance_organs', by: 'organ_id' },
  event_replay_results: { parent: 'event_replay_requests', by: 'request_id' },
  end_of_day_steps: { parent: 'end_of_day_runs', by: 'run_id' },
  month_end_steps: { parent: 'month_end_runs', by: 'run_id' },
  month_end_entries: { parent: 'month_end_runs', by: 'run_id' },
  exercice_closing_entries: { parent: 'exercice_closings', by: 'closing_id' },
  result_allocation_entries: { parent: 'result_allocations', by: 'allocation_id' },
  reporting_pack_files: { parent: 'reporting_packs', by: 'pack_id' },
  import_files: { parent: 'imports', by: 'import_id' },
  import_rows: { parent: 'imports', by: 'import_id' },
  import_problems: { parent: 'imports', by: 'import_id' },
  import_tie_outs: { parent: 'imports', by: 'import_id' },
  import_batches: { parent: 'imports', by: 'import_id' },
};

export async function up(knex: Knex): Promise<void> {
  for (const [child, { parent, by }] of Object.entries(children)) {
    await knex.raw('ALTER TABLE ?? ADD COLUMN enterprise_id uuid', [child]);
    // One UPDATE … FROM per table, the parent joined once: journal_lines is the biggest table of all.
    await knex.raw('UPDATE ?? c SET enterprise_id = p.enterprise_id FROM ?? p WHERE p.id = c.??', [child, parent, by]);
    await knex.raw('ALTER TABLE ?? ALTER COLUMN enterprise_id SET NOT NULL', [child]);
  }
  await applySqlSource(knex, 'functions/coopbank_post_entry');
}

export async function down(knex: Knex): Promise<void> {
  // coopbank_post_entry keeps giving the lines the column (its file's text is the newest): restore a backup instead.
  for (const child of Object.keys(children)) await knex.raw('ALTER TABLE ?? DROP COLUMN enterprise_id', [child]);
}
