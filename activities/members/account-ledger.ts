import type { Knex } from 'knex';

/** The kind of an imported account's first movement: its balance at the cut-over (docs/domain.md §15.1). */
const openingBalanceKind = 'import.opening_balance';

/**
 * The movements of members' accounts, as the derived table `m` (account, enterprise_id, entry_date, created_at,
 * line, amount, kind, event, journal_entry, description); the amount is credit minus debit, the member's money (a
 * deposit credits the deposit account). The statement and the reconciliation read them, and the interest computed
 * from an account's balance history (`accountIds`: those accounts' only). Two sources:
 * - the ledger lines on an account's product deposit account, of entries whose event is about this account;
 * - an imported account's opening balance, dated at the cut-over, while its import stands applied. The branch's
 *   opening entry carries it in one line with its branch's other accounts, so no line is the account's own: the
 *   movement names that entry (line 0, first of its day), and no event. A cancelled import's accounts lose it with
 *   the entry's reversal.
 */
export function accountMovements(knex: Knex | Knex.Transaction, accountIds?: readonly string[]) {
  // A set of accounts is filtered in each source: joined from outside, PostgreSQL would read every account's lines.
  const ofAccounts = (query: Knex.QueryBuilder) =>
    accountIds === undefined ? query : query.whereRaw('a.id = ANY(?::uuid[])', [[...accountIds]]);
  const ledger = knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('business_event_logs as ev', 'ev.id', 'e.event_id')
    .join('comptes_clients as a', 'a.id', 'ev.subject_id')
    .join('savings_products as p', 'p.id', 'a.product_id')
    .join('company_chart_entries as c', (join) =>
      join.on('c.id', 'l.chart_entry_id').andOn('c.code', 'p.deposit_account_code'),
    )
    .select(
      'a.id as account',
      'a.enterprise_id',
      'e.entry_date',
      'e.created_at',
      'l.id as line',
      knex.raw('l.credit - l.debit AS amount'),
      'ev.kind',
      'ev.id as event',
      'e.id as journal_entry',
      'e.description',
    );
  const openings = knex('comptes_clients as a')
    .join('imports as i', 'i.id', 'a.import_id')
    .leftJoin('manual_entries as me', 'me.id', 'i.opening_entry_id')
    .where('i.status', 'applied')
    .whereNotNull('a.opening_balance')
    .select(
      'a.id as account',
      'a.enterprise_id',
      'i.cut_over_date as entry_date',
      'a.created_at',
      knex.raw('0::bigint AS line'),
      'a.opening_balance as amount',
      knex.raw('?::text AS kind', [openingBalanceKind]),
      knex.raw('NULL::uuid AS event'),
      knex.raw(`(SELECT ml.journal_entry_id FROM manual_entry_lines ml
        WHERE ml.manual_entry_id = i.opening_entry_id AND ml.branch_id = a.branch_id
        AND ml.journal_entry_id IS NOT NULL LIMIT 1) AS journal_entry`),
      knex.raw(`'Solde d''ouverture à la bascule' || coalesce(' (' || me.reference || ')', '') AS description`),
    );
  return knex.from(ofAccounts(ledger).unionAll(ofAccounts(openings), true).as('m'));
}
