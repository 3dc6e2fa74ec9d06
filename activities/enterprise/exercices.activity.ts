import type { Knex } from 'knex';
import { holdsRole } from '../../domain/access';
import { nextYearOf } from '../../domain/enterprise/year-end-closing';
import { AppError, NotFoundError, ValidationError } from '../../domain/errors';
import { isExclusionViolation, isUniqueViolation } from '../../db/errors';
import { EnterpriseConfiguration } from '../../db/models/enterprise-configuration.model';
import { ExerciceComptable } from '../../db/models/exercice-comptable.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import { reverseEntries } from '../events/reverse-entries';
import { allocatedRefusal } from './result-allocations.activity';
import type { ActivityContext, Actor, DataContext } from '../context';

export interface ExerciceFields {
  code: string;
  startDate: string;
  endDate: string;
}

/**
 * One open year at a time per enterprise, unless its configuration allows several; while a year is being
 * closed its successor is open too, to receive the opening balances (docs/architecture.md §9): a year next to
 * the only other open one may open. The configuration row is locked first, so two concurrent openings of one
 * enterprise are serialised and cannot both pass the check.
 */
async function assertMayOpen(
  trx: Knex.Transaction,
  enterpriseId: string,
  candidate: { id: string | null; startDate: string; endDate: string },
): Promise<void> {
  const configuration = await EnterpriseConfiguration.query(trx).findOne({ enterprise_id: enterpriseId }).forUpdate();
  if (configuration?.allowSeveralOpenExercices) return;
  const open = ExerciceComptable.query(trx).where({ enterprise_id: enterpriseId, status: 'open' });
  if (candidate.id !== null) open.whereNot('id', candidate.id);
  const others = await open;
  const adjacent = (other: ExerciceComptable) =>
    nextYearOf(other, [candidate]) !== undefined || nextYearOf(candidate, [other]) !== undefined;
  const other = others.length === 1 && adjacent(others[0]!) ? undefined : others[0];
  if (other !== undefined) {
    throw new AppError(
      'conflict',
      'exercice_already_open',
      `The accounting year ${other.code} is still open: close it first.`,
    );
  }
}

function conflictOf(error: unknown): unknown {
  if (isExclusionViolation(error, 'exercices_no_overlap')) {
    return new AppError('conflict', 'exercice_overlap', 'The dates overlap another accounting year of the enterprise.');
  }
  if (isUniqueViolation(error, 'exercices_code_unique')) {
    return new AppError(
      'conflict',
      'exercice_code_taken',
      'The enterprise already has an accounting year with this code.',
    );
  }
  return error;
}

export async function createExercice(
  context: ActivityContext,
  actor: Actor,
  enterpriseId: string,
  fields: ExerciceFields,
): Promise<ExerciceComptable> {
  if (fields.endDate < fields.startDate)
    throw new ValidationError([{ field: 'end_date', message: 'end_date must not be before start_date' }]);
  try {
    return await inTransaction(context.knex, async (trx) => {
      await assertMayOpen(trx, enterpriseId, { id: null, ...fields });
      const exercice = await ExerciceComptable.query(trx).insertAndFetch({ enterpriseId, ...fields });
      await recordAudit(trx, actor, {
        action: 'exercice.create',
        entityType: 'exercice',
        entityId: exercice.id,
        enterpriseId,
        details: { ...fields },
      });
      return exercice;
    });
  } catch (error) {
    throw conflictOf(error);
  }
}

/**
 * Who changes a year's status, for the audit trail: a user of the API, or the closing workflow on its requester's
 * behalf.
 */
export interface StatusChanger {
  userId: string | null;
  requestId: string | null;
  address?: string;
}

/**
 * The status change itself, in the caller's transaction, the year locked by the caller. Closing is final for
 * postings; reopening a year that was closed with its closing entries reverses them (reversal entries, never a
 * deletion): the à-nouveaux in the next year, which must still be open, and the closing entries of the year.
 */
export async function changeExerciceStatus(
  trx: Knex.Transaction,
  now: Date,
  by: StatusChanger,
  exercice: ExerciceComptable,
  change: { target: 'closed' | 'open'; reason: string },
): Promise<ExerciceComptable> {
  const { target } = change;
  const reversed = target === 'open' ? await reopenedClosing(trx, exercice.id) : null;
  const changes =
    target === 'closed'
      ? { status: target, closedAt: now, closedBy: by.userId }
      : { status: target, closedAt: null, closedBy: null };
  const updated = await ExerciceComptable.query(trx).patchAndFetchById(exercice.id, changes);
  if (reversed !== null) await reverseClosingEntries(trx, by.userId, reversed);
  await recordAudit(
    trx,
    by.userId === null ? null : { userId: by.userId, requestId: by.requestId, address: by.address },
    {
      action: target === 'closed' ? 'exercice.close' : 'exercice.reopen',
      entityType: 'exercice',
      entityId: exercice.id,
      enterpriseId: exercice.enterpriseId,
      details: { code: exercice.code, reason: change.reason, ...(reversed === null ? {} : { closing: reversed }) },
    },
  );
  return updated;
}

/** The year's closing that a reopening undoes (marked reopened), null when it was closed without one. */
async function reopenedClosing(trx: Knex.Transaction, exerciceId: string): Promise<string | null> {
  const closing = await trx('exercice_closings')
    .where({ exercice_id: exerciceId })
    .whereIn('status', ['running', 'closed', 'failed'])
    .forUpdate()
    .first('id', 'status');
  if (closing === undefined) return null;
  if (closing.status === 'running')
    throw new AppError(
      'conflict',
      'exercice_closing_running',
      'The year is being closed: wait for the closing to end.',
    );
  await trx('exercice_closings').where({ id: closing.id }).update({ status: 'reopened' });
  return closing.id as string;
}

/** Each entry the closing posted, reversed on its own date: the later year's first (its year must be open). */
async function reverseClosingEntries(trx: Knex.Transaction, userId: string | null, closingId: string): Promise<void> {
  await reverseEntries(
    trx,
    userId,
    trx('exercice_closing_entries').where('closing_id', closingId).select('entry_id'),
    'Réouverture',
  );
}

/**
 * Reopening, an exception an auditor will ask about, is for administrators only and goes to the audit trail
 * with its reason. Closing a year through here only locks it: the API closes through the yearEndClosing
 * workflow (requestExerciceClosing), whose last step locks the year in the same way.
 */
export async function setExerciceStatus(
  context: DataContext,
  actor: Actor,
  exerciceId: string,
  target: 'closed' | 'open',
  reason: string,
): Promise<ExerciceComptable> {
  return inTransaction(context.knex, async (trx) => {
    const exercice = await ExerciceComptable.query(trx).findById(exerciceId).forUpdate();
    if (exercice === undefined) throw new NotFoundError('The accounting year');
    if (exercice.status === target) {
      throw new AppError(
        'conflict',
        target === 'closed' ? 'exercice_already_closed' : 'exercice_already_open',
        `The accounting year ${exercice.code} is already ${target}.`,
      );
    }
    if (target === 'open') {
      if (!holdsRole(actor.grants, ['admin'], { enterpriseId: exercice.enterpriseId })) {
        throw new AppError('forbidden', 'role_required', 'Only an administrator may reopen an accounting year.');
      }
      await assertMayOpen(trx, exercice.enterpriseId, exercice);
      // Its result allocated in the next year, the à-nouveaux the reopening reverses would leave 13 upside down.
      const allocated = await allocatedRefusal(trx, exercice);
      if (allocated !== null) throw allocated;
    }
    return changeExerciceStatus(trx, context.clock(), actor, exercice, { target, reason });
  });
}
