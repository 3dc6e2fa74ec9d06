import * as yup from 'yup';
import {
  markEndOfDayFailed,
  openEndOfDayRun,
  type EndOfDayRunRow,
} from '../../../activities/enterprise/end-of-day.activity';
import {
  endOfDayRunDetail,
  endOfDayRunsQuery,
  withStepsAndAwaited,
} from '../../../activities/enterprise/end-of-days.queries';
import { endOfDayWorkflowId } from '../../../workflows/identities';
import type { endOfDay, EndOfDayInput } from '../../../workflows/end-of-day.workflow';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { requestOrigin } from '../../context';
import { startWorkflowFor } from '../../workflow-start';
import { enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { scopeToWholeEnterprises, withNestedVariant } from '../enterprise-scope';
import { enterpriseLoaders } from './enterprise.queries';
import { runSchema, runStatuses, serializeEndOfDayRun } from './end-of-days.schemas';

/**
 * Starting the end of day records its run and starts the endOfDay workflow (docs/domain.md §13.3), answering at once
 * (202): the run's steps show its progress. A run done or running is answered as it is; a failed one resumes.
 */
const startRoute = defineRoute({
  method: 'post',
  path: '/api/v1/enterprise/end-of-days/',
  module: 'enterprise',
  operationId: 'startEndOfDay',
  summary: 'Run the end of day (close of business) of the business date (direction, administrators), once per date',
  description:
    'It waits for every active branch to close its day (`POST /api/v1/cash/branch-days/`), ' +
    'provisions at the date, matures the term deposits due, moves the business date ' +
    "to the next working day (Saturdays and Sundays skipped) and, on a month's last " +
    'day, starts the month end. `date` defaults to the business date; another date ' +
    'is refused (`end_of_day_not_business_date`, 422) unless it has a run, which is ' +
    'answered. Once the date moves, nothing can be dated on or before the day (`day_closed`).',
  access: ['direction', 'admin'],
  status: 202,
  location: '/api/v1/enterprise/end-of-days/{id}/',
  body: yup.object({ enterprise: yup.string().uuid().required(), date: isoDate().optional() }),
  response: runSchema,
  errorStatuses: [401, 403, 404, 422, 503],
  refusals: ['end_of_day_not_business_date', 'workflow_unavailable'],
  handler: async ({ body, principal: actor, deps, authorize, ctx }) => {
    authorize({ enterpriseId: body.enterprise }, 'The enterprise');
    const request = {
      enterpriseId: body.enterprise,
      date: body.date ?? null,
      trigger: 'api' as const,
      startedBy: actor.userId,
      ...requestOrigin(ctx),
    };
    const opened = await openEndOfDayRun(deps.knex, deps.clock(), request);
    const { run } = opened;
    if (opened.start) {
      const input: EndOfDayInput = { enterpriseId: body.enterprise, date: run.business_date, runId: run.id };
      await startWorkflowFor<typeof endOfDay>(
        deps,
        'endOfDay',
        {
          workflowId: endOfDayWorkflowId(body.enterprise, run.business_date),
          args: [input],
          tags: { enterpriseId: body.enterprise, businessId: run.business_date },
        },
        {
          what: 'the end of day',
          markFailed: () =>
            markEndOfDayFailed(deps.knex, deps.clock(), {
              runId: run.id,
              failure: 'the workflow could not be started',
            }),
          log: ctx.state.log,
        },
      );
    }
    return serializeEndOfDayRun(await endOfDayRunDetail(deps.knex, run.id));
  },
});

/**
 * Ends of day (issue 29, docs/domain.md §13.3): one run per enterprise and business date, its steps and what each did.
 */
export const endOfDayRoutes = [
  startRoute,
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/end-of-days/',
    module: 'enterprise',
    operationId: 'listEndOfDays',
    summary: 'Ends of day, latest date first, with their steps (of the enterprises the caller sees whole)',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      status: yup.string().oneOf(runStatuses).optional(),
      date_from: isoDate().optional(),
      date_to: isoDate().optional(),
    }),
    response: pageSchema(runSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToWholeEnterprises(endOfDayRunsQuery(deps.knex), principal, 'enterprise_id').orderBy([
        { column: 'business_date', order: 'desc' },
        { column: 'id' },
      ]);
      whereFilters(rows, query, {
        enterprise: 'enterprise_id',
        status: 'status',
        date_from: ['business_date', '>='],
        date_to: ['business_date', '<='],
      });
      const page = await paginateRows<EndOfDayRunRow>(rows, query, new URL(ctx.href));
      return { ...page, results: (await withStepsAndAwaited(deps.knex, page.results)).map(serializeEndOfDayRun) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/end-of-days/{id}/',
    module: 'enterprise',
    operationId: 'getEndOfDay',
    summary: 'One end of day: its steps and what each did',
    description:
      "The enterprise's figures (its provisioning, its maturities): only a role " +
      'over the whole enterprise reads it; to a user of some branches it is 404.',
    access: 'authenticated',
    load: enterpriseLoaders.endOfDay,
    params: idParams,
    query: yup.object({ enterprise: enterpriseFilter }),
    response: runSchema,
    errorStatuses: [401, 404],
    handler: async ({ resource, deps }) => serializeEndOfDayRun((await withStepsAndAwaited(deps.knex, [resource]))[0]!),
  }),
].flatMap(withNestedVariant);
