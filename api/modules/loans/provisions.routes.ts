import * as yup from 'yup';
import {
  markProvisioningRunFailed,
  provisionPositionsAt,
  provisionRowsAt,
  startProvisioningRun,
} from '../../../activities/loans/provisioning.activity';
import { runById, runColumns, runStatuses, type RunRow } from '../../../activities/loans/provisioning.queries';
import { provisioningRunWorkflowId } from '../../../workflows/identities';
import type { provisioningRun, ProvisioningRunInput } from '../../../workflows/provisioning.workflow';
import { requireRole, requireVisible } from '../../auth/access';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { requestOrigin } from '../../context';
import { startWorkflowFor } from '../../workflow-start';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { scopeToVisible, scopeToWholeEnterprises } from '../enterprise-scope';
import { visibleRows } from '../list-rows';
import { classifications } from './loans.routes';
import { loanLoaders } from './loans.queries';
import { moneyResponse } from '../money.schemas';

const runners = ['direction', 'admin'] as const;

interface ProvisionRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  loan_id: string;
  run_id: string;
  as_of: string;
  days_past_due: number;
  classification: (typeof classifications)[number];
  rate: string;
  base: string;
  uncovered: string;
  amount: string;
  previous_amount: string;
  delta: string;
  created_at: Date;
}

const loanProvisionSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    branch: yup.string().uuid().required(),
    loan: yup.string().uuid().required(),
    run: yup.string().uuid().required().meta({ description: 'The provisioning run that wrote it.' }),
    as_of: dateResponse(),
    days_past_due: yup.number().integer().required(),
    classification: yup.string().oneOf(classifications).required(),
    rate: yup
      .string()
      .required()
      .meta({ description: 'Provision rate of the class and age, a decimal.', example: '0.250000' }),
    base: moneyResponse().meta({ description: 'Outstanding principal.' }),
    uncovered: moneyResponse().meta({ description: 'The base less what guarantees cover: what the rate applies to.' }),
    amount: moneyResponse(),
    previous_amount: moneyResponse(),
    delta: moneyResponse().meta({
      description: 'amount - previous_amount: charged when positive, reversed when negative.',
    }),
    created_at: timestampResponse(),
  })
  .meta({ component: 'LoanProvision' });

function serializeProvision(row: ProvisionRow) {
  return {
    id: row.id,
    enterprise: row.enterprise_id,
    branch: row.branch_id,
    loan: row.loan_id,
    run: row.run_id,
    as_of: row.as_of,
    days_past_due: row.days_past_due,
    classification: row.classification,
    rate: row.rate,
    base: row.base,
    uncovered: row.uncovered,
    amount: row.amount,
    previous_amount: row.previous_amount,
    delta: row.delta,
    created_at: row.created_at.toISOString(),
  };
}

const provisionTotalsSchema = yup
  .object({
    enterprise: yup.string().uuid().required(),
    as_of: dateResponse(),
    by_class: yup
      .array(
        yup
          .object({
            classification: yup.string().oneOf(classifications).required(),
            loans: yup.number().integer().required(),
            outstanding: moneyResponse().meta({ description: 'Outstanding principal of the class.' }),
            uncovered: moneyResponse().meta({ description: 'What guarantees leave uncovered.' }),
            provisions: moneyResponse(),
          })
          .meta({ component: 'LoanProvisionClassTotal' }),
      )
      .required()
      .meta({ description: 'One row per class provisioned at that date, by class name.' }),
  })
  .meta({ component: 'LoanProvisionTotals' });

const provisioningRunSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    as_of: dateResponse(),
    trigger: yup
      .string()
      .oneOf(['schedule', 'api'] as const)
      .required()
      .meta({ description: 'schedule: the daily Schedule; api: on request.' }),
    status: yup.string().oneOf(runStatuses).required(),
    requested_by: nullableId('null for a scheduled run.'),
    loans_processed: yup.number().integer().required(),
    provisions_changed: yup.number().integer().required(),
    loans_reclassified: yup.number().integer().required(),
    amount_charged: moneyResponse(),
    amount_reversed: moneyResponse(),
    failure: yup.string().nullable().defined(),
    created_at: timestampResponse(),
    finished_at: timestampResponse().nullable(),
    workflow_id: yup.string().nullable().defined().meta({
      description: "The run's workflow; null for a scheduled run (see the Schedule `provisioning-{enterprise}`).",
    }),
  })
  .meta({ component: 'ProvisioningRun' });

function serializeRun(row: RunRow) {
  return {
    id: row.id,
    enterprise: row.enterprise_id,
    as_of: row.as_of,
    trigger: row.trigger,
    status: row.status,
    requested_by: row.requested_by,
    loans_processed: row.loans_processed,
    provisions_changed: row.provisions_changed,
    loans_reclassified: row.loans_reclassified,
    amount_charged: row.amount_charged,
    amount_reversed: row.amount_reversed,
    failure: row.failure,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
    workflow_id: row.trigger === 'api' ? provisioningRunWorkflowId(row.id) : null,
  };
}

