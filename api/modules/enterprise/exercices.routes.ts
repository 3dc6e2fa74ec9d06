import type { Knex } from 'knex';
import * as yup from 'yup';
import { createExercice, setExerciceStatus } from '../../../activities/enterprise/exercices.activity';
import type { ExerciceClosingRow } from '../../../activities/enterprise/exercice-closing-row';
import { markExerciceClosingFailed, requestExerciceClosing } from '../../../activities/enterprise/year-end-closing.activity';
import type { yearEndClosing, YearEndClosingInput } from '../../../workflows/year-end-closing.workflow';
import { yearEndClosingWorkflowId } from '../../../workflows/identities';
import { ExerciceComptable } from '../../../db/models/exercice-comptable.model';
import { listQuerySchema, pageSchema, paginate, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { startWorkflowFor } from '../../workflow-start';
import { codeSchema, dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse } from '../common.schemas';
import { scopeToVisible, withNestedVariant } from '../enterprise-scope';
import { moneyResponse } from '../money.schemas';
import { enterpriseLoaders } from './enterprise.queries';
import { accountChoiceRefusals } from '../refusal-lists';
import { visibleBranches } from '../../auth/access';
import type { Principal } from '../../auth/principal';

const exerciceSchema = yup.object({
  id: yup.string().uuid().required(),
  enterprise: yup.string().uuid().required(),
  code: yup.string().required(),
  start_date: dateResponse(),
  end_date: dateResponse(),
  status: yup.string().oneOf(['open', 'closed']).required(),
  closed_at: timestampResponse().nullable(),
  closed_by: yup.string().uuid().nullable().defined(),
  closing: yup.object({
    id: yup.string().uuid().required(),
    status: yup.string().oneOf(['running', 'closed', 'failed', 'reopened']).required(),
    step: yup.string().oneOf(['requested', 'income_closed', 'carried_forward']).required().meta({ description: 'The last step done: income_closed (closing entries posted, year locked), carried_forward (opening entries posted in the next year).' }),
    result: moneyResponse().nullable().meta({ description: 'Income minus expenses of the year (negative: a loss), once the closing entries are posted; null to a user of some branches only.' }),
    result_account: yup.string().nullable().defined(),
    failure: yup.string().nullable().defined(),
    workflow_id: yup.string().required(),
    requested_at: timestampResponse(),
    finished_at: timestampResponse().nullable(),
  }).nullable().default(null).meta({ component: 'ExerciceClosing', description: 'The latest closing of the year by the yearEndClosing workflow; null if none.' }),
}).meta({ component: 'ExerciceComptable' });

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

/** The latest closing of each year, in one query. */
async function latestClosings(knex: Knex, exerciceIds: readonly string[]): Promise<Map<string, ExerciceClosingRow>> {
  const rows: ExerciceClosingRow[] = await knex('exercice_closings').distinctOn('exercice_id').whereIn('exercice_id', [...exerciceIds]).orderBy([{ column: 'exercice_id' }, { column: 'created_at', order: 'desc' }]);
  return new Map(rows.map((row) => [row.exercice_id, row]));
}

async function withClosing(knex: Knex, exercice: ExerciceComptable) {
  return serializeExercice(exercice, (await latestClosings(knex, [exercice.id])).get(exercice.id));
}

function serializeExercice(exercice: ExerciceComptable, closing: ExerciceClosingRow | undefined) {
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
function asReadBy(principal: Principal, year: ReturnType<typeof serializeExercice>): ReturnType<typeof serializeExercice> {
  if (year.closing === null || visibleBranches(principal, year.enterprise) === 'all') return year;
  return { ...year, closing: { ...year.closing, result: null, result_account: null } };
}

/**
 * Closing starts the yearEndClosing workflow (docs/architecture.md §9) and answers at once (202): the year's
 * `closing` shows its progress. Reopening (administrators, with a reason) reverses the closing's entries.
 */
const closeRoute = defineRoute({
  method: 'post',
  path: '/api/v1/enterprise/exercices/{id}/close/',
  module: 'enterprise',
  operationId: 'closeExercice',
  summary: 'Close an accounting year (direction, administrators): result, closing entries, lock, opening entries of the next year',
  description: 'Refused while the next year is not open or the previous one is still open. A closing that failed is resumed where it stopped.',
  access: ['direction', 'admin'],
  status: 202,
  location: '/api/v1/enterprise/exercices/{id}/',
  load: enterpriseLoaders.exercice,
  params: idParams,
  query: yup.object({ enterprise: enterpriseFilter }),
  body: yup.object({ reason: yup.string().trim().max(500).default('') }),
  response: exerciceSchema,
  errorStatuses: [401, 403, 404, 409, 503],
  refusals: ['exercice_already_closed', 'exercice_closing_running', 'month_end_not_done', 'next_exercice_not_open', 'previous_exercice_open', 'workflow_unavailable', 'year_end_not_provisioned'],
  handler: async ({ resource: exercice, body, principal: actor, deps, ctx }) => {
    const closing = await requestExerciceClosing(deps.activities, actor, { exerciceId: exercice.id, reason: body.reason });
    const input: YearEndClosingInput = { closingId: closing.id, enterpriseId: exercice.enterpriseId, exerciceCode: exercice.code };
    await startWorkflowFor<typeof yearEndClosing>(deps, 'yearEndClosing', {
      workflowId: yearEndClosingWorkflowId(exercice.enterpriseId, exercice.code),
      args: [input],
      tags: { enterpriseId: exercice.enterpriseId, businessId: exercice.code },
    }, {
      what: 'the closing',
      markFailed: () => markExerciceClosingFailed(deps.knex, deps.clock(), { closingId: closing.id, failure: 'the workflow could not be started' }),
      log: ctx.state.log,
    });
    return withClosing(deps.knex, (await ExerciceComptable.query(deps.knex).findById(exercice.id))!);
  },
});

const reopenRoute = defineRoute({
  method: 'post',
  path: '/api/v1/enterprise/exercices/{id}/reopen/',
  module: 'enterprise',
  operationId: 'reopenExercice',
  summary: 'Reopen a closed accounting year (administrators, with a reason): the closing entries and opening balances are reversed',
  access: ['admin'],
  load: enterpriseLoaders.exercice,
  params: idParams,
  query: yup.object({ enterprise: enterpriseFilter }),
  body: yup.object({ reason: yup.string().trim().required().min(5).max(500) }),
  response: exerciceSchema,
  ...fourEyesRoute,
  errorStatuses: [401, 403, 404, 409],
  refusals: [...accountChoiceRefusals, 'exercice_already_closed', 'exercice_already_open', 'exercice_closed', 'exercice_closing_running', 'exercice_result_allocated', 'no_exercice_for_date', ...fourEyesRefusals],
  handler: async ({ resource: exercice, body, principal: actor, deps, ctx }) => {
    return runOrRequest({ deps, principal: actor, ctx }, {
      operation: 'exercice.reopen', payload: { exerciceId: exercice.id, reason: body.reason }, scope: { enterpriseId: exercice.enterpriseId },
      summary: `Reopen the accounting year ${exercice.code}: ${body.reason}`,
    }, async () => withClosing(deps.knex, await setExerciceStatus(deps.activities, actor, exercice.id, 'open', body.reason)));
  },
});

/** Accounting years (exercices comptables): dates never overlap, one open at a time unless configured. */
export const exerciceRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/exercices/',
    module: 'enterprise',
    operationId: 'listExercices',
    summary: 'List accounting years',
    access: 'authenticated',
    query: listQuerySchema(['code', 'start_date'], { enterprise: enterpriseFilter, status: yup.string().oneOf(['open', 'closed']).optional() }),
    errorStatuses: [401],
    response: pageSchema(exerciceSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = scopeToVisible(ExerciceComptable.query(deps.knex), principal, { enterprise: 'enterprise_id' });
      whereFilters(builder, query, { enterprise: 'enterprise_id', status: 'status' });
      const page = await paginate(builder, { query, url: new URL(ctx.href), orderingColumns: { code: 'code', start_date: 'start_date' }, defaultOrdering: '-start_date' });
      const closings = await latestClosings(deps.knex, page.results.map((exercice) => exercice.id));
      return { ...page, results: page.results.map((exercice) => asReadBy(principal, serializeExercice(exercice, closings.get(exercice.id)))) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/enterprise/exercices/',
    module: 'enterprise',
    operationId: 'createExercice',
    summary: 'Open an accounting year (direction, administrators)',
    access: ['direction', 'admin'],
    status: 201,
    location: '/api/v1/enterprise/exercices/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      code: codeSchema(20),
      start_date: isoDate().required(),
      end_date: isoDate().required(),
    }),
    response: exerciceSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['exercice_already_open', 'exercice_code_taken', 'exercice_overlap'],
    handler: async ({ body, principal: actor, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise }, 'The enterprise');
      const exercice = await createExercice(deps.activities, actor, body.enterprise, { code: body.code, startDate: body.start_date, endDate: body.end_date });
      return serializeExercice(exercice, undefined);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/exercices/{id}/',
    module: 'enterprise',
    operationId: 'getExercice',
    summary: 'Accounting year detail',
    access: 'authenticated',
    load: enterpriseLoaders.exercice,
    params: idParams,
    query: yup.object({ enterprise: enterpriseFilter }),
    response: exerciceSchema,
    errorStatuses: [401, 404],
    handler: async ({ resource, principal, deps }) => asReadBy(principal, await withClosing(deps.knex, resource)),
  }),
  closeRoute,
  reopenRoute,
].flatMap(withNestedVariant);
