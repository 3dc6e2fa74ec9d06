import type { Knex } from 'knex';
import { reversalOf } from '../../domain/events/journal';
import { Money } from '../../domain/money';
import { postJournalEntry } from './post-entry';

/**
 * Reverses posted entries (`entryIds`: a query of their ids), each on its own date and branch, the latest first
 * (a later year's entries go first: their year must still be open), never deleting a posted row: a correction is
 * a reversing entry (docs/architecture.md §4).
 */
export async function reverseEntries(trx: Knex.Transaction, userId: string | null, entryIds: Knex.QueryBuilder, reason: string): Promise<void> {
  const entries = await trx('journal_entries as e')
    .whereIn('e.id', entryIds)
    .orderBy([{ column: 'e.entry_date', order: 'desc' }, { column: 'e.id' }])
    .select('e.id', 'e.enterprise_id', 'e.branch_id', 'e.entry_date', 'e.description');
  for (const entry of entries) {
    const lines = await trx('journal_lines as l').join('company_chart_entries as c', 'c.id', 'l.chart_entry_id').where('l.entry_id', entry.id).orderBy('l.id').select('c.code', 'l.debit', 'l.credit');
    await postJournalEntry(trx, {
      enterpriseId: entry.enterprise_id,
      branchId: entry.branch_id,
      entryDate: entry.entry_date,
      lines: reversalOf(lines.map((line) => ({ account: line.code, debit: new Money(line.debit), credit: new Money(line.credit) }))),
      description: `${reason}: contrepassation de « ${entry.description} »`,
      reversesEntryId: entry.id,
      createdBy: userId,
    });
  }
}
