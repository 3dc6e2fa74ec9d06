import * as yup from 'yup';
import {
  cancelTillTransfer,
  confirmTillTransfer,
  requestTillTransfer,
} from '../../../activities/cash/till-transfers.activity';
import {
  tillTransferById,
  tillTransfersQuery,
  type TillTransferRow,
} from '../../../activities/cash/till-transfers.queries';
import type { CashCount } from '../../../domain/cash/till-counts';
import { NotFoundError } from '../../../domain/errors';
import { tillTransferKinds, transitAccount, type TillTransferKind } from '../../../domain/cash/till-transfers';
import { listQuerySchema, pageSchema, paginateRows } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { amount, moneyResponse, tellers } from '../money.schemas';
import { postingRefusals } from '../refusal-lists';
import { countResponse, countSchema, tillFields, tillFieldsOf } from './till-sessions.routes';
import { tillReaders } from './tills.routes';

/**
 * Who moves cash between the vault and the tills: the cashiers on their till's side, the branch head and above on the
 * vault's.
 */
const movers = [...tellers, 'direction', 'admin'] as const;

const statuses = ['pending', 'confirmed', 'cancelled'] as const;

const tillTransferSchema = yup
  .object({
    ...tillFields,
    kind: yup
      .string()
      .oneOf(tillTransferKinds)
      .required()
      .meta({ description: 'to_till: approvisionnement, vault → till; to_vault: dégagement, till → vault.' }),
    amount: moneyResponse(),
    count: countResponse()
      .nullable()
      .defined()
      .default(null)
      .meta({ description: "The giver's count by denomination; null: none given." }),
    status: yup
      .string()
      .oneOf(statuses)
      .required()
      .meta({
        description:
          `pending: the cash is on ${transitAccount}; confirmed: ` +
          `counted in by the receiver; cancelled: back to the giver.`,
      }),
    business_date: dateResponse(),
    requested_by: yup.string().uuid().required(),
    request_entry: yup
      .string()
      .uuid()
      .required()
      .meta({ description: `The entry of the giver's account to ${transitAccount}.` }),
    received_count: countResponse().nullable().defined().default(null),
    decided_by: nullableId(),
    decided_at: timestampResponse().nullable().defined(),
    decision_entry: nullableId(
      `The entry from ${transitAccount} to the receiver (confirmed) or back to the giver (cancelled).`,
    ),
    created_at: timestampResponse(),
  })
  .meta({ component: 'TillTransfer' });

const serializeTransfer = (row: TillTransferRow) => ({
  ...tillFieldsOf(row),
  kind: row.kind,
  amount: row.amount,
  count: row.count,
  status: row.status,
  business_date: row.business_date,
  requested_by: row.requested_by,
  request_entry: row.request_entry_id,
  received_count: row.received_count,
  decided_by: row.decided_by,
  decided_at: row.decided_at?.toISOString() ?? null,
  decision_entry: row.decision_entry_id,
  created_at: row.created_at.toISOString(),
});

/** A till transfer by id, checked against the caller's enterprise and branch (api/router.ts). */
const tillTransferLoader = {
  name: 'The till transfer',
  load: async ({ knex }, id) => tillTransferById(knex, id),
  scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
} satisfies Loader<TillTransferRow>;

const sessionRefusals = [
  'till_transfer_side_refused',
  'till_transfer_session_closed',
  'till_transfer_not_pending',
] as const;

