import * as yup from 'yup';
import {
  markMonthEndFailed,
  openMonthEndRun,
  type MonthEndRunRow,
} from '../../../activities/enterprise/month-end.activity';
import { monthEndRunDetail, monthEndRunsQuery, withSteps } from '../../../activities/enterprise/month-ends.queries';
import { monthEndWorkflowId } from '../../../workflows/identities';
import type { monthEnd, MonthEndInput } from '../../../workflows/month-end.workflow';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { requestOrigin } from '../../context';
import { startWorkflowFor } from '../../workflow-start';
import { enterpriseFilter, idParams, periodSchema } from '../common.schemas';
import { scopeToWholeEnterprises, withNestedVariant } from '../enterprise-scope';
import { enterpriseLoaders } from './enterprise.queries';
import { runSchema, runStatuses, serializeMonthEndRun } from './month-ends.schemas';

/**
 * Starting a month end records its run and starts the monthEnd workflow (docs/architecture.md §9), answering at
 * once (202): the run's steps show its progress. A month end done or running is answered as it is; a failed one
 * resumes where it stopped.
 */
const startRoute = defineRoute({
  method: 'post',
  path: '/api/v1/enterprise/month-ends/',
  module: 'enterprise',
  operationId: 'startMonthEnd',
  summary:
    'Run the month end of a period (direction, administrators): ' +
    'loan interest accrual and its reversal, one run per month',
  description:
    'Refused while the month is not over (the business date must be after its last day) and ' +
    "while the previous month end is not done (from the enterprise's first month end on); " +
    "a month before the enterprise's first month end is refused (`month_end_out_of_order`), and the first " +
    'must be a month of the first open accounting year (`first_month_end_outside_first_year`; none open: ' +
    '`no_exercice_for_period`); a month ended before the cut-over of an applied ' +
    "go-live import is the old system's (`month_end_before_cut_over`). The Schedule " +
    '`month-end-{enterprise}` starts the month just ended on the first of each month.',
  access: ['direction', 'admin'],
  status: 202,
  location: '/api/v1/enterprise/month-ends/{id}/',
  body: yup.object({ enterprise: yup.string().uuid().required(), period: periodSchema().required() }),
  response: runSchema,
  errorStatuses: [401, 403, 404, 409, 422, 503],
  refusals: [
    'period_not_over',
    'previous_month_end_not_done',
    'month_end_out_of_order',
    'first_month_end_outside_first_year',
    'month_end_before_cut_over',
    'no_exercice_for_period',
    'workflow_unavailable',
  ],
  handler: async ({ body, principal: actor, deps, authorize, ctx }) => {
    authorize({ enterpriseId: body.enterprise }, 'The enterprise');
    const opened = await openMonthEndRun(deps.knex, deps.clock(), {
      enterpriseId: body.enterprise,
      period: body.period,
      trigger: 'api',
      startedBy: actor.userId,
      ...requestOrigin(ctx),
    });
    if (opened.start) {
      const input: MonthEndInput = { enterpriseId: body.enterprise, period: body.period, runId: opened.run.id };
      await startWorkflowFor<typeof monthEnd>(
        deps,
        'monthEnd',
        {
          workflowId: monthEndWorkflowId(body.enterprise, body.period),
          args: [input],
          tags: { enterpriseId: body.enterprise, businessId: body.period },
        },
        {
          what: 'the month end',
          markFailed: () =>
            markMonthEndFailed(deps.knex, deps.clock(), {
              runId: opened.run.id,
              failure: 'the workflow could not be started',
            }),
          log: ctx.state.log,
        },
      );
    }
    return serializeMonthEndRun(await monthEndRunDetail(deps.knex, opened.run.id));
  },
});

/** Month ends (docs/domain.md §8): one run per enterprise and month, its steps and what each posted. */
export const monthEndRoutes = [
  startRoute,
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/month-ends/',
    module: 'enterprise',
    operationId: 'listMonthEnds',
    summary: 'Month ends, latest period first, with their steps (of the enterprises the caller sees whole)',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      status: yup.string().oneOf(runStatuses).optional(),
      period: periodSchema().optional(),
    }),
    response: pageSchema(runSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToWholeEnterprises(monthEndRunsQuery(deps.knex), principal, 'enterprise_id').orderBy([
        { column: 'period', order: 'desc' },
        { column: 'id' },
      ]);
      whereFilters(rows, query, { enterprise: 'enterprise_id', status: 'status', period: 'period' });
      const page = await paginateRows<MonthEndRunRow>(rows, query, new URL(ctx.href));
      return { ...page, results: (await withSteps(deps.knex, page.results)).map(serializeMonthEndRun) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/month-ends/{id}/',
    module: 'enterprise',
    operationId: 'getMonthEnd',
    summary: 'One month end: its steps, their amounts, per-loan lines and entries',
    description:
      "Its amounts are the enterprise's and its lines name loans and member accounts of every " +
      'branch: only a role over the whole enterprise reads it; to a user of some branches it is 404.',
    access: 'authenticated',
    load: enterpriseLoaders.monthEnd,
    params: idParams,
    query: yup.object({ enterprise: enterpriseFilter }),
    response: runSchema,
    errorStatuses: [401, 404],
    handler: async ({ resource, deps }) => serializeMonthEndRun((await withSteps(deps.knex, [resource]))[0]!),
  }),
].flatMap(withNestedVariant);
