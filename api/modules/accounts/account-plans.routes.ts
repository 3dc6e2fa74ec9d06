import * as yup from 'yup';
import { createAccountPlan } from '../../../activities/accounts/account-plans.activity';
import { NotFoundError } from '../../../domain/errors';
import {
  accountPlanById,
  accountPlansQuery,
  accountRecordsQuery,
  companyChartsQuery,
  recordsOfClass,
} from '../../../activities/accounts/account-plans.queries';
import { listQuerySchema, pageSchema, paginate, whereFilters } from '../../pagination';
import { defineRoute, type AnyRoute } from '../../route';
import {
  accountFilters,
  chartSchema,
  filterAccounts,
  nestRecords,
  planSchema,
  recordSchema,
  serializeChart,
  serializePlan,
  serializeRecord,
  treeNodeSchema,
} from './account-plans.schemas';
import { chartEntryRoutes } from './chart-entries.routes';
import { codeSchema, enterpriseFilter, idParams } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';

/** Standard plans: shared by every enterprise, so readable by any signed-in user. */
const planRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/plans/',
    module: 'accounts',
    operationId: 'listAccountPlans',
    summary: 'List the standard charts of accounts (PCEMF 2010)',
    access: 'authenticated',
    query: listQuerySchema(['code', 'name', 'created_at'], {}),
    errorStatuses: [401],
    response: pageSchema(planSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, deps, ctx }) => {
      const page = await paginate(accountPlansQuery(deps.knex), {
        query,
        url: new URL(ctx.href),
        orderingColumns: { code: 'code', name: 'name', created_at: 'account_plans.created_at' },
        defaultOrdering: 'code',
      });
      return { ...page, results: page.results.map(serializePlan) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/plans/{id}/',
    module: 'accounts',
    operationId: 'getAccountPlan',
    summary: 'A standard chart of accounts',
    access: 'authenticated',
    params: idParams,
    response: planSchema,
    errorStatuses: [401, 404],
    handler: async ({ params, deps }) => {
      const plan = await accountPlanById(deps.knex, params.id);
      if (plan === undefined) throw new NotFoundError('The plan');
      return serializePlan(plan);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounts/plans/',
    module: 'accounts',
    operationId: 'createAccountPlan',
    summary: 'Register a standard plan, empty (platform administrators)',
    description:
      'Creates the plan only. Loading the accounts of a custom plan is out of scope for now: the PCEMF 2010 is ' +
      "installed with its accounts, and the enterprises' charts are copied from it.",
    access: ['admin'],
    status: 201,
    location: '/api/v1/accounts/plans/{id}/',
    body: yup.object({
      code: codeSchema(30),
      name: yup.string().trim().required().min(2).max(200),
      description: yup.string().trim().max(1000).default(''),
    }),
    response: planSchema,
    errorStatuses: [401, 403, 409],
    refusals: ['plan_code_taken'],
    handler: async ({ body, principal, deps }) =>
      serializePlan(await createAccountPlan(deps.activities, principal, body)),
  }),
];

const recordRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/records/',
    module: 'accounts',
    operationId: 'listAccountRecords',
    summary: 'List the accounts of the standard plans',
    access: 'authenticated',
    query: listQuerySchema(['code', 'label'], {
      plan: yup.string().uuid().optional().meta({ description: 'Only this plan.' }),
      ...accountFilters,
    }),
    errorStatuses: [401],
    response: pageSchema(recordSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, deps, ctx }) => {
      const builder = filterAccounts(accountRecordsQuery(deps.knex), 'account_records', query);
      whereFilters(builder, query, { plan: 'plan_id' });
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { code: 'code', label: 'label' },
        defaultOrdering: 'code',
      });
      return { ...page, results: page.results.map(serializeRecord) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/records/tree/',
    module: 'accounts',
    operationId: 'getAccountClassTree',
    summary: 'One class of a plan as a tree, from its root',
    access: 'authenticated',
    query: yup.object({
      plan: yup.string().uuid().required(),
      class: yup.number().integer().min(1).max(9).required(),
    }),
    response: treeNodeSchema,
    errorStatuses: [401, 404],
    handler: async ({ query, deps }) => {
      const records = await recordsOfClass(deps.knex, query.plan, query.class);
      const root = nestRecords(records, String(query.class));
      if (root === undefined) throw new NotFoundError(`Class ${query.class} of this plan`);
      return root;
    },
  }),
];

const chartRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/',
    module: 'accounts',
    operationId: 'listCompanyCharts',
    summary: "List the enterprises' charts of accounts the user may see",
    access: 'authenticated',
    query: listQuerySchema(['created_at'], { enterprise: enterpriseFilter }),
    errorStatuses: [401],
    response: pageSchema(chartSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = scopeToVisible(companyChartsQuery(deps.knex), principal, {
        enterprise: 'company_charts.enterprise_id',
      });
      whereFilters(builder, query, { enterprise: 'enterprise_id' });
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { created_at: 'company_charts.created_at' },
        defaultOrdering: 'created_at',
      });
      return { ...page, results: page.results.map(serializeChart) };
    },
  }),
];

/** Charts of accounts: the standard plans and their accounts, and each enterprise's chart. */
export const accountRoutes: AnyRoute[] = [...planRoutes, ...recordRoutes, ...chartRoutes, ...chartEntryRoutes];
