import type { Knex } from 'knex';
import * as yup from 'yup';
import { acquireFixedAsset, disposeFixedAsset } from '../../../activities/accounting/fixed-assets.activity';
import {
  fixedAssetById,
  fixedAssetsQuery,
  type FixedAssetRow,
} from '../../../activities/accounting/fixed-assets.queries';
import { depreciationSchedule } from '../../../domain/accounting/depreciation';
import { ValidationError } from '../../../domain/errors';
import { formatAmount, Money } from '../../../domain/money';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import {
  accountCodeSchema,
  dateResponse,
  enterpriseFilter,
  idParams,
  isoDate,
  timestampResponse,
} from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { amount, amountOrZeroSchema, moneyResponse } from '../money.schemas';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { postingRefusals } from '../refusal-lists';
import { accountingLoaders } from './accounting.queries';
import { registerKeepers } from './fixed-asset-categories.routes';

const statuses = ['active', 'disposed'] as const;

const scheduleMonthSchema = yup
  .object({
    period: yup.string().required().meta({ description: 'The month, YYYY-MM.' }),
    through: dateResponse().meta({
      description: "The last day of use the charge runs to: the month's last day, or the day before the disposal.",
    }),
    charge: moneyResponse(),
    accumulated: moneyResponse(),
    net_book_value: moneyResponse(),
    booked: yup.boolean().required().meta({ description: 'Posted already (by a month end or the disposal).' }),
  })
  .meta({ component: 'FixedAssetDepreciationMonth' });

const fixedAssetSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    branch: yup.string().uuid().required(),
    category: yup.string().uuid().required(),
    category_name: yup.string().required(),
    label: yup.string().required(),
    supplier: yup.string().nullable().defined(),
    acquisition_date: dateResponse(),
    cost: moneyResponse(),
    depreciation_months: yup.number().integer().required(),
    method: yup
      .string()
      .oneOf(['straight_line'] as const)
      .required(),
    funding_account: yup.string().required(),
    acquisition_entry: yup.string().uuid().required(),
    status: yup.string().oneOf(statuses).required(),
    accumulated_depreciation: moneyResponse().meta({ description: 'Depreciation booked so far.' }),
    net_book_value: moneyResponse(),
    disposal: yup
      .object({
        date: dateResponse(),
        proceeds: moneyResponse(),
        proceeds_account: yup.string().required(),
        entry: yup.string().uuid().required(),
      })
      .nullable()
      .defined(),
    schedule: yup
      .array(scheduleMonthSchema)
      .optional()
      .meta({ description: 'The detail only: the straight-line schedule month by month (docs/domain.md §12.4).' }),
    created_by: yup.string().uuid().required(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'FixedAsset' });

function serializeFixedAsset(row: FixedAssetRow) {
  return {
    id: row.id,
    enterprise: row.enterprise_id,
    branch: row.branch_id,
    category: row.category_id,
    category_name: row.category_name,
    label: row.label,
    supplier: row.supplier,
    acquisition_date: row.acquisition_date,
    cost: row.cost,
    depreciation_months: row.depreciation_months,
    method: row.method,
    funding_account: row.funding_account_code,
    acquisition_entry: row.acquisition_entry_id,
    status: row.status,
    accumulated_depreciation: row.depreciated,
    // A disposed asset has left the books: nothing of it stands.
    net_book_value: row.status === 'disposed' ? '0' : formatAmount(new Money(row.cost).minus(row.depreciated)),
    disposal:
      row.disposal_date === null
        ? null
        : {
            date: row.disposal_date,
            proceeds: row.disposal_proceeds!,
            proceeds_account: row.proceeds_account_code!,
            entry: row.disposal_entry_id!,
          },
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
  };
}

function detailOf(row: FixedAssetRow) {
  const booked = new Money(row.depreciated);
  const months = depreciationSchedule(
    { cost: new Money(row.cost), months: row.depreciation_months, acquisitionDate: row.acquisition_date },
    row.disposal_date,
  );
  const schedule = months.map((month) => ({
    period: month.period,
    through: month.through,
    charge: formatAmount(month.charge),
    accumulated: formatAmount(month.accumulated),
    net_book_value: formatAmount(month.netBookValue),
    booked: month.accumulated.lte(booked),
  }));
  return { ...serializeFixedAsset(row), schedule };
}

const readAsset = async (knex: Knex, id: string) => detailOf((await fixedAssetById(knex, id))!);

/**
 * The fixed-asset register (docs/domain.md §12.4): its assets, their acquisition and disposal, each posted under four
 * eyes.
 */
