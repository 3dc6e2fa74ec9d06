import type { Knex } from 'knex';

/**
 * Issue 31, an imported account's opening balance (docs/domain.md §15.1): the balance the old system gave at the
 * cut-over, kept on the account. No event of the account posts it (the branch's opening entry carries it with the
 * others), so the statement, the reconciliation and the interest read it as the account's first movement.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('comptes_clients', (table) => {
    table.decimal('opening_balance', 20, 0);
    table.check('opening_balance IS NULL OR (import_id IS NOT NULL AND opening_balance >= 0)', [], 'comptes_clients_opening_balance_imported');
  });
  // Accounts already imported: their balance less what the ledger moved on them since is what came in. A
  // cancelled import's accounts were closed at zero and show nothing: they keep none.
  await knex.raw(`UPDATE comptes_clients a SET opening_balance = a.balance - coalesce((
      SELECT sum(l.credit - l.debit) FROM journal_lines l
      JOIN journal_entries e ON e.id = l.entry_id
      JOIN business_event_logs ev ON ev.id = e.event_id
      JOIN savings_products p ON p.id = a.product_id
      JOIN company_chart_entries c ON c.id = l.chart_entry_id AND c.code = p.deposit_account_code
      WHERE ev.subject_id = a.id), 0)
    FROM imports i WHERE i.id = a.import_id AND i.status <> 'cancelled'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('comptes_clients', (table) => {
    table.dropChecks(['comptes_clients_opening_balance_imported']);
    table.dropColumn('opening_balance');
  });
}
