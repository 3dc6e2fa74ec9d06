import * as yup from 'yup';
import { allocateResult, cancelResultAllocation } from '../../../activities/enterprise/result-allocations.activity';
import {
  allocationDetail,
  allocationsQuery,
  withEntries,
  type AllocationRow,
} from '../../../activities/enterprise/result-allocations.queries';
import { policyOf, updateAllocationPolicy } from '../../../activities/enterprise/result-allocation-policy.activity';
import { allocationFields, type AllocationAmounts } from '../../../domain/enterprise/result-allocation';
import { Money } from '../../../domain/money';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { enterpriseFilter, idParams, isoDate, rateSchema } from '../common.schemas';
import { scopeToVisible, withNestedVariant } from '../enterprise-scope';
import { amountOrZeroSchema } from '../money.schemas';
import { enterpriseLoaders } from './enterprise.queries';
import { allocationSchema, policySchema, serializeAllocation, serializePolicy } from './result-allocations.schemas';
import { accountChoiceRefusals } from '../refusal-lists';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';

/** What each amount of the decision is, for the documentation (docs/domain.md §7 names the accounts). */
const fieldDescriptions: Record<(typeof allocationFields)[number], string> = {
  prior_losses:
    'What the profit clears of the report à nouveau débiteur ' +
    '(122), first: all it can when the policy says so (the default).',
  general_reserve: 'General (legal) reserve, 111; a loss may be charged to it.',
  training_reserve: 'Training and education reserve, 112; a loss may be charged to it.',
  statutory_reserves: 'Statutory reserves, 113; a loss may be charged to them.',
  optional_reserves: "Optional reserves, 114, within the policy's cap; a loss may be charged to them.",
  ristournes: 'Ristournes to members, 44400 (their distribution among members is not recorded here). Profit only.',
  share_interest: "Interest on paid-up shares, 44300, within the policy's cap. Profit only.",
  solidarity_fund: 'Fonds de solidarité, 160, when the statutes feed it. Profit only.',
  retained_earnings: 'Report à nouveau: 121 (créditeur) for a profit, 122 (débiteur) for a loss; the remainder.',
};

const amountFields = Object.fromEntries(
  allocationFields.map((field) => [
    field,
    amountOrZeroSchema().default('0').meta({ description: fieldDescriptions[field] }),
  ]),
);

const optionalRate = (text: string | undefined) => (text === undefined ? undefined : new Money(text));
const nestedParams = yup.object({ enterprise_pk: yup.string().uuid().required() });
const policyPath = '/api/v1/enterprise/enterprises/{enterprise_pk}/result-allocation-policy/';

/**
 * The general assembly's allocation of a closed year's result (docs/architecture.md §9), recorded by direction,
 * and each enterprise's percentages and caps for it.
 */
