import type { Knex } from 'knex';

/**
 * The ledger lines of members' accounts: lines on an account's product deposit account, of entries whose event is
 * about this account. Credit minus debit is the member's money (a deposit credits the deposit account). The
 * statement and the reconciliation read them, and the interest computed from an account's balance history.
 */
export function ledgerMovements(knex: Knex | Knex.Transaction) {
  return knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('business_event_logs as ev', 'ev.id', 'e.event_id')
    .join('comptes_clients as a', 'a.id', 'ev.subject_id')
    .join('savings_products as p', 'p.id', 'a.product_id')
    .join('company_chart_entries as c', (join) => join.on('c.id', 'l.chart_entry_id').andOn('c.code', 'p.deposit_account_code'));
}
