import type { Knex } from 'knex';
import * as yup from 'yup';
import { markMonthEndFailed, openMonthEndRun, type MonthEndRunRow, type MonthEndStepRow } from '../../../activities/enterprise/month-end.activity';
import { monthEndWorkflowId } from '../../../workflows/identities';
import type { MonthEndStepResult } from '../../../domain/enterprise/month-end-step';
import type { monthEnd, MonthEndInput } from '../../../workflows/month-end.workflow';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { requestOrigin } from '../../context';
import { startWorkflowFor } from '../../workflow-start';
import { dateResponse, enterpriseFilter, idParams, periodSchema, timestampResponse } from '../common.schemas';
import { scopeToWholeEnterprises, withNestedVariant } from '../enterprise-scope';
import { requireWholeEnterprise } from '../../auth/access';
import { moneyResponse } from '../money.schemas';
import { chainAnchorSchema } from '../audit/ledger-verification.routes';
import { enterpriseLoaders } from './enterprise.queries';

const runStatuses = ['running', 'done', 'failed'] as const;

const stepSchema = yup.object({
  step: yup.string().required().meta({ description: 'The step, in the order the monthEnd workflow runs them: reverseLoanInterestAccrual, accrueLoanInterest…' }),
  status: yup.string().oneOf(['pending', 'done']).required(),
  finished_at: timestampResponse().nullable(),
  amount: moneyResponse().nullable().meta({ description: 'The step\'s total once done (interest accrued, reversed…); null while pending.' }),
  lines: yup.array(yup.object({
    account: yup.string().required().meta({ description: 'The chart account (PCEMF code) the amount went to.' }),
    amount: moneyResponse().meta({ description: 'Positive: debited on the account; negative: credited.' }),
    loan: yup.string().uuid().nullable().defined(),
    compte_client: yup.string().uuid().nullable().defined(),
  }).meta({ component: 'MonthEndStepLine' })).required().meta({ description: 'One line per loan or member account touched; they sum to the step\'s amount.' }),
  journal_entries: yup.array(yup.string().uuid().required()).required().meta({ description: 'The entries the step posted.' }),
}).meta({ component: 'MonthEndStep' });

const runSchema = yup.object({
  id: yup.string().uuid().required(),
  enterprise: yup.string().uuid().required(),
  period: yup.string().required().meta({ description: 'The month, YYYY-MM.' }),
  period_start: dateResponse(),
  period_end: dateResponse(),
  status: yup.string().oneOf(runStatuses).required(),
  trigger: yup.string().oneOf(['api', 'schedule', 'end_of_day']).required()
    .meta({ description: 'api: started by `started_by`; schedule: by the enterprise\'s Schedule `month-end-{enterprise}`; end_of_day: by the end of day of the month\'s last day.' }),
  started_by: yup.string().uuid().nullable().defined(),
  failure: yup.string().nullable().defined(),
  workflow_id: yup.string().required(),
  started_at: timestampResponse(),
  finished_at: timestampResponse().nullable(),
  steps: yup.array(stepSchema).required(),
  chain_anchors: yup.array(chainAnchorSchema).nullable().defined().meta({
    description: 'Where the enterprise\'s two hash chains ended when the month end finished (null until done): print and keep them, '
      + 'then give one to the ledger verification (anchor_chain, anchor_position, anchor_hash) to prove the chain was not recomputed since.',
  }),
}).meta({ component: 'MonthEndRun' });

/** The steps of each run with the entries each posted, in two queries. */
async function stepsOf(knex: Knex, runIds: readonly string[]): Promise<Map<string, ReturnType<typeof serializeStep>[]>> {
  const steps: MonthEndStepRow[] = await knex('month_end_steps').whereIn('run_id', [...runIds]).orderBy(['run_id', 'position']);
  const entries: { run_id: string; step: string; entry_id: string }[] = await knex('month_end_entries as m').join('journal_entries as e', 'e.id', 'm.entry_id').whereIn('m.run_id', [...runIds])
    .orderBy(['e.created_at', 'e.id']).select('m.run_id', 'm.step', 'm.entry_id');
  const byRun = new Map<string, ReturnType<typeof serializeStep>[]>();
  for (const step of steps) {
    const posted = entries.filter((entry) => entry.run_id === step.run_id && entry.step === step.step).map((entry) => entry.entry_id);
    byRun.set(step.run_id, [...(byRun.get(step.run_id) ?? []), serializeStep(step, posted)]);
  }
  return byRun;
}

