import type { Knex } from 'knex';
import { cursorBatches } from '../../db/cursor';
import type { IsoDate } from '../../domain/calendar';
import {
  bookEntries,
  bookTotals,
  journalBookDocument,
  type BookLine,
  type JournalTotals,
} from '../../domain/accounts/journal-book';
import { refuseLargeJson, type ReportDocument } from '../../domain/accounts/report-document';
import type { StatementScope } from './financial-statements';
import { periodScope, printedEntryNumber } from './general-ledger';
import type { ReportHeading } from './statement-documents';

/**
 * The journal book's reads (docs/architecture.md §10): the entries of a period in a statement's scope, filtered
 * by journal and by the user who posted them; read through a cursor, as the general ledger's movements are.
 */

export interface BookFilter {
  from: IsoDate;
  to: IsoDate;
  journal?: string;
  /** The user who posted the entries. */
  user?: string;
}

/** Entries read per batch, with their lines. */
const batchSize = 2000;

/** The entries of the filter: `e` with its year `y` and number `n`. */
function entriesOf(knex: Knex, scope: StatementScope, filter: BookFilter): Knex.QueryBuilder {
  const entries = knex('journal_entries as e')
    .join('exercices_comptables as y', 'y.id', 'e.exercice_id')
    .join('journal_entry_numbers as n', 'n.entry_id', 'e.id')
    .where('e.enterprise_id', scope.enterpriseId)
    .whereBetween('e.entry_date', [filter.from, filter.to]);
  if (scope.branches !== 'all') entries.whereIn('e.branch_id', [...scope.branches]);
  if (filter.journal !== undefined) entries.where('e.journal_code', filter.journal);
  if (filter.user !== undefined) entries.where('e.created_by', filter.user);
  return entries;
}

type BookEntryRow = Omit<BookLine, 'account' | 'label' | 'debit' | 'credit'>;
type LineRow = Pick<BookLine, 'entry' | 'account' | 'label' | 'debit' | 'credit'>;

/** The lines of some entries, in posting order, by entry: one query through the lines' index on their entry. */
async function linesOf(knex: Knex, entries: readonly BookEntryRow[]): Promise<Map<string, LineRow[]>> {
  const rows: LineRow[] = await knex('journal_lines as l')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .whereIn(
      'l.entry_id',
      entries.map((entry) => entry.entry),
    )
    .orderBy('l.id')
    .select(
      'l.entry_id as entry',
      'c.code as account',
      'c.label',
      knex.raw('l.debit::text AS debit'),
      knex.raw('l.credit::text AS credit'),
    );
  const byEntry = new Map<string, LineRow[]>();
  for (const row of rows) byEntry.set(row.entry, [...(byEntry.get(row.entry) ?? []), row]);
  return byEntry;
}

/**
 * A line with its entry, written out: V8 builds `{ ...entry, ...line }` about a hundred times slower, which a month's
 * book of 240 000 lines pays in seconds.
 */
const bookLine = (entry: BookEntryRow, line: LineRow): BookLine => ({
  entry: entry.entry,
  entry_date: entry.entry_date,
  journal: entry.journal,
  number: entry.number,
  branch: entry.branch,
  user: entry.user,
  description: entry.description,
  account: line.account,
  label: line.label,
  debit: line.debit,
  credit: line.credit,
});

/**
 * The lines in date, journal and number order: the entries sorted once and read through a cursor a batch at a time
 * (db/cursor.ts; sorting entries, not their lines), then each batch's lines by their entries.
 */
async function* bookLines(knex: Knex, scope: StatementScope, filter: BookFilter): AsyncGenerator<BookLine> {
  const entries = entriesOf(knex, scope, filter)
    .leftJoin('branches as b', 'b.id', 'e.branch_id')
    .leftJoin('users as u', 'u.id', 'e.created_by')
    .orderByRaw('e.entry_date, e.journal_code COLLATE "C", n.number')
    .select(
      'e.id as entry',
      'e.entry_date',
      'e.journal_code as journal',
      knex.raw(`${printedEntryNumber('e')} AS number`),
      'b.code as branch',
      'u.username as user',
      'e.description',
    );
  for await (const { rows, trx } of cursorBatches<BookEntryRow>(knex, entries.toSQL(), batchSize)) {
    const lines = await linesOf(trx, rows);
    for (const entry of rows) {
      for (const line of lines.get(entry.entry) ?? []) yield bookLine(entry, line);
    }
  }
}

/** Each journal's entries, debit and credit over the filter, in journal order. */
async function journalTotals(knex: Knex, scope: StatementScope, filter: BookFilter): Promise<JournalTotals[]> {
  const rows = await entriesOf(knex, scope, filter)
    .join('journals as j', 'j.code', 'e.journal_code')
    .join('journal_lines as l', 'l.entry_id', 'e.id')
    .groupBy('e.journal_code', 'j.name')
    .orderByRaw('e.journal_code COLLATE "C"')
    .select(
      'e.journal_code as journal',
      'j.name',
      knex.raw('count(DISTINCT e.id)::int AS entries'),
      knex.raw('sum(l.debit)::text AS debit'),
      knex.raw('sum(l.credit)::text AS credit'),
    );
  return rows as JournalTotals[];
}

/** The most entries a JSON answer holds; a longer book is downloaded (CSV, XLSX), which streams. */
const jsonEntriesMax = 2000;

/**
 * The book as JSON: the entries with their lines, each journal's totals, the period's; 422 when it holds more entries
 * than a JSON answer.
 */
export async function journalBookJson(knex: Knex, scope: StatementScope, filter: BookFilter) {
  const journals = await journalTotals(knex, scope, filter);
  const totals = bookTotals(journals);
  refuseLargeJson({ name: 'journal book', lines: 'entries', count: totals.entries, max: jsonEntriesMax });
  return {
    ...periodScope(scope, filter),
    journal: filter.journal ?? null,
    user: filter.user ?? null,
    entries: await bookEntries(bookLines(knex, scope, filter)),
    journals,
    totals,
  };
}

/** The book as a file: its lines streamed, then the journals' totals. */
export async function journalBookFile(
  knex: Knex,
  scope: StatementScope,
  filter: BookFilter,
  heading: ReportHeading,
): Promise<ReportDocument> {
  return journalBookDocument(
    { ...heading, period: { from: filter.from, to: filter.to } },
    () => bookLines(knex, scope, filter),
    await journalTotals(knex, scope, filter),
  );
}
