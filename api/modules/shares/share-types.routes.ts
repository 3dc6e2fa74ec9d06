import * as yup from 'yup';
import { shareTypesQuery } from '../../../activities/shares/share-types.queries';
import {
  createShareType,
  updateShareType,
  type ShareTypeFields,
} from '../../../activities/shares/share-types.activity';
import { listQuerySchema, pageSchema, paginate } from '../../pagination';
import { defineRoute } from '../../route';
import { enterpriseFilter, idParams, rateSchema } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { amountSchema } from '../money.schemas';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { shareLoaders } from './shares.queries';
import { serializeShareType, shareTypeSchema } from './share-types.schemas';

const writers = ['direction', 'admin'] as const;
const sharesCount = () => yup.number().strict(true).integer().min(0).max(1_000_000);

/**
 * Every field of a type but its code, each optional: creation fills the code's defaults, a PATCH changes what is sent.
 */
const fieldSchemas = {
  name: yup.string().trim().min(2).max(100),
  nominal_value: amountSchema().meta({
    description: 'Whole francs per share; changes only while no share of the type is held.',
  }),
  min_shares: sharesCount().meta({
    description: 'Least a member holds; changes only while no share of the type is held.',
  }),
  max_shares: sharesCount()
    .min(1)
    .meta({ description: 'Most a member holds; changes only while no share of the type is held.' }),
  voting: yup.boolean(),
  withdrawable: yup.boolean(),
  seniority_years: yup
    .number()
    .strict(true)
    .integer()
    .min(0)
    .max(99)
    .meta({ description: 'Years from the subscription before shares may be withdrawn; founder shares: 5 at least.' }),
  notice_days: yup
    .number()
    .strict(true)
    .integer()
    .min(0)
    .max(3650)
    .nullable()
    .meta({ description: "Notice period of a withdrawal; null: the enterprise's share_withdrawal_notice_days." }),
  partial_payment_allowed: yup
    .boolean()
    .meta({ description: 'A part paid at subscription, the rest within payment_period_months.' }),
  minimum_initial_payment_rate: rateSchema().meta({
    description: 'Share of the amount paid at subscription, from "0.25" (AUSCOOP) to "1".',
  }),
  payment_period_months: yup
    .number()
    .strict(true)
    .integer()
    .min(1)
    .max(36)
    .meta({ description: 'Months to pay the rest (AUSCOOP: 36 at most).' }),
};
type FieldsBody = { [K in keyof typeof fieldSchemas]?: yup.InferType<(typeof fieldSchemas)[K]> };

function typeFields(body: FieldsBody): Partial<ShareTypeFields> {
  return {
    name: body.name,
    nominalValue: body.nominal_value,
    minShares: body.min_shares,
    maxShares: body.max_shares,
    voting: body.voting,
    withdrawable: body.withdrawable,
    seniorityYears: body.seniority_years,
    noticeDays: body.notice_days,
    partialPaymentAllowed: body.partial_payment_allowed,
    minimumInitialPaymentRate: body.minimum_initial_payment_rate,
    paymentPeriodMonths: body.payment_period_months,
  };
}

/** Share types: the seed's 001 Founder, 002 Ordinary, 003 Honorary, at most one of each per enterprise. */
export const shareTypeRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/shares/types/',
    module: 'shares',
    operationId: 'listShareTypes',
    summary: 'List share types',
    access: 'authenticated',
    query: listQuerySchema(['code'], { enterprise: enterpriseFilter, is_active: yup.boolean().optional() }),
    response: pageSchema(shareTypeSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = visibleRows(shareTypesQuery(deps.knex), principal, query, {
        enterprise: 'enterprise_id',
        is_active: 'is_active',
      });
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { code: 'code' },
        defaultOrdering: 'code',
      });
      return { ...page, results: page.results.map(serializeShareType) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/shares/types/',
    module: 'shares',
    operationId: 'createShareType',
    summary: 'Create one of the three share types (direction, administrators)',
    description:
      'Codes 001 Founder, 002 Ordinary, 003 Honorary, once each per enterprise: another code or a second ' +
      "one of a code is a 409 naming it. Fields not sent take the code's defaults (fixtures/share-types.json): " +
      'founder shares 25 % at subscription and the rest within 36 months, withdrawable after 5 years.',
    access: writers,
    status: 201,
    location: '/api/v1/shares/types/{id}/',
    body: yup.object({
      ...fieldSchemas,
      enterprise: yup.string().uuid().required(),
      code: yup
        .string()
        .required()
        .matches(/^\d{3}$/, '${path} must be three digits: 001, 002 or 003'),
      nominal_value: fieldSchemas.nominal_value.required(),
    }),
    response: shareTypeSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['share_type_code_taken', 'share_type_limit'],
    handler: async ({ body, principal: actor, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise }, 'The enterprise');
      return serializeShareType(
        await createShareType(deps.activities, actor, body.enterprise, body.code, {
          ...typeFields(body),
          nominalValue: body.nominal_value,
        }),
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/shares/types/{id}/',
    module: 'shares',
    operationId: 'getShareType',
    summary: 'Share type detail',
    access: 'authenticated',
    load: shareLoaders.type,
    params: idParams,
    response: shareTypeSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeShareType(resource),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/shares/types/{id}/',
    module: 'shares',
    operationId: 'updateShareType',
    summary:
      'Change or deactivate a share type (direction, administrators); ' +
      'nominal value and bounds only while no share of it is held',
    access: writers,
    load: shareLoaders.type,
    params: idParams,
    body: yup.object({ ...fieldSchemas, is_active: yup.boolean() }),
    response: shareTypeSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['share_type_in_use', 'approval_change_mixed', ...fourEyesRefusals],
    handler: async ({ resource: type, body, principal: actor, deps, ctx }) => {
      const apply = async () =>
        serializeShareType(
          await updateShareType(deps.activities, actor, type.id, { ...typeFields(body), isActive: body.is_active }),
        );
      if (body.notice_days === undefined) return apply();
      // The notice decides when members get their capital back: under four eyes, sent alone (docs/domain.md §11).
      const others = Object.keys(body).filter(
        (field) => field !== 'notice_days' && body[field as keyof typeof body] !== undefined,
      );
      return runOrRequest(
        { deps, principal: actor, ctx },
        {
          operation: 'share_type.notice_change',
          payload: { shareTypeId: type.id, noticeDays: body.notice_days },
          scope: { enterpriseId: type.enterpriseId },
          summary:
            body.notice_days === null
              ? `Let share type ${type.code} follow the enterprise's notice`
              : `Set the notice of share type ${type.code} to ${body.notice_days} day(s)`,
          alone: { field: 'notice_days', others },
        },
        apply,
      );
    },
  }),
];
