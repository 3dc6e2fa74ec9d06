import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { reversalOf } from '../../domain/events/journal';
import { Money } from '../../domain/money';
import { postJournalEntry } from './post-entry';

interface PostedEntry {
  id: string;
  enterprise_id: string;
  branch_id: string | null;
  entry_date: IsoDate;
  description: string;
}

/**
 * Posts the reversal of one posted entry on `date`, in its branch and (by the ledger) its journal, linked to it:
 * its lines with debit and credit swapped. The ledger refuses a second reversal of one entry.
 */
export async function reverseEntry(
  trx: Knex.Transaction,
  userId: string | null,
  entry: PostedEntry,
  date: IsoDate,
  reason: string,
): Promise<string> {
  const lines = await trx('journal_lines as l')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('l.entry_id', entry.id)
    .orderBy('l.id')
    .select('c.code', 'l.debit', 'l.credit');
  return postJournalEntry(trx, {
    enterpriseId: entry.enterprise_id,
    branchId: entry.branch_id,
    entryDate: date,
    lines: reversalOf(
      lines.map((line) => ({ account: line.code, debit: new Money(line.debit), credit: new Money(line.credit) })),
    ),
    description: `${reason}: contrepassation de « ${entry.description} »`.slice(0, 500),
    reversesEntryId: entry.id,
    createdBy: userId,
  });
}

/** The entries whose ids a query gives, as `reverseEntry` reads them. */
export const postedEntries = (trx: Knex.Transaction, entryIds: Knex.QueryBuilder): Promise<PostedEntry[]> =>
  trx('journal_entries as e')
    .whereIn('e.id', entryIds)
    .orderBy([{ column: 'e.entry_date', order: 'desc' }, { column: 'e.id' }])
    .select('e.id', 'e.enterprise_id', 'e.branch_id', 'e.entry_date', 'e.description');

/**
 * Reverses posted entries (`entryIds`: a query of their ids), each on its own date and branch, the latest first
 * (a later year's entries go first: their year must still be open), never deleting a posted row: a correction is
 * a reversing entry (docs/architecture.md §4).
 */
export async function reverseEntries(
  trx: Knex.Transaction,
  userId: string | null,
  entryIds: Knex.QueryBuilder,
  reason: string,
): Promise<void> {
  for (const entry of await postedEntries(trx, entryIds))
    await reverseEntry(trx, userId, entry, entry.entry_date, reason);
}
