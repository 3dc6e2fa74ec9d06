import type { Knex } from 'knex';
import * as yup from 'yup';
import { addSubAccount, deleteEntry, updateEntry } from '../../../activities/accounts/chart-entries.activity';
import { NotFoundError } from '../../../domain/errors';
import { chartEntriesQuery, chartEntryById } from '../../../activities/accounts/chart-entries.queries';
import { CompanyChartEntry } from '../../../db/models/company-chart-entry.model';
import { listQuerySchema, pageSchema, paginate, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { accountCode, accountFilters, entrySchema, filterAccounts, serializeEntry } from './account-plans.schemas';
import { accountLoaders } from './accounts.queries';

const writers = ['direction', 'admin'] as const;
const chartParams = yup.object({
  chart_pk: yup.string().uuid().required().meta({ description: "The enterprise's chart." }),
});
const entryParams = chartParams.shape({ id: yup.string().uuid().required() });
const label = yup.string().trim().min(2).max(200);

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
    load: accountLoaders.chart,
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
    handler: async ({ query, deps, ctx, resource }) => {
      const builder = filterAccounts(chartEntriesQuery(deps.knex), 'company_chart_entries', query);
      builder.where('company_chart_entries.chart_id', resource.id);
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
    load: accountLoaders.chart,
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
    handler: async ({ body, principal: actor, deps, resource }) => {
      const entry = await addSubAccount(deps.activities, actor, resource.id, {
        parentCode: body.parent_code,
        code: body.code,
        label: body.label,
      });
      return entryOf(deps.knex, resource.id, entry.id);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/entries/{id}/',
    module: 'accounts',
    operationId: 'getChartEntry',
    summary: 'Account detail',
    access: 'authenticated',
    load: accountLoaders.chart,
    params: entryParams,
    response: entrySchema,
    errorStatuses: [401, 404],
    handler: async ({ params, deps, resource }) => {
      return entryOf(deps.knex, resource.id, params.id);
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/accounts/charts/{chart_pk}/entries/{id}/',
    module: 'accounts',
    operationId: 'updateChartEntry',
    summary: 'Rename, deactivate or reactivate an account (not the system accounts of classes 6 to 9)',
    access: writers,
    load: accountLoaders.chart,
    params: entryParams,
    body: yup.object({ label: label.optional(), is_active: yup.boolean().optional() }),
    response: entrySchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['account_used_by_rule', 'system_account'],
    handler: async ({ params, body, principal: actor, deps, resource }) => {
      await updateEntry(deps.activities, actor, resource.id, params.id, {
        label: body.label,
        isActive: body.is_active,
      });
      return entryOf(deps.knex, resource.id, params.id);
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
    load: accountLoaders.chart,
    params: entryParams,
    errorStatuses: [401, 403, 404, 409],
    refusals: [
      'account_has_children',
      'account_has_postings',
      'account_used_by_rule',
      'plan_account',
      'system_account',
    ],
    handler: async ({ params, principal: actor, deps, resource }) => {
      await deleteEntry(deps.activities, actor, resource.id, params.id);
      return undefined;
    },
  }),
];
