import type { Knex } from 'knex';
import {
  editableStatuses,
  linesByBranch,
  openingLines,
  reversedLines,
  type DraftLine,
  type ManualJournal,
} from '../../domain/accounting/manual-entries';
import type { IsoDate } from '../../domain/calendar';
import { AppError, NotFoundError, ValidationError } from '../../domain/errors';
import { Money, formatAmount } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { changedValues, recordAudit } from '../audit';
import type { Actor, DataContext, Requester } from '../context';
import { postJournalEntry } from '../events/post-entry';
import { checkDraft, checkPostable } from './manual-entry-checks';

/**
 * Manual journal entries (docs/architecture.md §4, docs/domain.md §12.1): an accountant drafts, edits, cancels and
 * submits; a second person's approval posts it (`manual_entry.post`, activities/approvals/operations.ts), one
 * journal entry per branch through `coopbank_post_entry`; a rejection or an expiry sends it back. Each change is one
 * transaction with its audit row.
 */

export interface ManualEntryFields {
  journal: ManualJournal;
  entryDate: IsoDate;
  reference: string;
  label: string;
  lines: DraftLine[];
}

export interface NewManualEntry extends ManualEntryFields {
  enterpriseId: string;
  kind: 'standard' | 'opening';
  reversesId?: string;
  /** The go-live import whose opening entry this is (or its reversal): docs/domain.md §15.1. */
  importId?: string | null;
}

export interface ManualEntryRow {
  id: string;
  enterprise_id: string;
  branch_id: string | null;
  kind: 'standard' | 'opening';
  journal_code: ManualJournal;
  entry_date: string;
  reference: string;
  label: string;
  status: string;
  version: number;
  reverses_id: string | null;
  approval_request_id: string | null;
  import_id: string | null;
}

/** The one branch of all the lines, else null: where the entry is seen and who approves it. */
export const branchOfLines = (lines: readonly Pick<DraftLine, 'branchId'>[]): string | null => {
  const branches = new Set(lines.map((line) => line.branchId));
  return branches.size === 1 ? [...branches][0]! : null;
};

const lineRows = (enterpriseId: string, entryId: string, lines: readonly DraftLine[]) =>
  lines.map((line, position) => ({
    enterprise_id: enterpriseId,
    manual_entry_id: entryId,
    position,
    account_code: line.account,
    branch_id: line.branchId,
    debit: formatAmount(line.debit),
    credit: formatAmount(line.credit),
    label: line.label,
  }));

/** The lines of an entry, in order. */
async function manualEntryLines(
  knex: Knex | Knex.Transaction,
  entryId: string,
): Promise<(DraftLine & { journalEntryId: string | null })[]> {
  const rows = await knex('manual_entry_lines')
    .where({ manual_entry_id: entryId })
    .orderBy('position')
    .select('account_code', 'branch_id', 'debit', 'credit', 'label', 'journal_entry_id');
  return rows.map((row: Record<string, string>) => ({
    account: row.account_code!,
    branchId: row.branch_id!,
    debit: new Money(row.debit!),
    credit: new Money(row.credit!),
    label: row.label ?? null,
    journalEntryId: row.journal_entry_id ?? null,
  }));
}

async function lockEntry(trx: Knex.Transaction, id: string): Promise<ManualEntryRow> {
  const row = (await trx('manual_entries').where({ id }).forUpdate().first()) as ManualEntryRow | undefined;
  if (row === undefined) throw new NotFoundError('The manual entry');
  return row;
}

function assertEditable(row: ManualEntryRow): void {
  if (!editableStatuses.includes(row.status as never))
    throw new AppError(
      'conflict',
      'manual_entry_not_editable',
      `The entry is ${row.status}: only a draft or a rejected entry changes.`,
    );
}

/**
 * Opening balances are the enterprise's once: a second opening entry is refused while one stands, posted and not
 * reversed by a posted reversal (a wrong opening balance sheet is reversed, then drafted again).
 */
async function assertNoPostedOpening(trx: Knex.Transaction, enterpriseId: string): Promise<void> {
  if (
    (await trx('manual_entries')
      .where({ enterprise_id: enterpriseId, kind: 'opening', status: 'posted', reversed_at: null })
      .first('id')) !== undefined
  ) {
    throw new AppError(
      'conflict',
      'opening_entry_exists',
      'The enterprise already has a posted opening entry: correct it by a reversing entry.',
    );
  }
}

