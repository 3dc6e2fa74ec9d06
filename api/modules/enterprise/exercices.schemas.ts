import * as yup from 'yup';
import type { ExerciceClosingRow } from '../../../activities/enterprise/exercice-closing-row';
import type { ExerciceWithClosing } from '../../../activities/enterprise/exercices.queries';
import type { ExerciceComptable } from '../../../db/models/exercice-comptable.model';
import { yearEndClosingWorkflowId } from '../../../workflows/identities';
import { visibleBranches } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import { dateResponse, timestampResponse, nullableId } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

export const exerciceSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    code: yup.string().required(),
    start_date: dateResponse(),
    end_date: dateResponse(),
    status: yup.string().oneOf(['open', 'closed']).required(),
    closed_at: timestampResponse().nullable(),
    closed_by: nullableId(),
    closing: yup
      .object({
        id: yup.string().uuid().required(),
        status: yup.string().oneOf(['running', 'closed', 'failed', 'reopened']).required(),
        step: yup
          .string()
          .oneOf(['requested', 'income_closed', 'carried_forward'])
          .required()
          .meta({
            description:
              'The last step done: income_closed (closing entries posted, year ' +
              'locked), carried_forward (opening entries posted in the next year).',
          }),
        result: moneyResponse()
          .nullable()
          .meta({
            description:
              'Income minus expenses of the year (negative: a loss), once the ' +
              'closing entries are posted; null to a user of some branches only.',
          }),
        result_account: yup.string().nullable().defined(),
        failure: yup.string().nullable().defined(),
        workflow_id: yup.string().required(),
        requested_at: timestampResponse(),
        finished_at: timestampResponse().nullable(),
      })
      .nullable()
      .default(null)
      .meta({
        component: 'ExerciceClosing',
        description: 'The latest closing of the year by the yearEndClosing workflow; null if none.',
      }),
  })
  .meta({ component: 'ExerciceComptable' });

function serializeClosing(exercice: ExerciceComptable, closing: ExerciceClosingRow | undefined) {
  if (closing === undefined) return null;
  return {
    id: closing.id,
    status: closing.status,
    step: closing.step,
    result: closing.result,
    result_account: closing.result_account,
    failure: closing.failure,
    workflow_id: yearEndClosingWorkflowId(exercice.enterpriseId, exercice.code),
    requested_at: closing.created_at.toISOString(),
    finished_at: closing.finished_at?.toISOString() ?? null,
  };
}

/** A year as answered, with its latest closing (none for a year just opened). */
export function serializeExercice({ exercice, closing }: ExerciceWithClosing) {
  return {
    id: exercice.id,
    enterprise: exercice.enterpriseId,
    code: exercice.code,
    start_date: exercice.startDate,
    end_date: exercice.endDate,
    status: exercice.status,
    closed_at: exercice.closedAt?.toISOString() ?? null,
    closed_by: exercice.closedBy,
    closing: serializeClosing(exercice, closing),
  };
}

/**
 * The year's result is the enterprise's: a user of some branches reads the year and its closing's progress, not
 * the result, as their statements show only their branches (docs/domain.md §7).
 */
export function asReadBy(
  principal: Principal,
  year: ReturnType<typeof serializeExercice>,
): ReturnType<typeof serializeExercice> {
  if (year.closing === null || visibleBranches(principal, year.enterprise) === 'all') return year;
  return { ...year, closing: { ...year.closing, result: null, result_account: null } };
}
