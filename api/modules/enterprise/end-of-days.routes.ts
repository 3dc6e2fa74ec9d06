import type { Knex } from 'knex';
import * as yup from 'yup';
import { markEndOfDayFailed, openEndOfDayRun, type EndOfDayRunRow, type EndOfDayStepRow } from '../../../activities/enterprise/end-of-day.activity';
import { endOfDayWorkflowId } from '../../../workflows/identities';
import type { endOfDay, EndOfDayInput } from '../../../workflows/end-of-day.workflow';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import { requestOrigin } from '../../context';
import { startWorkflowFor } from '../../workflow-start';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse } from '../common.schemas';
import { scopeToWholeEnterprises, withNestedVariant } from '../enterprise-scope';
import { requireWholeEnterprise } from '../../auth/access';

const runStatuses = ['running', 'done', 'failed'] as const;

const stepSchema = yup.object({
  step: yup.string().required().meta({ description: 'The step, in the order the endOfDay workflow runs them: awaitBranchDays, provision, matureTermDeposits, moveBusinessDate, startMonthEnd.' }),
  status: yup.string().oneOf(['pending', 'done']).required(),
  finished_at: timestampResponse().nullable(),
  result: yup.object().nullable().defined().meta({
    description: 'What the step did, once done: the branches closed, the provisioning run and its figures, the deposits matured, the dates moved, the month end started or refused.',
    additionalProperties: true,
  }),
}).meta({ component: 'EndOfDayStep' });

const runSchema = yup.object({
  id: yup.string().uuid().required(),
  enterprise: yup.string().uuid().required(),
  date: dateResponse().meta({ description: 'The business date the run closes.' }),
  next_date: dateResponse().nullable().meta({ description: 'The business date after it, once moved: from then the day is closed.' }),
  status: yup.string().oneOf(runStatuses).required(),
  trigger: yup.string().oneOf(['api', 'schedule']).required(),
  started_by: yup.string().uuid().nullable().defined(),
  failure: yup.string().nullable().defined(),
  provisioning_run: yup.string().uuid().nullable().defined(),
  month_end: yup.string().uuid().nullable().defined().meta({ description: 'The month end it started, on a month\'s last day.' }),
  workflow_id: yup.string().required(),
  started_at: timestampResponse(),
  finished_at: timestampResponse().nullable(),
  steps: yup.array(stepSchema).required(),
  awaiting_branches: yup.array(yup.string().uuid().required()).nullable().defined()
    .meta({ description: 'While the run runs: the active branches that have not closed its day yet, what it waits for (empty once all have); null once it ended.' }),
}).meta({ component: 'EndOfDayRun' });

type StepAnswer = ReturnType<typeof serializeStep>;

const serializeStep = (step: EndOfDayStepRow) => ({ step: step.step, status: step.status, finished_at: step.finished_at?.toISOString() ?? null, result: step.result });

/** The steps of each run, in one query. */
async function stepsOf(knex: Knex, runIds: readonly string[]): Promise<Map<string, StepAnswer[]>> {
  const steps: EndOfDayStepRow[] = await knex('end_of_day_steps').whereIn('run_id', [...runIds]).orderBy(['run_id', 'position']);
  const byRun = new Map<string, StepAnswer[]>();
  for (const step of steps) byRun.set(step.run_id, [...(byRun.get(step.run_id) ?? []), serializeStep(step)]);
  return byRun;
}

/** Of each running run, the active branches that have not closed its day: what holds it, for direction to chase. */
async function awaitedOf(knex: Knex, runs: readonly EndOfDayRunRow[]): Promise<Map<string, string[]>> {
  const byRun = new Map<string, string[]>();
  for (const run of runs.filter((one) => one.status === 'running')) {
    const open = knex('branches as b').where({ 'b.enterprise_id': run.enterprise_id, 'b.status': 'active' })
      .whereNotExists(knex('branch_days as d').whereRaw('d.branch_id = b.id AND d.business_date = ?', [run.business_date]));
    byRun.set(run.id, await open.orderBy('b.code').pluck('b.id'));
  }
  return byRun;
}

