import * as yup from 'yup';
import { createFixedAssetCategory } from '../../../activities/accounting/fixed-asset-categories.activity';
import { categoriesQuery, type CategoryRow } from '../../../activities/accounting/fixed-assets.queries';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { accountCodeSchema, enterpriseFilter, idParams, timestampResponse } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { accountChoiceRefusals } from '../refusal-lists';
import { accountingLoaders } from './accounting.queries';

/** Who keeps the register: the accountant, the direction, the administrators. */
export const registerKeepers = ['accountant', 'direction', 'admin'] as const;

const account = (description: string) => yup.string().required().meta({ description });

const categorySchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    name: yup.string().required(),
    depreciation_months: yup
      .number()
      .integer()
      .required()
      .meta({ description: 'The period an asset of the category is depreciated over, by default.' }),
    asset_account: account("Class 2: the asset at cost (225 matériel et mobilier d'exploitation…)."),
    depreciation_account: account('28: accumulated depreciation (2825…).'),
    charge_account: account('68: the depreciation charge (6824…).'),
    disposal_value_account: account('676: the net book value of an asset sold (6762).'),
    disposal_proceeds_account: account('775: the price of an asset sold.'),
    created_by: yup.string().uuid().required(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'FixedAssetCategory' });

const serializeCategory = (row: CategoryRow) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  name: row.name,
  depreciation_months: row.depreciation_months,
  asset_account: row.asset_account_code,
  depreciation_account: row.depreciation_account_code,
  charge_account: row.charge_account_code,
  disposal_value_account: row.disposal_value_account_code,
  disposal_proceeds_account: row.disposal_proceeds_account_code,
  created_by: row.created_by,
  created_at: row.created_at.toISOString(),
});

/** Fixed-asset categories (docs/domain.md §12.4): the period and the accounts an asset of the category posts to. */
export const fixedAssetCategoryRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/fixed-asset-categories/',
    module: 'accounting',
    operationId: 'listFixedAssetCategories',
    summary: 'List fixed-asset categories',
    access: 'authenticated',
    query: listQuerySchema([], { enterprise: enterpriseFilter }),
    response: pageSchema(categorySchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(categoriesQuery(deps.knex), principal, { enterprise: 'c.enterprise_id' }).orderBy([
        { column: 'c.name' },
        { column: 'c.id' },
      ]);
      whereFilters(rows, query, { enterprise: 'c.enterprise_id' });
      const page = await paginateRows<CategoryRow>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serializeCategory) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/fixed-asset-categories/{id}/',
    module: 'accounting',
    operationId: 'getFixedAssetCategory',
    summary: 'One fixed-asset category',
    access: 'authenticated',
    load: accountingLoaders.fixedAssetCategory,
    params: idParams,
    response: categorySchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeCategory(resource),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounting/fixed-asset-categories/',
    module: 'accounting',
    operationId: 'createFixedAssetCategory',
    summary: 'Create a fixed-asset category (accountant, direction, administrators)',
    description:
      "Each account must be a postable account of the enterprise's chart, " +
      'of its class: the asset class 2 (not 28 or 29), the accumulated ' +
      'depreciation 28, the charge 68, the net book value of a disposal class 6 ' +
      '(676), its price class 7 (775). The PCEMF sets of docs/domain.md §12.4: ' +
      'vehicles and equipment 225 / 2825 / 6824, buildings 2211 / 2821 ' +
      '/ 6821, software 2024 / 28012 / 6802; each with 6762 and 775. ' +
      "A category's accounts do not change once created: its assets' books are on them.",
    access: registerKeepers,
    status: 201,
    location: '/api/v1/accounting/fixed-asset-categories/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      name: yup.string().trim().min(2).max(200).required(),
      depreciation_months: yup.number().strict(true).integer().min(1).max(1200).required(),
      asset_account: accountCodeSchema().required(),
      depreciation_account: accountCodeSchema().required(),
      charge_account: accountCodeSchema().required(),
      disposal_value_account: accountCodeSchema().default('6762'),
      disposal_proceeds_account: accountCodeSchema().default('775'),
    }),
    response: categorySchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [...accountChoiceRefusals, 'fixed_asset_category_taken'],
    handler: async ({ body, principal: actor, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise }, 'The enterprise');
      const row = await createFixedAssetCategory(deps.activities, actor, {
        enterpriseId: body.enterprise,
        name: body.name,
        depreciationMonths: body.depreciation_months,
        assetAccount: body.asset_account,
        depreciationAccount: body.depreciation_account,
        chargeAccount: body.charge_account,
        disposalValueAccount: body.disposal_value_account,
        disposalProceedsAccount: body.disposal_proceeds_account,
      });
      return serializeCategory(row);
    },
  }),
];
