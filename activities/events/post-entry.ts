import type { Knex } from 'knex';
import { assertBalanced, type JournalCode, type JournalLine } from '../../domain/events/journal';
import type { IsoDate } from '../../domain/calendar';
import { formatAmount } from '../../domain/money';
import { ledgerCall } from './ledger-refusal';

export interface EntryDraft {
  enterpriseId: string;
  branchId: string | null;
  entryDate: IsoDate;
  lines: readonly JournalLine[];
  description: string;
  eventId?: string;
  ruleConfigId?: string;
  reversesEntryId?: string;
  /** Where the entry itself does not say (docs/architecture.md §9: a reversal, a kind, its lines). */
  journal?: JournalCode;
  createdBy: string | null;
}

/** The lines as coopbank_post_entry takes them (jsonb, amounts as text), checked balanced first. */
export function ledgerLines(lines: readonly JournalLine[]): { account: string; debit: string; credit: string }[] {
  assertBalanced(lines);
  return lines.map((line) => ({
    account: line.account,
    debit: formatAmount(line.debit),
    credit: formatAmount(line.credit),
  }));
}

/**
 * Posts one balanced journal entry in the caller's transaction, in one statement (coopbank_post_entry): accounts
 * postable, the date inside an open accounting year of the enterprise, else refused with the AppError of the case
 * (account_unknown, account_inactive, account_not_leaf, no_exercice_for_date, exercice_closed). The entry gets its
 * journal and the next number of that journal in its year.
 */
export async function postJournalEntry(trx: Knex.Transaction, draft: EntryDraft): Promise<string> {
  const lines = ledgerLines(draft.lines);
  const posted = await ledgerCall<{ id: string }>(
    trx.raw('SELECT coopbank_post_entry(?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?) AS id', [
      draft.enterpriseId,
      draft.branchId,
      draft.entryDate,
      JSON.stringify(lines),
      draft.description,
      draft.eventId ?? null,
      draft.ruleConfigId ?? null,
      draft.reversesEntryId ?? null,
      draft.createdBy,
      draft.journal ?? null,
    ]),
  );
  return posted.id;
}
