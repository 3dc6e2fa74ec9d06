import type { Knex } from 'knex';
import { AppError } from '../../domain/errors';
import { importKinds, type ImportKind } from '../../domain/imports/templates';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { lockImport } from './imports.activity';
import { importKindSteps } from './kinds';
import { postOpeningEntry, reverseOpeningEntry } from './opening-entries';
import { scopeOf } from './tie-out';

/**
 * Apply and cancel (docs/domain.md §15.1). Apply is the four-eyes operation `import.apply`: approved, the import
 * is `applying` and its workflow applies each kind in batches, then posts the opening entry. A batch is one
 * transaction that records itself in `import_batches`: a batch run again after a crash starts after the last one
 * recorded, so nothing is applied twice. Cancel (`import.cancel`) reverses the opening entry and marks what the
 * kinds created, while nothing else happened in the enterprise since.
 */

/** Rows a batch applies: one transaction each, memory holding one batch. */
const batchRows = 1000;

export interface ImportApplyPayload {
  importId: string;
  /** Direction's reason for accepting the tie-out's differences (posted to the suspense account); null when none. */
  differenceReason: string | null;
}

/** The import's author of what applying writes: who asked for apply, for the audit trail and the entries. */
const applier = (userId: string, importId: string): Actor => ({ userId, grants: [], requestId: `import-${importId}` });

/** Those who uploaded the import's files (and its creator): the maker-checker keeps them from deciding. */
async function uploadersOf(knex: Knex | Knex.Transaction, importId: string): Promise<string[]> {
  const files = (await knex('import_files')
    .where({ import_id: importId })
    .distinct('uploaded_by')
    .pluck('uploaded_by')) as string[];
  const { uploaded_by: creator } = await knex('imports').where({ id: importId }).first('uploaded_by');
  return [...new Set([creator as string, ...files])];
}

async function assertApplicable(
  trx: Knex.Transaction,
  maker: Actor,
  imported: { id: string; enterprise_id: string; status: string },
  reason: string | null,
): Promise<void> {
  if (imported.status !== 'validated')
    throw new AppError(
      'conflict',
      'import_not_validated',
      `The import is ${imported.status}: only a validated import is applied.`,
    );
  // The request's maker is an uploader, so the checker, never the maker, is not (docs/domain.md §15.1).
  if (!(await uploadersOf(trx, imported.id)).includes(maker.userId)) {
    throw new AppError(
      'conflict',
      'import_apply_not_uploader',
      "Apply is asked by one who uploaded the import's files: another person decides.",
    );
  }
  const [{ count }] = (await trx('import_tie_outs')
    .where({ import_id: imported.id })
    .whereNot('difference', 0)
    .count({ count: '*' })) as [{ count: string }];
  if (Number(count) > 0 && reason === null) {
    throw new AppError(
      'conflict',
      'import_tie_out_difference',
      `${count} tie-out pair(s) differ: give the reason direction accepts them for (difference_reason), ` +
        `or correct the files.`,
      [{ field: 'difference_reason', message: 'required while the tie-out shows a difference' }],
    );
  }
  if (
    (await trx('manual_entries')
      .where({ enterprise_id: imported.enterprise_id, kind: 'opening', status: 'posted', reversed_at: null })
      .first('id')) !== undefined
  ) {
    throw new AppError(
      'conflict',
      'opening_entry_exists',
      'The enterprise already has a posted opening entry: an import brings the opening balances itself.',
    );
  }
}

/** The executor of `import.apply`: checked when the request is opened, then on approval the import is `applying`. */
export async function approveImportApply(
  context: DataContext,
  maker: Actor,
  payload: ImportApplyPayload,
): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const imported = await lockImport(trx, payload.importId);
    await assertApplicable(trx, maker, imported, payload.differenceReason);
    await trx('imports')
      .where({ id: imported.id })
      .update({
        status: 'applying',
        applied_by: maker.userId,
        applied_at: trx.fn.now(),
        accepted_difference_reason: payload.differenceReason,
        accepted_by: payload.differenceReason === null ? null : maker.userId,
      });
    await recordAudit(trx, maker, {
      action: 'import.apply',
      entityType: 'import',
      entityId: imported.id,
      enterpriseId: imported.enterprise_id,
      details: { difference_reason: payload.differenceReason },
    });
  });
}

/** The import's status, for its workflow waiting for the apply decision. */
export async function importStatusOf(context: DataContext, importId: string): Promise<string> {
  return (await context.knex('imports').where({ id: importId }).first('status')).status as string;
}

/**
 * The next kind still to apply, in the order of `importKinds`: one with steps to apply and rows after its last
 * recorded batch. Read from the recorded batches, so the workflow's commands do not depend on the list of kinds.
 */