/**
 * The author is the person asking, or null: the system, for the draft the recurring entries' Schedule proposes
 * (docs/domain.md §12.7). Whoever submits the draft is the maker of its request, whom the four eyes exclude.
 */
export async function createManualEntry(
  context: DataContext,
  actor: Requester | null,
  entry: NewManualEntry,
): Promise<string> {
  return inTransaction(context.knex, async (trx) => {
    if (entry.kind === 'opening') await assertNoPostedOpening(trx, entry.enterpriseId);
    await checkDraft(trx, context.clock(), entry);
    const [created] = await trx('manual_entries')
      .insert({
        enterprise_id: entry.enterpriseId,
        branch_id: branchOfLines(entry.lines),
        kind: entry.kind,
        journal_code: entry.journal,
        entry_date: entry.entryDate,
        reference: entry.reference,
        label: entry.label,
        reverses_id: entry.reversesId ?? null,
        import_id: entry.importId ?? null,
        created_by: actor?.userId ?? null,
        updated_by: actor?.userId ?? null,
      })
      .returning('id');
    const id = created.id as string;
    await trx('manual_entry_lines').insert(lineRows(entry.enterpriseId, id, entry.lines));
    await recordAudit(trx, actor, {
      action: 'manual_entry.create',
      entityType: 'manual_entry',
      entityId: id,
      enterpriseId: entry.enterpriseId,
      details: {
        kind: entry.kind,
        journal: entry.journal,
        entry_date: entry.entryDate,
        reference: entry.reference,
        lines: entry.lines.length,
        reverses: entry.reversesId ?? null,
      },
    });
    return id;
  });
}

/** An opening draft's lines are its trial balance: the suspense line is made again from them. */
async function linesToStore(trx: Knex.Transaction, row: ManualEntryRow, lines: DraftLine[]): Promise<DraftLine[]> {
  if (row.kind !== 'opening') return lines;
  return openingLines(lines, await openingSuspenseAccount(trx, row.enterprise_id));
}

async function openingSuspenseAccount(knex: Knex | Knex.Transaction, enterpriseId: string): Promise<string> {
  return (
    await knex('enterprise_configurations')
      .where({ enterprise_id: enterpriseId })
      .first('opening_suspense_account_code')
  ).opening_suspense_account_code as string;
}

/** Changes a draft (or a rejected entry, which becomes a draft again): the fields sent, the lines whole. */
export async function updateManualEntry(
  context: DataContext,
  actor: Actor,
  id: string,
  changes: Partial<ManualEntryFields>,
): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const row = await lockEntry(trx, id);
    assertEditable(row);
    const lines =
      changes.lines === undefined ? await manualEntryLines(trx, id) : await linesToStore(trx, row, changes.lines);
    const entryDate =
      row.kind === 'opening' && changes.entryDate !== undefined
        ? await openingDate(trx, row.enterprise_id, changes.entryDate)
        : (changes.entryDate ?? row.entry_date);
    await checkDraft(trx, context.clock(), { enterpriseId: row.enterprise_id, entryDate, lines });
    const [updated] = await trx('manual_entries')
      .where({ id })
      .update({
        journal_code: row.kind === 'opening' ? 'AN' : (changes.journal ?? row.journal_code),
        entry_date: entryDate,
        reference: changes.reference ?? row.reference,
        label: changes.label ?? row.label,
        branch_id: branchOfLines(lines),
        status: 'draft',
        version: row.version + 1,
        updated_by: actor.userId,
      })
      .returning('*');
    if (changes.lines !== undefined) {
      await trx('manual_entry_lines').where({ manual_entry_id: id }).delete();
      await trx('manual_entry_lines').insert(lineRows(row.enterprise_id, id, lines));
    }
    const { lines: _lines, ...fields } = changes;
    const columns = {
      journal: 'journal_code',
      entryDate: 'entry_date',
      reference: 'reference',
      label: 'label',
    } as const;
    const changed = Object.fromEntries(
      Object.entries(fields).map(([field]) => [columns[field as keyof typeof columns], true]),
    );
    await recordAudit(trx, actor, {
      action: 'manual_entry.update',
      entityType: 'manual_entry',
      entityId: id,
      enterpriseId: row.enterprise_id,
      details: { lines_changed: changes.lines !== undefined, version: row.version + 1 },
      ...changedValues(changed, row, updated as ManualEntryRow),
    });
  });
}

