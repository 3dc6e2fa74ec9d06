import type { Knex } from 'knex';
import * as yup from 'yup';
import { addSubAccount, deleteEntry, updateEntry } from '../../../activities/accounts/chart-entries.activity';
import type { Role } from '../../../domain/access';
import { NotFoundError } from '../../../domain/errors';
import {
  chartEntriesQuery,
  chartEntryById,
  companyChartById,
} from '../../../activities/accounts/chart-entries.queries';
import type { CompanyChart } from '../../../db/models/company-chart.model';
import { CompanyChartEntry } from '../../../db/models/company-chart-entry.model';
import { requireRole, requireVisible } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import { listQuerySchema, pageSchema, paginate, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { accountCode, accountFilters, entrySchema, filterAccounts, serializeEntry } from './account-plans.schemas';

const writers = ['direction', 'admin'] as const;
const chartParams = yup.object({
  chart_pk: yup.string().uuid().required().meta({ description: "The enterprise's chart." }),
});
const entryParams = chartParams.shape({ id: yup.string().uuid().required() });
const label = yup.string().trim().min(2).max(200);

/**
 * The chart a request acts on. Reading needs a role in its enterprise; changing it, one of `allowed` for the
 * whole enterprise. A chart the user may not see answers 404, as if it did not exist.
 */
async function chartFor(
  knex: Knex,
  principal: Principal,
  chartId: string,
  allowed?: readonly Role[],
): Promise<CompanyChart> {
  const what = 'The chart of accounts';
  const chart = await companyChartById(knex, chartId);
  if (chart === undefined) throw new NotFoundError(what);
  if (allowed === undefined) requireVisible(principal, { enterpriseId: chart.enterpriseId }, what);
  else requireRole(principal, allowed, { enterpriseId: chart.enterpriseId }, what);
  return chart;
}

async function entryOf(knex: Knex, chartId: string, id: string) {
  const entry = await chartEntryById(knex, chartId, id);
  if (entry === undefined) throw new NotFoundError('The account');
  return serializeEntry(entry);
}

/** The accounts of an enterprise's chart: the plan's copy and the enterprise's own sub-accounts. */
export const chartEntryRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/entries/',
    module: 'accounts',
    operationId: 'listChartEntries',
    summary: "List the accounts of an enterprise's chart",
    access: 'authenticated',
    params: chartParams,
    query: listQuerySchema(['code', 'label'], {
      ...accountFilters,
      is_active: yup.boolean().optional(),
      leaf: yup
        .boolean()
        .optional()
        .meta({ description: 'true: only the accounts that can be posted to (no account below).' }),
    }),
    errorStatuses: [401, 404],
    response: pageSchema(entrySchema),
    refusals: ['page_not_found'],
    handler: async ({ params, query, principal, deps, ctx }) => {
      const chart = await chartFor(deps.knex, principal, params.chart_pk);
      const builder = filterAccounts(chartEntriesQuery(deps.knex), 'company_chart_entries', query);
      builder.where('company_chart_entries.chart_id', chart.id);
      whereFilters(builder, query, { is_active: 'company_chart_entries.is_active' });
      if (query.leaf !== undefined) CompanyChartEntry.whereLeaf(builder, query.leaf);
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { code: 'company_chart_entries.code', label: 'company_chart_entries.label' },
        defaultOrdering: 'code',
      });
      return { ...page, results: page.results.map(serializeEntry) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounts/charts/{chart_pk}/entries/',
    module: 'accounts',
    operationId: 'addSubAccount',
    summary: 'Open a sub-account in classes 1 to 5 (direction, administrators)',
    description:
      "The code is the parent's followed by 1 to 3 digits; the parent must be a leaf of the plan or a " +
      'sub-account, without postings.',
    access: writers,
    status: 201,
    location: '/api/v1/accounts/charts/{chart}/entries/{id}/',
    params: chartParams,
    body: yup.object({
      parent_code: accountCode(12).required(),
      code: accountCode(12).required(),
      label: label.required(),
    }),
    response: entrySchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: [
      'account_code_overlaps',
      'account_code_taken',
      'account_has_postings',
      'account_inactive',
      'account_used_by_rule',
      'parent_not_leaf',
      'system_account',
    ],
    handler: async ({ params, body, principal: actor, deps }) => {
      const chart = await chartFor(deps.knex, actor, params.chart_pk, writers);
      const entry = await addSubAccount(deps.activities, actor, chart.id, {
        parentCode: body.parent_code,
        code: body.code,
        label: body.label,
      });
      return entryOf(deps.knex, chart.id, entry.id);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/entries/{id}/',
    module: 'accounts',
    operationId: 'getChartEntry',
    summary: 'Account detail',
    access: 'authenticated',
    params: entryParams,
    response: entrySchema,
    errorStatuses: [401, 404],
    handler: async ({ params, principal, deps }) => {
      const chart = await chartFor(deps.knex, principal, params.chart_pk);
      return entryOf(deps.knex, chart.id, params.id);
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/accounts/charts/{chart_pk}/entries/{id}/',
    module: 'accounts',
    operationId: 'updateChartEntry',
    summary: 'Rename, deactivate or reactivate an account (not the system accounts of classes 6 to 9)',
    access: writers,
    params: entryParams,
    body: yup.object({ label: label.optional(), is_active: yup.boolean().optional() }),
    response: entrySchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['account_used_by_rule', 'system_account'],
    handler: async ({ params, body, principal: actor, deps }) => {
      const chart = await chartFor(deps.knex, actor, params.chart_pk, writers);
      await updateEntry(deps.activities, actor, chart.id, params.id, { label: body.label, isActive: body.is_active });
      return entryOf(deps.knex, chart.id, params.id);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/v1/accounts/charts/{chart_pk}/entries/{id}/',
    module: 'accounts',
    operationId: 'deleteChartEntry',
    summary: "Delete one of the enterprise's own sub-accounts, without sub-accounts or postings",
    access: writers,
    status: 204,
    params: entryParams,
    errorStatuses: [401, 403, 404, 409],
    refusals: [
      'account_has_children',
      'account_has_postings',
      'account_used_by_rule',
      'plan_account',
      'system_account',
    ],
    handler: async ({ params, principal: actor, deps }) => {
      const chart = await chartFor(deps.knex, actor, params.chart_pk, writers);
      await deleteEntry(deps.activities, actor, chart.id, params.id);
      return undefined;
    },
  }),
];
