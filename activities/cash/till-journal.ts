import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { formatAmount, Money } from '../../domain/money';
import { tillSessionsQuery, type TillSessionRow } from './tills.queries';

/**
 * The till journal (brouillard de caisse, issue 29, docs/domain.md §13.1): every line posted on a till's account,
 * with the sessions' opening and closing counts and their differences. For one session (the lines of its till
 * from its opening to its close), or for a branch's business date (the lines of its tills and its vault dated on it).
 */

export interface TillJournalLine {
  entry: string;
  number: string;
  created_at: Date;
  till_code: string;
  account: string;
  description: string;
  /** What the line moved in the till: debit less credit, negative for cash out. */
  amount: string;
  actor: string | null;
}

export interface TillJournal {
  sessions: TillSessionRow[];
  lines: TillJournalLine[];
  /** Cash in (the lines' debits) and out (their credits), in whole francs. */
  totals: { cash_in: string; cash_out: string };
}

function withTotals(sessions: TillSessionRow[], lines: TillJournalLine[]): TillJournal {
  const amounts = lines.map((line) => new Money(line.amount));
  const cashIn = amounts
    .filter((amount) => amount.isPositive())
    .reduce((sum, amount) => sum.plus(amount), new Money(0));
  const cashOut = amounts
    .filter((amount) => amount.isNegative())
    .reduce((sum, amount) => sum.minus(amount), new Money(0));
  return { sessions, lines, totals: { cash_in: formatAmount(cashIn), cash_out: formatAmount(cashOut) } };
}

/**
 * Lines on tills' (and vaults') accounts in their own branch, with their entry's number and author, in posting order.
 */
function linesQuery(knex: Knex): Knex.QueryBuilder {
  return knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .join('tills as t', (join) =>
      join
        .on('t.enterprise_id', 'e.enterprise_id')
        .andOn('t.account_code', 'c.code')
        .andOn('t.branch_id', 'e.branch_id'),
    )
    .leftJoin('journal_entry_numbers as n', 'n.entry_id', 'e.id')
    .orderBy([{ column: 'e.created_at' }, { column: 'n.number' }, { column: 'l.id' }])
    .select(
      'e.id as entry',
      knex.raw("COALESCE(e.journal_code || '-' || lpad(n.number::text, 6, '0'), '') AS number"),
      'e.created_at',
      't.code as till_code',
      'c.code as account',
      'e.description',
      knex.raw('(l.debit - l.credit)::text AS amount'),
      'e.created_by as actor',
    );
}

/** One session's journal: its till's lines from its opening to its close (or now, while it is open). */
export async function sessionJournal(knex: Knex, session: TillSessionRow): Promise<TillJournal> {
  // Compared in SQL: the session's times have microseconds, which a JS Date would cut off.
  const lines = await linesQuery(knex)
    .join('till_sessions as s', 's.till_id', 't.id')
    .where('s.id', session.id)
    .whereRaw('e.created_at >= s.opened_at AND (s.closed_at IS NULL OR e.created_at <= s.closed_at)');
  return withTotals([session], lines);
}

/** A branch's day: the lines of its tills and its vault dated on `date`, and the sessions of that business date. */
export async function branchDayJournal(knex: Knex, branchId: string, date: IsoDate): Promise<TillJournal> {
  const lines = await linesQuery(knex).where({ 't.branch_id': branchId, 'e.entry_date': date });
  const sessions = await tillSessionsQuery(knex)
    .where({ 's.branch_id': branchId, 's.business_date': date })
    .orderBy([{ column: 't.code' }, { column: 's.opened_at' }]);
  return withTotals(sessions, lines);
}