/** A draft withdrawn: kept, cancelled, never posted. */
export async function cancelManualEntry(context: DataContext, actor: Actor, id: string): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const row = await lockEntry(trx, id);
    assertEditable(row);
    await trx('manual_entries').where({ id }).update({ status: 'cancelled', updated_by: actor.userId });
    await recordAudit(trx, actor, {
      action: 'manual_entry.cancel',
      entityType: 'manual_entry',
      entityId: id,
      enterpriseId: row.enterprise_id,
      details: { status_before: row.status },
    });
  });
}

/**
 * Everyone who wrote the entry (its author and each editor, the audit trail's actors of its creation and changes):
 * none of them validates it, whoever submits it. A draft the Schedule proposed has no author until a person edits it.
 */
export async function manualEntryMakers(knex: Knex, id: string): Promise<string[]> {
  return knex('audit_events')
    .where({ entity_type: 'manual_entry', entity_id: id })
    .whereIn('action', ['manual_entry.create', 'manual_entry.update'])
    .whereNotNull('actor_id')
    .distinct('actor_id')
    .pluck('actor_id');
}

/** The submission's request is open: the entry waits for it, no longer editable. */
export async function markManualEntrySubmitted(
  context: DataContext,
  actor: Actor,
  input: { id: string; version: number; requestId: string },
): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const row = await lockEntry(trx, input.id);
    if (row.version !== input.version || !editableStatuses.includes(row.status as never)) return;
    await trx('manual_entries').where({ id: input.id }).update({
      status: 'submitted',
      approval_request_id: input.requestId,
      rejection_reason: null,
      updated_by: actor.userId,
    });
    await recordAudit(trx, actor, {
      action: 'manual_entry.submit',
      entityType: 'manual_entry',
      entityId: input.id,
      enterpriseId: row.enterprise_id,
      details: { request: input.requestId, version: input.version },
    });
  });
}

/**
 * The executor of `manual_entry.post`: run as the maker when the request is opened (and rolled back: its refusals
 * answer the submission), then on approval in the decision's transaction. Posts the version submitted, checked
 * again, one journal entry per branch in the entry's journal, each line given its entry.
 */
export async function postManualEntry(
  context: DataContext,
  maker: Actor,
  payload: { manualEntryId: string; version: number },
): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const row = await lockEntry(trx, payload.manualEntryId);
    if (row.version !== payload.version)
      throw new AppError(
        'conflict',
        'manual_entry_changed',
        'The entry was changed after it was submitted: submit it again.',
      );
    if (![...editableStatuses, 'submitted'].includes(row.status))
      throw new AppError('conflict', 'manual_entry_not_editable', `The entry is ${row.status}.`);
    if (row.kind === 'opening') await assertNoPostedOpening(trx, row.enterprise_id);
    const lines = await manualEntryLines(trx, row.id);
    await checkPostable(trx, context.clock(), {
      enterpriseId: row.enterprise_id,
      entryDate: row.entry_date,
      lines,
      importId: row.import_id,
    });
    const reversed =
      row.reverses_id === null ? new Map<string, string>() : await postedEntriesByBranch(trx, row.reverses_id);
    for (const [branchId, branchLines] of linesByBranch(lines)) {
      const entryId = await postJournalEntry(trx, {
        enterpriseId: row.enterprise_id,
        branchId,
        entryDate: row.entry_date,
        lines: branchLines,
        description: `${row.reference} ${row.label}`.slice(0, 500),
        journal: row.journal_code,
        reversesEntryId: reversed.get(branchId),
        createdBy: maker.userId,
      });
      await trx('manual_entry_lines')
        .where({ manual_entry_id: row.id, branch_id: branchId })
        .update({ journal_entry_id: entryId });
    }
    await trx('manual_entries')
      .where({ id: row.id })
      .update({ status: 'posted', posted_at: context.clock(), rejection_reason: null });
    if (row.reverses_id !== null)
      await trx('manual_entries').where({ id: row.reverses_id }).update({ reversed_at: context.clock() });
    await recordAudit(trx, maker, {
      action: 'manual_entry.post',
      entityType: 'manual_entry',
      entityId: row.id,
      enterpriseId: row.enterprise_id,
      details: { version: row.version, request: row.approval_request_id },
    });
  });
}

/** The journal entry each branch's lines of a posted entry made: what its reversal's entries reverse. */
async function postedEntriesByBranch(trx: Knex.Transaction, id: string): Promise<Map<string, string>> {
  const rows = await trx('manual_entry_lines')
    .where({ manual_entry_id: id })
    .whereNotNull('journal_entry_id')
    .distinct('branch_id', 'journal_entry_id');
  return new Map(
    rows.map((row: { branch_id: string; journal_entry_id: string }) => [row.branch_id, row.journal_entry_id]),
  );
}