async function nextKindToApply(
  trx: Knex.Transaction,
  importId: string,
): Promise<{ kind: ImportKind; after: number; lastRow: number } | null> {
  for (const kind of importKinds.filter((candidate) => importKindSteps[candidate]?.applyBatch !== undefined)) {
    const { last } = (await trx('import_batches')
      .where({ import_id: importId, kind })
      .max({ last: 'last_row' })
      .first()) as { last: number | null };
    const { lastRow } = (await trx('import_rows')
      .where({ import_id: importId, kind })
      .max({ lastRow: 'row_number' })
      .first()) as { lastRow: number | null };
    if (lastRow !== null && (last ?? 0) < lastRow) return { kind, after: last ?? 0, lastRow };
  }
  return null;
}

/** The next batch of the import, recorded in its own transaction; answers whether every kind is done. */
export async function applyImportBatch(context: DataContext, input: { importId: string }): Promise<{ done: boolean }> {
  return inTransaction(context.knex, async (trx) => {
    const imported = await lockImport(trx, input.importId);
    const next = imported.status === 'applying' ? await nextKindToApply(trx, imported.id) : null;
    if (next === null) return { done: true };
    const { kind, after } = next;
    const { applied_by: userId } = await trx('imports').where({ id: imported.id }).first('applied_by');
    // A kind whose step finds nothing more to apply is recorded as done up to its last row.
    const lastRow =
      (await importKindSteps[kind]!.applyBatch!(
        trx,
        { knex: trx, clock: context.clock },
        scopeOf(imported),
        after,
        batchRows,
      )) ?? next.lastRow;
    const [{ count }] = (await trx('import_rows')
      .where({ import_id: imported.id, kind })
      .whereBetween('row_number', [after + 1, lastRow])
      .count({ count: '*' })) as [{ count: string }];
    await trx('import_batches').insert({
      enterprise_id: imported.enterprise_id,
      import_id: imported.id,
      kind,
      last_row: lastRow,
      rows: Number(count),
    });
    await recordAudit(trx, applier(userId as string, imported.id), {
      action: 'import.apply_batch',
      entityType: 'import',
      entityId: imported.id,
      enterpriseId: imported.enterprise_id,
      details: { kind, after, last_row: lastRow, rows: Number(count) },
    });
    return { done: false };
  });
}

/** The opening entry, once, after the kinds' rows: the general ledger's side. */
export async function openImportBooks(context: DataContext, importId: string): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const imported = await lockImport(trx, importId);
    if (imported.status !== 'applying') return;
    const { applied_by: userId } = await trx('imports').where({ id: importId }).first('applied_by');
    await postOpeningEntry(trx, context.clock, applier(userId as string, importId), imported);
  });
}

/** Nothing happened in the enterprise since the import was applied: no business event, no entry but its own. */
async function assertNothingSince(
  trx: Knex.Transaction,
  imported: { id: string; enterprise_id: string },
): Promise<void> {
  const { applied_at: appliedAt, opening_entry_id: openingId } = await trx('imports')
    .where({ id: imported.id })
    .first('applied_at', 'opening_entry_id');
  const events = trx('business_event_logs')
    .where({ enterprise_id: imported.enterprise_id })
    .where('created_at', '>=', appliedAt)
    .select('id');
  const entries = trx('journal_entries')
    .where({ enterprise_id: imported.enterprise_id })
    .where('created_at', '>=', appliedAt)
    .whereNotIn(
      'id',
      trx('manual_entry_lines')
        .where({ manual_entry_id: openingId })
        .whereNotNull('journal_entry_id')
        .select('journal_entry_id'),
    )
    .select('id');
  if ((await events.first()) !== undefined || (await entries.first()) !== undefined) {
    throw new AppError(
      'conflict',
      'import_not_cancellable',
      'The enterprise has operations since the import was applied: it can no longer be cancelled; ' +
        'correct it by entries.',
    );
  }
}

/**
 * The executor of `import.cancel`: the opening entry reversed, every kind's rows marked cancelled, in one transaction.
 */
export async function cancelImport(context: DataContext, maker: Actor, payload: { importId: string }): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const imported = await lockImport(trx, payload.importId);
    if (imported.status !== 'applied')
      throw new AppError(
        'conflict',
        'import_not_cancellable',
        `The import is ${imported.status}: only an applied import is cancelled.`,
      );
    await assertNothingSince(trx, imported);
    await reverseOpeningEntry(trx, context.clock, maker, imported);
    for (const kind of [...importKinds].reverse()) await importKindSteps[kind]?.cancel?.(trx, scopeOf(imported));
    await trx('imports').where({ id: imported.id }).update({ status: 'cancelled', cancelled_at: trx.fn.now() });
    await recordAudit(trx, maker, {
      action: 'import.cancel',
      entityType: 'import',
      entityId: imported.id,
      enterpriseId: imported.enterprise_id,
      details: {},
    });
  });
}
