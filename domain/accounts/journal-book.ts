import { formatAmount, Money } from '../money';
import type { ReportColumn, ReportDocument } from './report-document';

/**
 * The journal book (brouillard, docs/architecture.md §10): the entries of a period in date, journal and number
 * order, each with its lines, and the totals of each journal. Made from the lines as they come, in that order.
 */

/** A line of an entry, with what the book prints of its entry (a type, so that it is a report row). */
export type BookLine = {
  entry: string;
  entry_date: string;
  journal: string;
  /** The entry's number as printed (CAI-2026-000042). */
  number: string;
  branch: string | null;
  /** Who posted it; null for the system (a schedule, a workflow step). */
  user: string | null;
  description: string;
  account: string;
  label: string;
  debit: string;
  credit: string;
};

/** A journal's totals over the period. */
export interface JournalTotals {
  journal: string;
  name: string;
  entries: number;
  debit: string;
  credit: string;
}

interface BookEntry {
  id: string;
  date: string;
  journal: string;
  number: string;
  branch: string | null;
  user: string | null;
  description: string;
  debit: string;
  credit: string;
  lines: { account: string; label: string; debit: string; credit: string }[];
}

/** The lines gathered into their entries (they come entry by entry), each with its total debit and credit. */
export async function bookEntries(lines: AsyncIterable<BookLine>): Promise<BookEntry[]> {
  const entries: BookEntry[] = [];
  for await (const line of lines) {
    let entry = entries.at(-1);
    if (entry?.id !== line.entry) {
      entry = {
        id: line.entry,
        date: line.entry_date,
        journal: line.journal,
        number: line.number,
        branch: line.branch,
        user: line.user,
        description: line.description,
        debit: '0',
        credit: '0',
        lines: [],
      };
      entries.push(entry);
    }
    entry.lines.push({ account: line.account, label: line.label, debit: line.debit, credit: line.credit });
    [entry.debit, entry.credit] = [
      formatAmount(new Money(entry.debit).plus(line.debit)),
      formatAmount(new Money(entry.credit).plus(line.credit)),
    ];
  }
  return entries;
}

/** The period's totals over the journals: entries, debit, credit. */
export function bookTotals(journals: readonly JournalTotals[]) {
  return {
    entries: journals.reduce((sum, journal) => sum + journal.entries, 0),
    debit: formatAmount(journals.reduce((sum, journal) => sum.plus(journal.debit), new Money(0))),
    credit: formatAmount(journals.reduce((sum, journal) => sum.plus(journal.credit), new Money(0))),
  };
}

const column = (key: string, title: string, kind: ReportColumn['kind']): ReportColumn => ({ key, title, kind });

/**
 * The book as a ReportDocument: its lines read as they are written (a new pass at each call of `lines`), then the
 * journals' totals.
 */
export function journalBookDocument(
  heading: Omit<ReportDocument, 'title' | 'sheets'>,
  lines: () => AsyncIterable<BookLine>,
  journals: readonly JournalTotals[],
): ReportDocument {
  const totals = bookTotals(journals);
  return {
    ...heading,
    title: 'Brouillard (journal des écritures)',
    sheets: [
      {
        name: 'Écritures',
        columns: [
          column('entry_date', 'Date', 'date'),
          column('journal', 'Journal', 'text'),
          column('number', 'N° de pièce', 'text'),
          column('branch', 'Agence', 'text'),
          column('user', 'Saisi par', 'text'),
          column('description', 'Libellé', 'text'),
          column('account', 'Compte', 'text'),
          column('label', 'Libellé du compte', 'text'),
          column('debit', 'Débit', 'money'),
          column('credit', 'Crédit', 'money'),
        ],
        rows: { [Symbol.asyncIterator]: () => lines()[Symbol.asyncIterator]() },
      },
      {
        name: 'Totaux par journal',
        columns: [
          column('journal', 'Journal', 'text'),
          column('name', 'Intitulé', 'text'),
          column('entries', 'Écritures', 'integer'),
          column('debit', 'Débit', 'money'),
          column('credit', 'Crédit', 'money'),
        ],
        rows: [
          ...journals.map((journal) => ({ ...journal, entries: String(journal.entries) })),
          { journal: '', name: 'Total', entries: String(totals.entries), debit: totals.debit, credit: totals.credit },
        ],
      },
    ],
  };
}
