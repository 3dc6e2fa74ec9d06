import * as yup from 'yup';
import { createExercice, setExerciceStatus } from '../../../activities/enterprise/exercices.activity';
import {
  exerciceById,
  exerciceWithClosing,
  exercicesQuery,
  withLatestClosing,
} from '../../../activities/enterprise/exercices.queries';
import {
  markExerciceClosingFailed,
  requestExerciceClosing,
} from '../../../activities/enterprise/year-end-closing.activity';
import type { yearEndClosing, YearEndClosingInput } from '../../../workflows/year-end-closing.workflow';
import { yearEndClosingWorkflowId } from '../../../workflows/identities';
import { listQuerySchema, pageSchema, paginate, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { startWorkflowFor } from '../../workflow-start';
import { codeSchema, enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { scopeToVisible, withNestedVariant } from '../enterprise-scope';
import { enterpriseLoaders } from './enterprise.queries';
import { asReadBy, exerciceSchema, serializeExercice } from './exercices.schemas';
import { accountChoiceRefusals } from '../refusal-lists';

/**
 * Closing starts the yearEndClosing workflow (docs/architecture.md §9) and answers at once (202): the year's
 * `closing` shows its progress. Reopening (administrators, with a reason) reverses the closing's entries.
 */
const closeRoute = defineRoute({
  method: 'post',
  path: '/api/v1/enterprise/exercices/{id}/close/',
  module: 'enterprise',
  operationId: 'closeExercice',
  summary:
    'Close an accounting year (direction, administrators): result, ' +
    'closing entries, lock, opening entries of the next year',
  description:
    'Refused while the next year is not open or the previous one is ' +
    'still open. A closing that failed is resumed where it stopped.',
  access: ['direction', 'admin'],
  status: 202,
  location: '/api/v1/enterprise/exercices/{id}/',
  load: enterpriseLoaders.exercice,
  params: idParams,
  query: yup.object({ enterprise: enterpriseFilter }),
  body: yup.object({ reason: yup.string().trim().max(500).default('') }),
  response: exerciceSchema,
  errorStatuses: [401, 403, 404, 409, 503],
  refusals: [
    'exercice_already_closed',
    'exercice_closing_running',
    'month_end_not_done',
    'next_exercice_not_open',
    'previous_exercice_open',
    'workflow_unavailable',
    'year_end_not_provisioned',
  ],
  handler: async ({ resource: exercice, body, principal: actor, deps, ctx }) => {
    const closing = await requestExerciceClosing(deps.activities, actor, {
      exerciceId: exercice.id,
      reason: body.reason,
    });
    const input: YearEndClosingInput = {
      closingId: closing.id,
      enterpriseId: exercice.enterpriseId,
      exerciceCode: exercice.code,
    };
    await startWorkflowFor<typeof yearEndClosing>(
      deps,
      'yearEndClosing',
      {
        workflowId: yearEndClosingWorkflowId(exercice.enterpriseId, exercice.code),
        args: [input],
        tags: { enterpriseId: exercice.enterpriseId, businessId: exercice.code },
      },
      {
        what: 'the closing',
        markFailed: () =>
          markExerciceClosingFailed(deps.knex, deps.clock(), {
            closingId: closing.id,
            failure: 'the workflow could not be started',
          }),
        log: ctx.state.log,
      },
    );
    return serializeExercice(await exerciceWithClosing(deps.knex, (await exerciceById(deps.knex, exercice.id))!));
  },
});

const reopenRoute = defineRoute({
  method: 'post',
  path: '/api/v1/enterprise/exercices/{id}/reopen/',
  module: 'enterprise',
  operationId: 'reopenExercice',
  summary:
    'Reopen a closed accounting year (administrators, with a ' +
    'reason): the closing entries and opening balances are reversed',
  access: ['admin'],
  load: enterpriseLoaders.exercice,
  params: idParams,
  query: yup.object({ enterprise: enterpriseFilter }),
  body: yup.object({ reason: yup.string().trim().required().min(5).max(500) }),
  response: exerciceSchema,
  ...fourEyesRoute,
  errorStatuses: [401, 403, 404, 409],
  refusals: [
    ...accountChoiceRefusals,
    'exercice_already_closed',
    'exercice_already_open',
    'exercice_closed',
    'exercice_closing_running',
    'exercice_result_allocated',
    'no_exercice_for_date',
    ...fourEyesRefusals,
  ],
  handler: async ({ resource: exercice, body, principal: actor, deps, ctx }) => {
    return runOrRequest(
      { deps, principal: actor, ctx },
      {
        operation: 'exercice.reopen',
        payload: { exerciceId: exercice.id, reason: body.reason },
        scope: { enterpriseId: exercice.enterpriseId },
        summary: `Reopen the accounting year ${exercice.code}: ${body.reason}`,
      },
      async () =>
        serializeExercice(
          await exerciceWithClosing(
            deps.knex,
            await setExerciceStatus(deps.activities, actor, exercice.id, 'open', body.reason),
          ),
        ),
    );
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
    query: listQuerySchema(['code', 'start_date'], {
      enterprise: enterpriseFilter,
      status: yup.string().oneOf(['open', 'closed']).optional(),
    }),
    errorStatuses: [401],
    response: pageSchema(exerciceSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = scopeToVisible(exercicesQuery(deps.knex), principal, { enterprise: 'enterprise_id' });
      whereFilters(builder, query, { enterprise: 'enterprise_id', status: 'status' });
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { code: 'code', start_date: 'start_date' },
        defaultOrdering: '-start_date',
      });
      return {
        ...page,
        results: (await withLatestClosing(deps.knex, page.results)).map((year) =>
          asReadBy(principal, serializeExercice(year)),
        ),
      };
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
      const exercice = await createExercice(deps.activities, actor, body.enterprise, {
        code: body.code,
        startDate: body.start_date,
        endDate: body.end_date,
      });
      return serializeExercice({ exercice, closing: undefined });
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
    handler: async ({ resource, principal, deps }) =>
      asReadBy(principal, serializeExercice(await exerciceWithClosing(deps.knex, resource))),
  }),
  closeRoute,
  reopenRoute,
].flatMap(withNestedVariant);