/** Cash between the vault and the tills: approvisionnement and dégagement (issue 29, docs/domain.md §13.2). */
export const tillTransferRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/till-transfers/',
    module: 'cash',
    operationId: 'listTillTransfers',
    summary: 'List the transfers between the vault and the tills, the latest first',
    access: tillReaders,
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      till: yup.string().uuid().optional(),
      kind: yup.string().oneOf(tillTransferKinds).optional(),
      status: yup.string().oneOf(statuses).optional(),
      business_date: isoDate().optional(),
      requested_by: yup.string().uuid().optional(),
    }),
    response: pageSchema(tillTransferSchema),
    errorStatuses: [401, 403],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleRows(tillTransfersQuery(deps.knex), principal, query, {
        enterprise: 'x.enterprise_id',
        branch: 'x.branch_id',
        till: 'x.till_id',
        kind: 'x.kind',
        status: 'x.status',
        business_date: 'x.business_date',
        requested_by: 'x.requested_by',
      });
      const page = await paginateRows<TillTransferRow>(
        rows.orderBy([{ column: 'x.created_at', order: 'desc' }, { column: 'x.id' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializeTransfer) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/cash/till-transfers/',
    module: 'cash',
    operationId: 'requestTillTransfer',
    summary:
      'Hand cash over between the vault and a till: the giver ' +
      'requests, the cash is in transit until the receiver counts it in',
    description:
      `to_till (approvisionnement) is requested by the branch head, to_vault ` +
      `(dégagement) by the till's cashier. The cash leaves the giver's account ` +
      `for ${transitAccount} at once. The till's session must be open; a count, when given, must add up to the amount.`,
    access: movers,
    status: 201,
    location: '/api/v1/cash/till-transfers/{id}/',
    body: yup.object({
      till: yup.string().uuid().required(),
      kind: yup.string().oneOf(tillTransferKinds).required(),
      amount: amount().required(),
      count: countSchema().default(undefined).optional(),
    }),
    response: tillTransferSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      'till_transfer_till_refused',
      'till_transfer_side_refused',
      'till_transfer_session_closed',
      'till_transfer_count_differs',
      'till_transfer_funds_short',
      ...postingRefusals,
    ],
    handler: async ({ body, principal, deps, authorize }) => {
      const till = await deps.knex('tills').where({ id: body.till }).first('enterprise_id', 'branch_id');
      if (till === undefined) throw new NotFoundError('The till');
      authorize({ enterpriseId: till.enterprise_id as string, branchId: till.branch_id as string }, 'The till');
      const count = (body.count as CashCount | undefined) ?? null;
      const transfer = await requestTillTransfer(deps.activities, principal, {
        tillId: body.till,
        kind: body.kind as TillTransferKind,
        amount: body.amount,
        count,
      });
      return serializeTransfer((await tillTransferById(deps.knex, transfer.id))!);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/till-transfers/{id}/',
    module: 'cash',
    operationId: 'getTillTransfer',
    summary: 'Till transfer detail',
    access: tillReaders,
    load: tillTransferLoader,
    params: idParams,
    response: tillTransferSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource }) => serializeTransfer(resource),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/cash/till-transfers/{id}/confirm/',
    module: 'cash',
    operationId: 'confirmTillTransfer',
    summary: 'Confirm a transfer as its receiver, with the count of the cash received; never its maker',
    description:
      `The count must add up to the amount (else 422 till_transfer_count_differs, ` +
      `nothing posted: count again, or the maker cancels). ` +
      `The cash enters the receiver's account from ${transitAccount}.`,
    access: movers,
    load: tillTransferLoader,
    params: idParams,
    body: yup.object({ count: countSchema().default(undefined).required() }),
    response: tillTransferSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [...sessionRefusals, 'till_transfer_own', 'till_transfer_count_differs', ...postingRefusals],
    handler: async ({ resource, body, principal, deps }) => {
      await confirmTillTransfer(deps.activities, principal, resource.id, body.count as CashCount);
      return serializeTransfer((await tillTransferById(deps.knex, resource.id))!);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/cash/till-transfers/{id}/cancel/',
    module: 'cash',
    operationId: 'cancelTillTransfer',
    summary: `Cancel a pending transfer, by its maker: the cash goes back from ${transitAccount} to the giver`,
    access: movers,
    load: tillTransferLoader,
    params: idParams,
    body: yup.object({}),
    response: tillTransferSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [...sessionRefusals, 'till_transfer_not_maker', ...postingRefusals],
    handler: async ({ resource, principal, deps }) => {
      await cancelTillTransfer(deps.activities, principal, resource.id);
      return serializeTransfer((await tillTransferById(deps.knex, resource.id))!);
    },
  }),
];