/** The runs as the API shows them, with their steps and what they wait for. */
async function serializeRuns(knex: Knex, runs: readonly EndOfDayRunRow[]) {
  const [steps, awaited] = [await stepsOf(knex, runs.map((run) => run.id)), await awaitedOf(knex, runs)];
  return runs.map((run) => ({
    id: run.id,
    enterprise: run.enterprise_id,
    date: run.business_date,
    next_date: run.next_date,
    status: run.status,
    trigger: run.trigger,
    started_by: run.started_by,
    failure: run.failure,
    provisioning_run: run.provisioning_run_id,
    month_end: run.month_end_run_id,
    workflow_id: endOfDayWorkflowId(run.enterprise_id, run.business_date),
    started_at: run.created_at.toISOString(),
    finished_at: run.finished_at?.toISOString() ?? null,
    steps: steps.get(run.id) ?? [],
    awaiting_branches: awaited.get(run.id) ?? null,
  }));
}

const withSteps = async (knex: Knex, run: EndOfDayRunRow) => (await serializeRuns(knex, [run]))[0]!;

const endOfDayLoader = {
  name: 'The end of day',
  load: async ({ knex }, id) => knex('end_of_day_runs').where({ id }).first() as Promise<EndOfDayRunRow | undefined>,
  scope: (run) => ({ enterpriseId: run.enterprise_id }),
} satisfies Loader<EndOfDayRunRow>;

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
  description: 'It waits for every active branch to close its day (`POST /api/v1/cash/branch-days/`), provisions at the date, matures the term deposits due, moves the business date '
    + 'to the next working day (Saturdays and Sundays skipped) and, on a month\'s last day, starts the month end. `date` defaults to the business date; another date '
    + 'is refused (`end_of_day_not_business_date`, 422) unless it has a run, which is answered. Once the date moves, nothing can be dated on or before the day (`day_closed`).',
  access: ['direction', 'admin'],
  status: 202,
  location: '/api/v1/enterprise/end-of-days/{id}/',
  body: yup.object({ enterprise: yup.string().uuid().required(), date: isoDate().optional() }),
  response: runSchema,
  errorStatuses: [401, 403, 404, 422, 503],
  refusals: ['end_of_day_not_business_date', 'workflow_unavailable'],
  handler: async ({ body, principal: actor, deps, authorize, ctx }) => {
    authorize({ enterpriseId: body.enterprise }, 'The enterprise');
    const request = { enterpriseId: body.enterprise, date: body.date ?? null, trigger: 'api' as const, startedBy: actor.userId, ...requestOrigin(ctx) };
    const opened = await openEndOfDayRun(deps.knex, deps.clock(), request);
    const { run } = opened;
    if (opened.start) {
      const input: EndOfDayInput = { enterpriseId: body.enterprise, date: run.business_date, runId: run.id };
      await startWorkflowFor<typeof endOfDay>(deps, 'endOfDay', {
        workflowId: endOfDayWorkflowId(body.enterprise, run.business_date),
        args: [input],
        tags: { enterpriseId: body.enterprise, businessId: run.business_date },
      }, {
        what: 'the end of day',
        markFailed: () => markEndOfDayFailed(deps.knex, deps.clock(), { runId: run.id, failure: 'the workflow could not be started' }),
        log: ctx.state.log,
      });
    }
    return withSteps(deps.knex, await deps.knex('end_of_day_runs').where({ id: run.id }).first());
  },
});

/** Ends of day (issue 29, docs/domain.md §13.3): one run per enterprise and business date, its steps and what each did. */
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
      enterprise: enterpriseFilter, status: yup.string().oneOf(runStatuses).optional(), date_from: isoDate().optional(), date_to: isoDate().optional(),
    }),
    response: pageSchema(runSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToWholeEnterprises(deps.knex('end_of_day_runs').select('*'), principal, 'enterprise_id').orderBy([{ column: 'business_date', order: 'desc' }, { column: 'id' }]);
      whereFilters(rows, query, { enterprise: 'enterprise_id', status: 'status', date_from: ['business_date', '>='], date_to: ['business_date', '<='] });
      const page = await paginateRows<EndOfDayRunRow>(rows, query, new URL(ctx.href));
      return { ...page, results: await serializeRuns(deps.knex, page.results) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/end-of-days/{id}/',
    module: 'enterprise',
    operationId: 'getEndOfDay',
    summary: 'One end of day: its steps and what each did',
    description: 'The enterprise\'s figures (its provisioning, its maturities): only a role over the whole enterprise reads it; to a user of some branches it is 404.',
    access: 'authenticated',
    load: endOfDayLoader,
    params: idParams,
    query: yup.object({ enterprise: enterpriseFilter }),
    response: runSchema,
    errorStatuses: [401, 404],
    handler: async ({ resource, principal, deps }) => {
      requireWholeEnterprise(principal, resource.enterprise_id, 'The end of day');
      return withSteps(deps.knex, resource);
    },
  }),
].flatMap(withNestedVariant);