function serializeStep(step: MonthEndStepRow, entries: string[]) {
  const result: MonthEndStepResult | null = step.result;
  return {
    step: step.step,
    status: step.status,
    finished_at: step.finished_at?.toISOString() ?? null,
    amount: result?.amount ?? null,
    lines: (result?.lines ?? []).map((line) => ({ account: line.account, amount: line.amount, loan: line.loanId ?? null, compte_client: line.compteClientId ?? null })),
    journal_entries: entries,
  };
}

function serializeRun(run: MonthEndRunRow, steps: ReturnType<typeof serializeStep>[]) {
  return {
    id: run.id,
    enterprise: run.enterprise_id,
    period: run.period,
    period_start: run.period_start,
    period_end: run.period_end,
    status: run.status,
    trigger: run.trigger,
    started_by: run.started_by,
    failure: run.failure,
    workflow_id: monthEndWorkflowId(run.enterprise_id, run.period),
    started_at: run.created_at.toISOString(),
    finished_at: run.finished_at?.toISOString() ?? null,
    steps,
    chain_anchors: run.chain_anchors,
  };
}

async function withSteps(knex: Knex, run: MonthEndRunRow) {
  return serializeRun(run, (await stepsOf(knex, [run.id])).get(run.id) ?? []);
}

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
  summary: 'Run the month end of a period (direction, administrators): loan interest accrual and its reversal, one run per month',
  description: 'Refused while the month is not over (the business date must be after its last day) and while the previous month end is not done (from the enterprise\'s first month end on); '
    + 'a month before the enterprise\'s first month end is refused (`month_end_out_of_order`), and the first must be a month of the first open accounting year (`first_month_end_outside_first_year`; none open: '
    + '`no_exercice_for_period`). The Schedule `month-end-{enterprise}` starts the month just ended on the first of each month.',
  access: ['direction', 'admin'],
  status: 202,
  location: '/api/v1/enterprise/month-ends/{id}/',
  body: yup.object({ enterprise: yup.string().uuid().required(), period: periodSchema().required() }),
  response: runSchema,
  errorStatuses: [401, 403, 404, 409, 422, 503],
  refusals: ['period_not_over', 'previous_month_end_not_done', 'month_end_out_of_order', 'first_month_end_outside_first_year', 'no_exercice_for_period', 'workflow_unavailable'],
  handler: async ({ body, principal: actor, deps, authorize, ctx }) => {
    authorize({ enterpriseId: body.enterprise }, 'The enterprise');
    const opened = await openMonthEndRun(deps.knex, deps.clock(), { enterpriseId: body.enterprise, period: body.period, trigger: 'api', startedBy: actor.userId, ...requestOrigin(ctx) });
    if (opened.start) {
      const input: MonthEndInput = { enterpriseId: body.enterprise, period: body.period, runId: opened.run.id };
      await startWorkflowFor<typeof monthEnd>(deps, 'monthEnd', {
        workflowId: monthEndWorkflowId(body.enterprise, body.period),
        args: [input],
        tags: { enterpriseId: body.enterprise, businessId: body.period },
      }, {
        what: 'the month end',
        markFailed: () => markMonthEndFailed(deps.knex, deps.clock(), { runId: opened.run.id, failure: 'the workflow could not be started' }),
        log: ctx.state.log,
      });
    }
    return withSteps(deps.knex, await deps.knex('month_end_runs').where({ id: opened.run.id }).first());
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
    query: listQuerySchema([], { enterprise: enterpriseFilter, status: yup.string().oneOf(runStatuses).optional(), period: periodSchema().optional() }),
    response: pageSchema(runSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToWholeEnterprises(deps.knex('month_end_runs').select('*'), principal, 'enterprise_id').orderBy([{ column: 'period', order: 'desc' }, { column: 'id' }]);
      whereFilters(rows, query, { enterprise: 'enterprise_id', status: 'status', period: 'period' });
      const page = await paginateRows<MonthEndRunRow>(rows, query, new URL(ctx.href));
      const steps = await stepsOf(deps.knex, page.results.map((run) => run.id));
      return { ...page, results: page.results.map((run) => serializeRun(run, steps.get(run.id) ?? [])) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/month-ends/{id}/',
    module: 'enterprise',
    operationId: 'getMonthEnd',
    summary: 'One month end: its steps, their amounts, per-loan lines and entries',
    description: 'Its amounts are the enterprise\'s and its lines name loans and member accounts of every branch: only a role over the whole enterprise reads it; to a user of some branches it is 404.',
    access: 'authenticated',
    load: enterpriseLoaders.monthEnd,
    params: idParams,
    query: yup.object({ enterprise: enterpriseFilter }),
    response: runSchema,
    errorStatuses: [401, 404],
    handler: async ({ resource, principal, deps }) => {
      requireWholeEnterprise(principal, resource.enterprise_id, 'The month end');
      return withSteps(deps.knex, resource);
    },
  }),
].flatMap(withNestedVariant);