/** Provisions by loan and date, their totals by class, and provisioning runs (daily by Schedule, or on request). */
export const provisionRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/provisions/',
    module: 'loans',
    operationId: 'listLoanProvisions',
    summary: 'Provisions per loan and date (LoanProvision): age, class, rate, base, amount, previous amount, delta',
    description:
      "A row is written when a loan's position changes (its class or " +
      'provision, and while it is not performing or is provisioned, its rate, ' +
      "outstanding principal or uncovered part). With `as_of`, each loan's " +
      'position at that date: its latest row on or before it (a loan with none was ' +
      'performing and unprovisioned). Without, every row.',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      loan: yup.string().uuid().optional(),
      as_of: isoDate()
        .optional()
        .meta({ description: "The positions at this date: each loan's latest row on or before it." }),
      classification: yup.string().oneOf(classifications).optional(),
    }),
    response: pageSchema(loanProvisionSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const source =
        query.as_of === undefined
          ? deps.knex('loan_provisions')
          : deps.knex.from(provisionRowsAt(deps.knex, query.as_of).as('loan_provisions'));
      const rows = visibleRows(source.select('*'), principal, query, {
        enterprise: 'enterprise_id',
        branch: 'branch_id',
        loan: 'loan_id',
        classification: 'classification',
      }).orderBy([{ column: 'as_of', order: 'desc' }, { column: 'id' }]);
      const page = await paginateRows<ProvisionRow>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serializeProvision) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/provisions/totals/',
    module: 'loans',
    operationId: 'loanProvisionTotals',
    summary:
      'Totals by class for one date: loans, outstanding principal, ' +
      'uncovered base, provisions (the COBAC report figures)',
    description:
      'Over the loans in the portfolio at that date, each at its position then (its ' +
      'latest LoanProvision row on or before it; performing and unprovisioned without one).',
    access: 'authenticated',
    query: yup.object({
      enterprise: yup.string().uuid().required(),
      as_of: isoDate().required(),
      branch: yup.string().uuid().optional(),
    }),
    response: provisionTotalsSchema,
    errorStatuses: [401, 404],
    handler: async ({ query, principal, deps }) => {
      const actor = principal;
      requireVisible(actor, { enterpriseId: query.enterprise, branchId: query.branch }, 'The enterprise');
      const positions = scopeToVisible(provisionPositionsAt(deps.knex, query.as_of), actor, {
        enterprise: 'l.enterprise_id',
        branch: 'l.branch_id',
      }).where('l.enterprise_id', query.enterprise);
      if (query.branch !== undefined) positions.where('l.branch_id', query.branch);
      const rows = deps.knex
        .from(positions.as('positions'))
        .groupBy('classification')
        .orderBy('classification')
        .select(
          'classification',
          deps.knex.raw('count(*)::int AS loans'),
          deps.knex.raw('sum(outstanding)::text AS outstanding'),
          deps.knex.raw('sum(uncovered)::text AS uncovered'),
          deps.knex.raw('sum(amount)::text AS provisions'),
        );
      return { enterprise: query.enterprise, as_of: query.as_of, by_class: await rows };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/provisions/runs/',
    module: 'loans',
    operationId: 'startProvisioningRun',
    summary: 'Run the provisioning for a date (direction, administrators); default: the business date',
    description:
      'The daily Schedule `provisioning-{enterprise}` does the same. A run for a date already provisioned ' +
      'posts only what changed since; an earlier date than the last one provisioned is refused.',
    access: runners,
    status: 202,
    location: '/api/v1/loans/provisions/runs/{id}/',
    body: yup.object({ enterprise: yup.string().uuid().required(), as_of: isoDate().optional() }),
    response: provisioningRunSchema,
    errorStatuses: [401, 403, 404, 409, 422, 503],
    refusals: ['as_of_after_business_date', 'provisioning_date_passed', 'workflow_unavailable'],
    handler: async ({ body, principal, deps, ctx }) => {
      const actor = principal;
      requireRole(actor, runners, { enterpriseId: body.enterprise }, 'The enterprise');
      const run = await startProvisioningRun(deps.knex, deps.clock(), {
        enterpriseId: body.enterprise,
        asOf: body.as_of ?? null,
        trigger: 'api',
        requestedBy: actor.userId,
        ...requestOrigin(ctx),
      });
      const input: ProvisioningRunInput = { enterpriseId: body.enterprise, runId: run.id };
      await startWorkflowFor<typeof provisioningRun>(
        deps,
        'provisioningRun',
        {
          workflowId: provisioningRunWorkflowId(run.id),
          args: [input],
          tags: { enterpriseId: body.enterprise, businessId: run.id },
        },
        {
          what: 'the run',
          markFailed: () =>
            markProvisioningRunFailed(deps.knex, deps.clock(), {
              runId: run.id,
              failure: 'the workflow could not be started',
            }),
          log: ctx.state.log,
        },
      );
      return serializeRun((await runById(deps.knex, run.id))!);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/provisions/runs/',
    module: 'loans',
    operationId: 'listProvisioningRuns',
    summary:
      'Provisioning runs, newest first: status, loans processed, provisions changed, ' +
      'amounts charged and reversed (of the enterprises the caller sees whole)',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      as_of: isoDate().optional(),
      status: yup.string().oneOf(runStatuses).optional(),
    }),
    response: pageSchema(provisioningRunSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToWholeEnterprises(
        deps.knex('provisioning_runs').select(runColumns),
        principal,
        'enterprise_id',
      ).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
      whereFilters(rows, query, { enterprise: 'enterprise_id', as_of: 'as_of', status: 'status' });
      const page = await paginateRows<RunRow>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serializeRun) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/provisions/runs/{id}/',
    module: 'loans',
    operationId: 'getProvisioningRun',
    summary: 'One provisioning run and its progress',
    description:
      "Its figures are the enterprise's: only a role over the whole enterprise reads it " +
      "(404 to a user of some branches, whose loans' provisions are at /loans/provisions/).",
    access: 'authenticated',
    load: loanLoaders.provisioningRun,
    params: idParams,
    response: provisioningRunSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeRun(resource),
  }),
];
