import * as yup from 'yup';
import { markProvisioningRunFailed, startProvisioningRun } from '../../activities/loans/provisioning.activity';
import { NotFoundError } from '../../domain/errors';
import type { ProvisioningRunInput } from '../../workflows/provisioning.workflow';
import { requireRole, requireVisible, signedIn } from '../auth/access';
import { listQuerySchema, paginateRows, whereFilters } from '../pagination';
import { defineRoute } from '../route';
import { startWorkflowFor } from '../workflow-start';
import { enterpriseFilter, idParams, isoDate } from './common.schemas';
import { scopeToVisible } from './enterprise-scope';
import { classifications } from './loans.routes';

const runners = ['direction', 'admin'] as const;
const runColumns = [
  'id', 'enterprise_id as enterprise', 'as_of', 'trigger', 'status', 'requested_by', 'loans_processed', 'provisions_changed', 'loans_reclassified',
  'amount_charged', 'amount_reversed', 'failure', 'created_at', 'finished_at',
];

/** Workflow id from the business id (docs/architecture.md §5). */
export const provisioningRunWorkflowId = (runId: string) => `provisioning-run-${runId}`;

/** Provisions by loan and date, their totals by class, and provisioning runs (daily by Schedule, or on request). */
export const provisionRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/provisions/',
    module: 'loans',
    operationId: 'listLoanProvisions',
    summary: 'Provisions per loan and date (LoanProvision): age, class, rate, base, amount, previous amount, delta',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      loan: yup.string().uuid().optional(),
      as_of: isoDate().optional(),
      classification: yup.string().oneOf(classifications).optional(),
    }),
    errorStatuses: [401],
    handler: ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(deps.knex('loan_provisions').select('*'), signedIn(principal), { enterprise: 'enterprise_id', branch: 'branch_id' }).orderBy([{ column: 'as_of', order: 'desc' }, { column: 'id' }]);
      whereFilters(rows, query, { enterprise: 'enterprise_id', branch: 'branch_id', loan: 'loan_id', as_of: 'as_of', classification: 'classification' });
      return paginateRows(rows, query, new URL(ctx.href));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/provisions/totals/',
    module: 'loans',
    operationId: 'loanProvisionTotals',
    summary: 'Totals by class for one date: loans, outstanding principal, uncovered base, provisions (the COBAC report figures)',
    access: 'authenticated',
    query: yup.object({ enterprise: yup.string().uuid().required(), as_of: isoDate().required(), branch: yup.string().uuid().optional() }),
    errorStatuses: [401, 404],
    handler: async ({ query, principal, deps }) => {
      const actor = signedIn(principal);
      requireVisible(actor, { enterpriseId: query.enterprise, branchId: query.branch }, 'The enterprise');
      const rows = scopeToVisible(deps.knex('loan_provisions'), actor, { enterprise: 'enterprise_id', branch: 'branch_id' })
        .where({ enterprise_id: query.enterprise, as_of: query.as_of })
        .groupBy('classification')
        .orderBy('classification')
        .select('classification', deps.knex.raw('count(*)::int AS loans'), deps.knex.raw('sum(base)::text AS outstanding'), deps.knex.raw('sum(uncovered)::text AS uncovered'), deps.knex.raw('sum(amount)::text AS provisions'));
      if (query.branch !== undefined) rows.where('branch_id', query.branch);
      return { enterprise: query.enterprise, as_of: query.as_of, by_class: await rows };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/provisions/runs/',
    module: 'loans',
    operationId: 'startProvisioningRun',
    summary: 'Run the provisioning for a date (direction, administrators); default: the business date',
    description: 'The daily Schedule `provisioning-{enterprise}` does the same. A date already provisioned changes nothing; an earlier date than the last one provisioned is refused.',
    access: runners,
    status: 202,
    body: yup.object({ enterprise: yup.string().uuid().required(), as_of: isoDate().optional() }),
    errorStatuses: [401, 403, 404, 409, 422, 503],
    handler: async ({ body, principal, deps, ctx }) => {
      const actor = signedIn(principal);
      requireRole(actor, runners, { enterpriseId: body.enterprise }, 'The enterprise');
      const run = await startProvisioningRun(deps.knex, deps.clock(), { enterpriseId: body.enterprise, asOf: body.as_of ?? null, trigger: 'api', requestedBy: actor.userId, requestId: ctx.state.requestId });
      const input: ProvisioningRunInput = { enterpriseId: body.enterprise, runId: run.id };
      await startWorkflowFor(deps, 'provisioningRun', { workflowId: provisioningRunWorkflowId(run.id), args: [input] }, {
        what: 'the run',
        markFailed: () => markProvisioningRunFailed(deps.knex, deps.clock(), { runId: run.id, failure: 'the workflow could not be started' }),
        log: ctx.state.log,
      });
      return { ...(await deps.knex('provisioning_runs').where({ id: run.id }).first(runColumns)), workflow_id: provisioningRunWorkflowId(run.id) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/provisions/runs/',
    module: 'loans',
    operationId: 'listProvisioningRuns',
    summary: 'Provisioning runs, newest first: status, loans processed, provisions changed, amounts charged and reversed',
    access: 'authenticated',
    query: listQuerySchema([], { enterprise: enterpriseFilter, as_of: isoDate().optional(), status: yup.string().oneOf(['running', 'completed', 'failed'] as const).optional() }),
    errorStatuses: [401],
    handler: ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(deps.knex('provisioning_runs').select(runColumns), signedIn(principal), { enterprise: 'enterprise_id' }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
      whereFilters(rows, query, { enterprise: 'enterprise_id', as_of: 'as_of', status: 'status' });
      return paginateRows(rows, query, new URL(ctx.href));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/provisions/runs/{id}/',
    module: 'loans',
    operationId: 'getProvisioningRun',
    summary: 'One provisioning run and its progress',
    access: 'authenticated',
    params: idParams,
    errorStatuses: [401, 404],
    handler: async ({ params, principal, deps }) => {
      const run = await deps.knex('provisioning_runs').where({ id: params.id }).first(runColumns);
      if (run === undefined) throw new NotFoundError('The provisioning run');
      requireVisible(signedIn(principal), { enterpriseId: run.enterprise as string }, 'The provisioning run');
      return { ...run, workflow_id: run.trigger === 'api' ? provisioningRunWorkflowId(run.id as string) : null };
    },
  }),
];