export const resultAllocationRoutes = [
  ...[
    defineRoute({
      method: 'post',
      path: '/api/v1/enterprise/result-allocations/',
      module: 'enterprise',
      operationId: 'allocateResult',
      summary:
        "Record the general assembly's allocation of a closed year's " +
        'result (direction, administrators): one entry per branch holding it',
      description:
        'The amounts add up to the result in 131 (profit) or 132 (loss); a profit gives the general ' +
        'and training reserves their floor first, optional reserves and interest on shares stay within ' +
        "their caps (the enterprise's result-allocation-policy). The year must be closed, and allocated " +
        "once; the assembly's date lies in the next year, not after the business date. Send an Idempotency-Key " +
        'header: a retry with the same key and body answers the first result and posts nothing.',
      access: ['direction', 'admin'],
      idempotent: true,
      status: 201,
      location: '/api/v1/enterprise/result-allocations/{id}/',
      body: yup.object({
        exercice: yup
          .string()
          .uuid()
          .required()
          .meta({ description: 'The closed accounting year whose result is allocated.' }),
        assembly_date: isoDate()
          .required()
          .meta({ description: 'Date of the general assembly; the entries are dated so.' }),
        assembly_reference: yup
          .string()
          .trim()
          .required()
          .min(1)
          .max(100)
          .meta({ description: "The assembly's minutes (procès-verbal) number." }),
        ...amountFields,
      }),
      response: allocationSchema,
      errorStatuses: [400, 401, 403, 404, 409, 422],
      refusals: [
        ...accountChoiceRefusals,
        'allocation_not_equal_to_result',
        'exercice_closed',
        'exercice_not_closed',
        'idempotency_key_reused',
        'no_exercice_for_date',
        'no_result_to_allocate',
        'nothing_to_distribute',
        'optional_reserves_above_cap',
        'prior_losses_above_balance',
        'prior_losses_first',
        'prior_losses_not_cleared',
        'reserve_floor_not_met',
        'reserve_insufficient',
        'result_already_allocated',
        'result_not_in_13',
        'share_interest_above_cap',
      ],
      handler: async ({ body, principal: actor, deps, ctx, idempotencyKey, load }) => {
        // Under the enterprise's path (the nested variant sets `enterprise`), a year of another enterprise is not
        // found.
        const exercice = await load(
          enterpriseLoaders.exercice,
          body.exercice,
          (body as { enterprise?: string }).enterprise,
        );
        const amounts = Object.fromEntries(
          allocationFields.map((field) => [field, new Money((body as Record<string, string>)[field]!)]),
        ) as AllocationAmounts;
        const decision = {
          exerciceId: exercice.id,
          assemblyDate: body.assembly_date,
          assemblyReference: body.assembly_reference,
          amounts,
          idempotencyKey,
        };
        const { allocation, replayed } = await allocateResult(deps.activities, actor, decision);
        if (replayed) ctx.set('Idempotent-Replayed', 'true');
        return serializeAllocation(await allocationDetail(deps.knex, allocation.id));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/enterprise/result-allocations/',
      module: 'enterprise',
      operationId: 'listResultAllocations',
      summary: 'List the allocations of results',
      access: 'authenticated',
      query: listQuerySchema([], {
        enterprise: enterpriseFilter,
        exercice: yup.string().uuid().optional(),
        status: yup.string().oneOf(['posted', 'cancelled']).optional(),
      }),
      response: pageSchema(allocationSchema),
      errorStatuses: [401],
      refusals: ['page_not_found'],
      handler: async ({ query, principal, deps, ctx }) => {
        const builder = scopeToVisible(allocationsQuery(deps.knex), principal, { enterprise: 'a.enterprise_id' });
        whereFilters(builder, query, { enterprise: 'a.enterprise_id', exercice: 'a.exercice_id', status: 'a.status' });
        const page = await paginateRows<AllocationRow>(
          builder.orderBy([{ column: 'a.assembly_date', order: 'desc' }, { column: 'a.id' }]),
          query,
          new URL(ctx.href),
        );
        return { ...page, results: (await withEntries(deps.knex, page.results)).map(serializeAllocation) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/enterprise/result-allocations/{id}/',
      module: 'enterprise',
      operationId: 'getResultAllocation',
      summary: 'Result allocation detail, with its entries',
      access: 'authenticated',
      load: enterpriseLoaders.allocation,
      params: idParams,
      query: yup.object({ enterprise: enterpriseFilter }),
      response: allocationSchema,
      errorStatuses: [401, 404],
      handler: async ({ resource, deps }) => serializeAllocation((await withEntries(deps.knex, [resource]))[0]!),
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/enterprise/result-allocations/{id}/cancel/',
      module: 'enterprise',
      operationId: 'cancelResultAllocation',
      summary:
        'Cancel an allocation (administrators, with a reason): its entries ' +
        'are reversed; the year may then be allocated again or reopened',
      access: ['admin'],
      load: enterpriseLoaders.allocation,
      params: idParams,
      query: yup.object({ enterprise: enterpriseFilter }),
      body: yup.object({ reason: yup.string().trim().required().min(5).max(500) }),
      response: allocationSchema,
      errorStatuses: [401, 403, 404, 409],
      refusals: [...accountChoiceRefusals, 'exercice_closed', 'no_exercice_for_date', 'result_allocation_cancelled'],
      handler: async ({ resource: allocation, body, principal: actor, deps }) => {
        await cancelResultAllocation(deps.activities, actor, { allocationId: allocation.id, reason: body.reason });
        return serializeAllocation(await allocationDetail(deps.knex, allocation.id));
      },
    }),
  ].flatMap(withNestedVariant),
  defineRoute({
    method: 'get',
    path: policyPath,
    module: 'enterprise',
    operationId: 'getResultAllocationPolicy',
    summary: "The percentages and caps of the result's allocation (the defaults until changed)",
    access: 'authenticated',
    load: enterpriseLoaders.enterprise,
    params: nestedParams,
    response: policySchema,
    errorStatuses: [401, 404],
    handler: async ({ params, deps }) => {
      return serializePolicy(await policyOf(deps.knex, params.enterprise_pk));
    },
  }),
  defineRoute({
    method: 'patch',
    path: policyPath,
    module: 'enterprise',
    operationId: 'updateResultAllocationPolicy',
    summary: "Change the percentages and caps of the result's allocation (direction, administrators)",
    access: ['direction', 'admin'],
    load: enterpriseLoaders.enterprise,
    params: nestedParams,
    body: yup.object({
      general_reserve_rate_min: rateSchema().optional(),
      training_reserve_rate_min: rateSchema().optional(),
      optional_reserves_rate_max: rateSchema().optional(),
      share_interest_rate_max: rateSchema().optional(),
      absorb_prior_losses_first: yup.boolean().strict(true).optional(),
    }),
    response: policySchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404],
    refusals: [...fourEyesRefusals],
    handler: async ({ params, body, principal: actor, deps, ctx }) => {
      const enterpriseId = params.enterprise_pk;
      const given = {
        generalReserveRateMin: body.general_reserve_rate_min,
        trainingReserveRateMin: body.training_reserve_rate_min,
        optionalReservesRateMax: body.optional_reserves_rate_max,
        shareInterestRateMax: body.share_interest_rate_max,
      };
      const rates = Object.fromEntries(Object.entries(given).filter(([, rate]) => rate !== undefined));
      const payload = { enterpriseId, rates, absorbPriorLossesFirst: body.absorb_prior_losses_first };
      // The reserves and the members' interest the assembly may vote: under four eyes (docs/domain.md §11).
      return runOrRequest(
        { deps, principal: actor, ctx },
        {
          operation: 'result_allocation_policy.change',
          payload,
          scope: { enterpriseId },
          summary: `Change the result allocation policy (${Object.keys(body)
            .filter((field) => body[field as keyof typeof body] !== undefined)
            .join(', ')})`,
        },
        async () =>
          serializePolicy(
            await updateAllocationPolicy(deps.activities, actor, enterpriseId, {
              generalReserveRateMin: optionalRate(body.general_reserve_rate_min),
              trainingReserveRateMin: optionalRate(body.training_reserve_rate_min),
              optionalReservesRateMax: optionalRate(body.optional_reserves_rate_max),
              shareInterestRateMax: optionalRate(body.share_interest_rate_max),
              absorbPriorLossesFirst: body.absorb_prior_losses_first,
            }),
          ),
      );
    },
  }),
];
