import * as yup from 'yup';
import { setUsuryRate } from '../../../activities/loans/usury-rates.activity';
import { UsuryRate } from '../../../db/models/usury-rate.model';
import { listQuerySchema, pageSchema, paginate } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';

/** A TEG ceiling as the TEG is shown: percent, up to two decimals, above 0. */
const percentSchema = () =>
  yup
    .string()
    .strict(true)
    .matches(/^\d{1,3}(\.\d{1,2})?$/, '${path} must be a percentage with at most two decimals, e.g. "60.94"')
    .test('positive', '${path} must be above 0', (value) => value === undefined || Number(value) > 0);

const usuryRateSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    rate: yup
      .string()
      .required()
      .meta({ description: 'The TEG ceiling, percent with two decimals, as the TEG is shown.', example: '60.94' }),
    effective_from: dateResponse(),
    source_reference: yup
      .string()
      .required()
      .meta({ description: "Where the rate was published (the monetary authority's notice for the period)." }),
    created_by: yup.string().uuid().required(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'UsuryRate' });

const serializeUsuryRate = (row: UsuryRate) => ({
  id: row.id,
  enterprise: row.enterpriseId,
  rate: row.rate,
  effective_from: row.effectiveFrom,
  source_reference: row.sourceReference,
  created_by: row.createdBy,
  created_at: row.createdAt.toISOString(),
});

const usuryRateLoader = {
  name: 'The usury rate',
  load: async ({ knex }, id) => UsuryRate.query(knex).findById(id),
  scope: (row) => ({ enterpriseId: row.enterpriseId }),
} satisfies Loader<UsuryRate>;

/**
 * The usury rates of an enterprise, by date (docs/domain.md §14.6): products and applications above the one in force
 * are refused.
 */
export const usuryRateRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/usury-rates/',
    module: 'loans',
    operationId: 'listUsuryRates',
    summary: 'List usury rates, latest first',
    access: 'authenticated',
    query: listQuerySchema(['effective_from'], {
      enterprise: enterpriseFilter,
      date_from: isoDate().optional(),
      date_to: isoDate().optional(),
    }),
    response: pageSchema(usuryRateSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = visibleRows(UsuryRate.query(deps.knex), principal, query, {
        enterprise: 'enterprise_id',
        date_from: ['effective_from', '>='],
        date_to: ['effective_from', '<='],
      });
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { effective_from: 'effective_from' },
        defaultOrdering: '-effective_from',
      });
      return { ...page, results: page.results.map(serializeUsuryRate) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/usury-rates/{id}/',
    module: 'loans',
    operationId: 'getUsuryRate',
    summary: 'One usury rate',
    access: 'authenticated',
    load: usuryRateLoader,
    params: idParams,
    response: usuryRateSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeUsuryRate(resource),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/usury-rates/',
    module: 'loans',
    operationId: 'setUsuryRate',
    summary: 'Set the usury rate from a date (direction, administrators); under four eyes',
    description:
      'The rate in force at a date is the one of the latest ' +
      '`effective_from` on or before it; with none, no TEG is checked. ' +
      'A product (its minimum amount over its minimum term) or an application ' +
      'whose TEG exceeds it is refused (422 `teg_above_usury_rate`, field `teg`). ' +
      'Under four eyes (`usury_rate.change`): 202 with the request until a second person approves it.',
    access: ['direction', 'admin'],
    status: 201,
    location: '/api/v1/loans/usury-rates/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      rate: percentSchema().required(),
      effective_from: isoDate().required(),
      source_reference: yup.string().trim().min(2).max(300).required(),
    }),
    response: usuryRateSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['usury_rate_exists', ...fourEyesRefusals],
    handler: async ({ body, principal: actor, deps, authorize, ctx }) => {
      authorize({ enterpriseId: body.enterprise }, 'The enterprise');
      const payload = {
        enterpriseId: body.enterprise,
        rate: body.rate,
        effectiveFrom: body.effective_from,
        sourceReference: body.source_reference,
      };
      return runOrRequest(
        { deps, principal: actor, ctx },
        {
          operation: 'usury_rate.change',
          payload,
          scope: { enterpriseId: body.enterprise },
          summary: `Set the usury rate to ${body.rate} % from ${body.effective_from}`,
        },
        async () => serializeUsuryRate(await setUsuryRate(deps.activities, actor, payload)),
      );
    },
  }),
];
