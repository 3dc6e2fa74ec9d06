import type { Knex } from 'knex';
import { AppError } from '../../domain/errors';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { lockImport } from './imports.activity';
import { importKindSteps, validatedKinds } from './kinds';

/**
 * Validation of an import's staged rows (docs/domain.md §15): asked through the API (the import becomes
 * `validating`), then run by the import's workflow, every kind's `validate` step (activities/imports/kinds.ts) in
 * one transaction. Writes only `import_problems` and the import's status.
 */

/** A step of the validation, run by the workflow for whoever asked for it (the author in the audit trail). */
export interface ImportValidationInput {
  importId: string;
  requestedBy: string;
  /** The request that asked for the validation, for the audit trail. */
  requestId: string | null;
}

const requester = (input: ImportValidationInput): Actor => ({
  userId: input.requestedBy,
  grants: [],
  requestId: input.requestId ?? `import-${input.importId}`,
});

/** An import is never validated again once apply was approved: the API checks before it ends the import's workflow. */
export function refuseSettled(status: string): void {
  if (['applying', 'applied', 'cancelled'].includes(status))
    throw new AppError('conflict', 'import_applied', `The import is ${status}: it is not validated again.`);
}

/** The request of a validation: the import is `validating` until its workflow ends it; an applied one is refused. */
export async function markImportValidating(context: DataContext, actor: Actor, importId: string): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const imported = await lockImport(trx, importId);
    refuseSettled(imported.status);
    await trx('imports').where({ id: importId }).update({ status: 'validating', validated_at: null, dry_run: null });
    await recordAudit(trx, actor, {
      action: 'import.validation_request',
      entityType: 'import',
      entityId: importId,
      enterpriseId: imported.enterprise_id,
      details: {},
    });
  });
}

/**
 * The import locked for a step of its validation; null once it is no longer `validating` (a new upload made it
 * `uploaded`, a new request's workflow finished first): the step then does nothing, and the workflow ends.
 */
export async function lockValidating(
  trx: Knex.Transaction,
  importId: string,
): Promise<Awaited<ReturnType<typeof lockImport>> | null> {
  const imported = await lockImport(trx, importId);
  return imported.status === 'validating' ? imported : null;
}

/** Validates every kind's rows: `rejected` with a problem, else still `validating` (the tie-out and dry run follow). */
export async function validateImport(
  context: DataContext,
  input: ImportValidationInput,
): Promise<{ status: string; problems: number }> {
  const { importId } = input;
  // The staged rows' statistics brought up to date first, outside the transaction (its lock is then held an instant):
  // planned on the statistics of before the upload, a check across 50 000 rows compared each row with every other.
  await context.knex.raw('ANALYZE import_rows');
  return inTransaction(context.knex, async (trx) => {
    const imported = await lockValidating(trx, importId);
    if (imported === null) return { status: (await lockImport(trx, importId)).status, problems: 0 };
    await trx('import_problems').where({ import_id: importId }).delete();
    const scope = { importId, enterpriseId: imported.enterprise_id, cutOverDate: imported.cut_over_date };
    for (const kind of validatedKinds) await importKindSteps[kind]!.validate(trx, scope);
    const [{ count }] = (await trx('import_problems').where({ import_id: importId }).count({ count: '*' })) as [
      { count: string },
    ];
    const problems = Number(count);
    if (problems > 0)
      await trx('imports').where({ id: importId }).update({ status: 'rejected', validated_at: trx.fn.now() });
    const status = problems === 0 ? 'validating' : 'rejected';
    await recordAudit(trx, requester(input), {
      action: 'import.validate',
      entityType: 'import',
      entityId: importId,
      enterpriseId: imported.enterprise_id,
      details: { status, problems },
    });
    return { status, problems };
  });
}

/**
 * A step of the validation failed for a reason of the system (an error, not a problem of the files): the import is
 * `failed` rather than `validating` forever, the failure in the audit trail; a new request validates it again.
 */
export async function markImportFailed(
  context: DataContext,
  input: ImportValidationInput & { failure: string },
): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const imported = await lockValidating(trx, input.importId);
    if (imported === null) return;
    await trx('imports').where({ id: imported.id }).update({ status: 'failed' });
    await recordAudit(trx, requester(input), {
      action: 'import.validation_failed',
      entityType: 'import',
      entityId: imported.id,
      enterpriseId: imported.enterprise_id,
      details: { failure: input.failure },
    });
  });
}
