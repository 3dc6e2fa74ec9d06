import type { Knex } from 'knex';
import { holdsRole } from '../../domain/access';
import { AppError, NotFoundError, ValidationError } from '../../domain/errors';
import { isExclusionViolation, isUniqueViolation } from '../../db/errors';
import { EnterpriseConfiguration } from '../../db/models/enterprise-configuration.model';
import { ExerciceComptable } from '../../db/models/exercice-comptable.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';

export interface ExerciceFields {
  code: string;
  startDate: string;
  endDate: string;
}

/**
 * One open year at a time per enterprise, unless its configuration allows several. The configuration row is
 * locked first, so two concurrent openings of one enterprise are serialised and cannot both pass the check.
 */
async function assertMayOpen(trx: Knex.Transaction, enterpriseId: string, exceptId: string | null): Promise<void> {
  const configuration = await EnterpriseConfiguration.query(trx).findOne({ enterprise_id: enterpriseId }).forUpdate();
  if (configuration?.allowSeveralOpenExercices) return;
  const open = ExerciceComptable.query(trx).where({ enterprise_id: enterpriseId, status: 'open' });
  if (exceptId !== null) open.whereNot('id', exceptId);
  const other = await open.first();
  if (other !== undefined) {
    throw new AppError('conflict', 'exercice_already_open', `The accounting year ${other.code} is still open: close it first.`);
  }
}

function conflictOf(error: unknown): unknown {
  if (isExclusionViolation(error, 'exercices_no_overlap')) {
    return new AppError('conflict', 'exercice_overlap', 'The dates overlap another accounting year of the enterprise.');
  }
  if (isUniqueViolation(error, 'exercices_code_unique')) {
    return new AppError('conflict', 'exercice_code_taken', 'The enterprise already has an accounting year with this code.');
  }
  return error;
}

export async function createExercice(context: ActivityContext, actor: Actor, enterpriseId: string, fields: ExerciceFields): Promise<ExerciceComptable> {
  if (fields.endDate < fields.startDate) throw new ValidationError([{ field: 'end_date', message: 'end_date must not be before start_date' }]);
  try {
    return await inTransaction(context.knex, async (trx) => {
      await assertMayOpen(trx, enterpriseId, null);
      const exercice = await ExerciceComptable.query(trx).insertAndFetch({ enterpriseId, ...fields });
      await recordAudit(trx, actor, { action: 'exercice.create', entityType: 'exercice', entityId: exercice.id, enterpriseId, details: { ...fields } });
      return exercice;
    });
  } catch (error) {
    throw conflictOf(error);
  }
}

/**
 * Closing is final for postings. Reopening, an exception an auditor will ask about, is for administrators
 * only and goes to the audit trail with its reason.
 */
export async function setExerciceStatus(
  context: ActivityContext,
  actor: Actor,
  exerciceId: string,
  target: 'closed' | 'open',
  reason: string,
): Promise<ExerciceComptable> {
  return inTransaction(context.knex, async (trx) => {
    const exercice = await ExerciceComptable.query(trx).findById(exerciceId).forUpdate();
    if (exercice === undefined) throw new NotFoundError('The accounting year');
    if (exercice.status === target) {
      throw new AppError('conflict', target === 'closed' ? 'exercice_already_closed' : 'exercice_already_open', `The accounting year ${exercice.code} is already ${target}.`);
    }
    if (target === 'open') {
      if (!holdsRole(actor.grants, ['admin'], { enterpriseId: exercice.enterpriseId })) {
        throw new AppError('forbidden', 'role_required', 'Only an administrator may reopen an accounting year.');
      }
      await assertMayOpen(trx, exercice.enterpriseId, exercice.id);
    }
    const changes = target === 'closed' ? { status: target, closedAt: context.clock(), closedBy: actor.userId } : { status: target, closedAt: null, closedBy: null };
    const updated = await ExerciceComptable.query(trx).patchAndFetchById(exerciceId, changes);
    await recordAudit(trx, actor, {
      action: target === 'closed' ? 'exercice.close' : 'exercice.reopen',
      entityType: 'exercice',
      entityId: exerciceId,
      enterpriseId: exercice.enterpriseId,
      details: { code: exercice.code, reason },
    });
    return updated;
  });
}
