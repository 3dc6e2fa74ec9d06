import type { Knex } from 'knex';
import { assertBalanced, type JournalLine } from '../../domain/events/journal';
import type { IsoDate } from '../../domain/calendar';
import { AppError } from '../../domain/errors';
import { formatAmount } from '../../domain/money';
import { postableAccounts } from './accounts';

export interface EntryDraft {
  enterpriseId: string;
  branchId: string | null;
  entryDate: IsoDate;
  lines: readonly JournalLine[];
  description: string;
  eventId?: string;
  ruleConfigId?: string;
  reversesEntryId?: string;
  createdBy: string | null;
}

/**
 * Posts one balanced journal entry in the caller's transaction: accounts postable, the date inside an open
 * accounting year of the enterprise. The year row is key-share locked, so a concurrent closing (FOR UPDATE)
 * waits for this posting to commit (and a posting waits for a closing), while postings do not wait for each other.
 */
export async function postJournalEntry(trx: Knex.Transaction, draft: EntryDraft): Promise<string> {
  assertBalanced(draft.lines);
  const accounts = await postableAccounts(trx, draft.enterpriseId, draft.lines.map((line) => line.account));
  const exercice = await trx('exercices_comptables')
    .where({ enterprise_id: draft.enterpriseId })
    .where('start_date', '<=', draft.entryDate)
    .where('end_date', '>=', draft.entryDate)
    .forKeyShare()

    .first('id', 'code', 'status');
  if (exercice === undefined) {
    throw new AppError('conflict', 'no_exercice_for_date', `No accounting year of the enterprise covers ${draft.entryDate}.`);
  }
  if (exercice.status !== 'open') {
    throw new AppError('conflict', 'exercice_closed', `The accounting year ${exercice.code} is closed: nothing more can be posted to ${draft.entryDate}.`);
  }
  const [entry] = await trx('journal_entries')
    .insert({
      enterprise_id: draft.enterpriseId,
      exercice_id: exercice.id,
      branch_id: draft.branchId,
      entry_date: draft.entryDate,
      event_id: draft.eventId ?? null,
      rule_config_id: draft.ruleConfigId ?? null,
      reverses_entry_id: draft.reversesEntryId ?? null,
      description: draft.description,
      created_by: draft.createdBy,
    })
    .returning('id');
  await trx('journal_lines').insert(
    draft.lines.map((line) => ({
      entry_id: entry.id,
      chart_entry_id: accounts.get(line.account)!.id,
      debit: formatAmount(line.debit),
      credit: formatAmount(line.credit),
    })),
  );
  return entry.id as string;
}