/**
 * The request of a submission ended without posting (rejected with its reason, expired, or failed): in the
 * transaction that records it, the entry goes back to its maker, `rejected`, editable and resubmittable.
 */
type Closing = { requestId: string; status: string; reason: string | null };

export async function returnManualEntry(
  trx: Knex.Transaction,
  payload: { manualEntryId: string },
  closing: Closing,
): Promise<void> {
  const row = await lockEntry(trx, payload.manualEntryId);
  if (row.status !== 'submitted' || row.approval_request_id !== closing.requestId) return;
  const reason =
    closing.reason ??
    (closing.status === 'expired' ? 'The request expired undecided.' : `The request ${closing.status}.`);
  await trx('manual_entries')
    .where({ id: row.id })
    .update({ status: 'rejected', rejection_reason: reason.slice(0, 500) });
  await recordAudit(trx, null, {
    action: 'manual_entry.return',
    entityType: 'manual_entry',
    entityId: row.id,
    enterpriseId: row.enterprise_id,
    details: { request: closing.requestId, status: closing.status, reason },
  });
}

/**
 * A posted entry is corrected by a reversing entry only: a new draft of the lines swapped, linked, validated like any
 * other.
 */
export async function draftReversal(
  context: DataContext,
  actor: Actor,
  input: { id: string; entryDate: IsoDate; reference: string; label: string | null },
): Promise<string> {
  const original = (await context.knex('manual_entries').where({ id: input.id }).first()) as ManualEntryRow;
  if (original.status !== 'posted')
    throw new AppError(
      'conflict',
      'manual_entry_not_posted',
      `The entry is ${original.status}: only a posted entry is reversed.`,
    );
  if (
    (await context
      .knex('manual_entries')
      .where({ reverses_id: input.id })
      .whereNot({ status: 'cancelled' })
      .first('id')) !== undefined
  ) {
    throw new AppError('conflict', 'manual_entry_reversed', 'The entry already has a reversing entry.');
  }
  const lines = reversedLines(await manualEntryLines(context.knex, input.id)).map(
    ({ account, branchId, debit, credit, label }) => ({ account, branchId, debit, credit, label }),
  );
  return createManualEntry(context, actor, {
    enterpriseId: original.enterprise_id,
    kind: 'standard',
    journal: original.journal_code,
    entryDate: input.entryDate,
    reference: input.reference,
    label: input.label ?? `Extourne de ${original.reference}`.slice(0, 200),
    lines,
    reversesId: input.id,
    importId: original.import_id,
  });
}

/** An opening entry's date: the first day of the first open accounting year, or the date given within that year. */
async function openingDate(
  knex: Knex | Knex.Transaction,
  enterpriseId: string,
  given: IsoDate | null,
): Promise<IsoDate> {
  const year = await knex('exercices_comptables')
    .where({ enterprise_id: enterpriseId, status: 'open' })
    .orderBy('start_date')
    .first('start_date', 'end_date', 'code');
  if (year === undefined)
    throw new AppError('conflict', 'no_exercice_for_date', 'The enterprise has no open accounting year to open.', [
      { field: 'entry_date', message: 'no open accounting year' },
    ]);
  const entryDate = given ?? (year.start_date as string);
  if (entryDate < year.start_date || entryDate > year.end_date) {
    throw new ValidationError([
      {
        field: 'entry_date',
        message:
          `must be within the first open accounting year ${year.code as string} ` +
          `(${year.start_date as string} to ${year.end_date as string})`,
      },
    ]);
  }
  return entryDate;
}

/**
 * The opening entry of the day the cooperative starts on Coopbank: its trial balance at the cut-over date (default
 * the first day of its first open year, else a date within that year), in the à-nouveaux journal, each branch's
 * difference on the suspense account the go-live import will justify. Validated like any manual entry.
 */
export async function draftOpeningEntry(
  context: DataContext,
  actor: Actor,
  input: { enterpriseId: string; entryDate: IsoDate | null; reference: string; label: string; balances: DraftLine[] },
): Promise<string> {
  const entryDate = await openingDate(context.knex, input.enterpriseId, input.entryDate);
  const lines = openingLines(input.balances, await openingSuspenseAccount(context.knex, input.enterpriseId));
  return createManualEntry(context, actor, {
    enterpriseId: input.enterpriseId,
    kind: 'opening',
    journal: 'AN',
    entryDate,
    reference: input.reference,
    label: input.label,
    lines,
  });
}