export const fixedAssetRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/fixed-assets/',
    module: 'accounting',
    operationId: 'listFixedAssets',
    summary: 'List the fixed assets of the register',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      category: yup.string().uuid().optional(),
      status: yup.string().oneOf(statuses).optional(),
    }),
    response: pageSchema(fixedAssetSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(fixedAssetsQuery(deps.knex), principal, {
        enterprise: 'a.enterprise_id',
        branch: 'a.branch_id',
      }).orderBy([{ column: 'a.acquisition_date', order: 'desc' }, { column: 'a.id' }]);
      whereFilters(rows, query, {
        enterprise: 'a.enterprise_id',
        branch: 'a.branch_id',
        category: 'a.category_id',
        status: 'a.status',
      });
      const page = await paginateRows<FixedAssetRow>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serializeFixedAsset) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/fixed-assets/{id}/',
    module: 'accounting',
    operationId: 'getFixedAsset',
    summary: 'One fixed asset, with its depreciation schedule',
    access: 'authenticated',
    load: accountingLoaders.fixedAsset,
    params: idParams,
    response: fixedAssetSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => detailOf(resource),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounting/fixed-assets/',
    module: 'accounting',
    operationId: 'acquireFixedAsset',
    summary:
      'Record an acquisition: the asset enters the register, debit ' +
      "its category's class 2 account, credit the funding account",
    description:
      'The funding account is a treasury account (class 5: the vault 5710, ' +
      "a bank) or a supplier's (40: bought on credit). The entry is dated " +
      'the acquisition date (not after the business date). Under four eyes ' +
      '(`fixed_asset.acquisition`, the approval policy) the answer is 202 ' +
      'with the request, and the asset is recorded when another person ' +
      "approves it. The depreciation period defaults to the category's.",
    access: registerKeepers,
    status: 201,
    location: '/api/v1/accounting/fixed-assets/{id}/',
    body: yup.object({
      category: yup.string().uuid().required(),
      branch: yup.string().uuid().required(),
      label: yup.string().trim().min(2).max(200).required(),
      supplier: yup
        .string()
        .trim()
        .max(200)
        .nullable()
        .default(null)
        .meta({ description: "Free text for now (the supplier's name)." }),
      acquisition_date: isoDate().required(),
      cost: amount().required(),
      depreciation_months: yup.number().strict(true).integer().min(1).max(1200).nullable().default(null),
      funding_account: accountCodeSchema().required(),
    }),
    response: fixedAssetSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [...postingRefusals, 'as_of_after_business_date', 'day_closed', ...fourEyesRefusals],
    handler: async ({ body, principal, deps, ctx, load, authorize }) => {
      const category = await load(accountingLoaders.fixedAssetCategory, body.category);
      const branch = await deps
        .knex('branches')
        .where({ id: body.branch, enterprise_id: category.enterprise_id })
        .first('id');
      if (branch === undefined)
        throw new ValidationError([
          { field: 'branch', message: "branch must be a branch of the category's enterprise" },
        ]);
      const scope = { enterpriseId: category.enterprise_id, branchId: body.branch };
      authorize(scope, 'The branch');
      const payload = {
        enterpriseId: category.enterprise_id,
        branchId: body.branch,
        categoryId: category.id,
        label: body.label,
        supplier: body.supplier ?? null,
        acquisitionDate: body.acquisition_date,
        cost: formatAmount(body.cost),
        depreciationMonths: body.depreciation_months ?? null,
        fundingAccount: body.funding_account,
      };
      return runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'fixed_asset.acquisition',
          payload,
          scope,
          summary: `Acquire ${body.label} for ${payload.cost} XAF on ${body.acquisition_date}`,
        },
        async () => readAsset(deps.knex, (await acquireFixedAsset(deps.activities, principal, payload)).id),
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounting/fixed-assets/{id}/disposal/',
    module: 'accounting',
    operationId: 'disposeFixedAsset',
    summary:
      'Dispose of an asset: depreciation to the day before, the ' +
      'asset and its depreciation removed, the gain or loss booked',
    description:
      'The price received goes to `proceeds_account` (class 5, or 46 when ' +
      "the buyer owes it); the net book value is charged to the category's " +
      '676 account and the price credited to its 775 account. Under four ' +
      'eyes (`fixed_asset.disposal`) the answer is 202 with the request.',
    access: registerKeepers,
    status: 200,
    load: accountingLoaders.fixedAsset,
    params: idParams,
    body: yup.object({
      date: isoDate().required(),
      // Zero is a price: an asset scrapped is disposed of for nothing.
      proceeds: amountOrZeroSchema().default('0'),
      proceeds_account: accountCodeSchema().default('5710'),
    }),
    response: fixedAssetSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      ...postingRefusals,
      'as_of_after_business_date',
      'day_closed',
      'fixed_asset_disposed',
      'fixed_asset_depreciated_later',
      ...fourEyesRefusals,
    ],
    handler: async ({ params, body, principal, deps, ctx, resource }) => {
      const payload = {
        assetId: params.id,
        date: body.date,
        proceeds: formatAmount(new Money(body.proceeds)),
        proceedsAccount: body.proceeds_account,
      };
      return runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'fixed_asset.disposal',
          payload,
          scope: accountingLoaders.fixedAsset.scope(resource),
          summary: `Dispose of ${resource.label} on ${body.date} for ${payload.proceeds} XAF`,
        },
        async () => {
          await disposeFixedAsset(deps.activities, principal, payload);
          return readAsset(deps.knex, params.id);
        },
      );
    },
  }),
];
