import * as yup from 'yup';
import type { Knex } from 'knex';
import {
  changeStandingOrder,
  createStandingOrder,
  activateStandingOrder,
  standingOrderOfKey,
  type StandingOrderInput,
  type StandingOrderRow,
} from '../../../activities/cash/standing-orders.activity';
import { NotFoundError } from '../../../domain/errors';
import { formatAmount } from '../../../domain/money';
import { CompteClient } from '../../../db/models/compte-client.model';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { amount, moneyResponse, tellers } from '../money.schemas';
import { refreshStandingOrderSchedule } from './standing-orders.temporal';

const uuid = () => yup.string().uuid().required();
const retryDays = () =>
  yup.number().integer().min(0).max(30).meta({
    description: 'Business days a run short of funds is tried again after its due date, then recorded failed.',
  });

const standingOrderSchema = yup
  .object({
    id: uuid(),
    enterprise: uuid(),
    branch: uuid().meta({ description: "The giving account's branch." }),
    from_account: uuid(),
    to_account: nullableId("The member account credited; null for a loan's repayment."),
    to_loan: nullableId('The loan repaid from from_account (channel account); null for a transfer.'),
    amount: moneyResponse(),
    reference: yup.string().defined(),
    frequency: yup
      .string()
      .oneOf(['monthly', 'weekly'] as const)
      .required(),
    day: yup.number().integer().required().meta({
      description: 'Monthly: the day of the month (a shorter month: its last day); weekly: 1 Monday … 7 Sunday.',
    }),
    start_date: dateResponse(),
    end_date: yup.string().nullable().defined().meta({ format: 'date' }),
    retry_days: yup.number().integer().required(),
    status: yup
      .string()
      .oneOf(['pending_approval', 'active', 'rejected', 'cancelled'] as const)
      .required(),
    created_by: uuid(),
    created_at: timestampResponse(),
    updated_at: timestampResponse(),
  })
  .meta({ component: 'StandingOrder' });

const runSchema = yup
  .object({
    id: uuid(),
    due_date: dateResponse(),
    outcome: yup
      .string()
      .oneOf(['done', 'retrying', 'failed'] as const)
      .required(),
    attempts: yup.number().integer().required(),
    last_attempt_on: dateResponse(),
    transfer: nullableId('The transfer made (done, to an account).'),
    repayment: nullableId('The repayment made (done, to a loan).'),
    refusal_code: yup
      .string()
      .nullable()
      .defined()
      .meta({ description: 'Why the last attempt was refused (`insufficient_funds`…).' }),
    refusal_message: yup.string().nullable().defined(),
  })
  .meta({ component: 'StandingOrderRun' });

const serializeOrder = (row: StandingOrderRow) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  branch: row.branch_id,
  from_account: row.from_account_id,
  to_account: row.to_account_id,
  to_loan: row.to_loan_id,
  amount: row.amount,
  reference: row.reference,
  frequency: row.frequency,
  day: row.day,
  start_date: row.start_date,
  end_date: row.end_date,
  retry_days: row.retry_days,
  status: row.status,
  created_by: row.created_by,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

const orderById = async (knex: Knex, id: string) =>
  (await knex('standing_orders').where({ id }).first()) as StandingOrderRow | undefined;

const orderLoader = {
  name: 'The standing order',
  load: async ({ knex }, id) => orderById(knex, id),
  scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
} satisfies Loader<StandingOrderRow>;

const createBody = yup.object({
  from_account: uuid().meta({ description: 'The member account the money leaves each time.' }),
  to_account: yup
    .string()
    .uuid()
    .nullable()
    .optional()
    .meta({ description: 'Another member account of the enterprise, of any branch; or send to_loan.' }),
  to_loan: yup
    .string()
    .uuid()
    .nullable()
    .optional()
    .meta({ description: "A loan of from_account's member, repaid from it each time; or send to_account." }),
  amount: amount().required(),
  reference: yup.string().trim().max(100).default(''),
  frequency: yup
    .string()
    .oneOf(['monthly', 'weekly'] as const)
    .required(),
  day: yup
    .number()
    .integer()
    .min(1)
    .required()
    .when('frequency', ([frequency], schema) => schema.max(frequency === 'weekly' ? 7 : 31)),
  start_date: isoDate().required().meta({ description: 'Not before the business date.' }),
  end_date: isoDate().nullable().optional(),
  retry_days: retryDays().default(0),
});

/** Standing orders (virements permanents, issue 29, docs/domain.md §13.5): each on its own Temporal Schedule. */
export const standingOrderRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/standing-orders/',
    module: 'cash',
    operationId: 'listStandingOrders',
    summary: 'List standing orders, newest first',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      account: yup.string().uuid().optional().meta({ description: 'Orders from this member account.' }),
      status: yup
        .string()
        .oneOf(['pending_approval', 'active', 'rejected', 'cancelled'] as const)
        .optional(),
    }),
    response: pageSchema(standingOrderSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleRows(deps.knex('standing_orders'), principal, query, {
        enterprise: 'enterprise_id',
        branch: 'branch_id',
        account: 'from_account_id',
        status: 'status',
      });
      const page = await paginateRows<StandingOrderRow>(
        rows.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializeOrder) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/cash/standing-orders/',
    module: 'cash',
    operationId: 'createStandingOrder',
    summary:
      'Order a transfer repeated monthly or weekly to another ' +
      "member account or to a loan's repayment (cashier, branch head)",
    description:
      'Each run is a transfer between members (`/api/v1/cash/transfers/`), or ' +
      "a repayment of the member's loan from the account (channel `account`), " +
      "made as the maker's, once per due date; one short of funds is tried again each business day for " +
      "`retry_days`, then recorded failed. From the approval policy's threshold (`standing_order.create`, " +
      '5 000 000 XAF by default) the order waits for a branch head or the direction ' +
      '(202, the order `pending_approval`).',
    access: tellers,
    status: 201,
    location: '/api/v1/cash/standing-orders/{id}/',
    body: createBody,
    idempotent: true,
    response: standingOrderSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: ['transfer_account_invalid', 'idempotency_key_reused', 'standing_order_not_pending', ...fourEyesRefusals],
    handler: async ({ body, principal, deps, ctx, authorize, idempotencyKey }) => {
      const from = await CompteClient.query(deps.knex).findById(body.from_account);
      if (from === undefined) throw new NotFoundError('The account');
      const scope = { enterpriseId: from.enterpriseId, branchId: from.branchId };
      authorize(scope, 'The account');
      const input: StandingOrderInput = {
        fromAccountId: body.from_account,
        toAccountId: body.to_account ?? null,
        toLoanId: body.to_loan ?? null,
        amount: formatAmount(body.amount),
        reference: body.reference,
        frequency: body.frequency,
        day: body.day,
        startDate: body.start_date,
        endDate: body.end_date ?? null,
        retryDays: body.retry_days,
        idempotencyKey,
      };
      const made = await standingOrderOfKey(deps.knex, principal, input);
      if (made !== undefined) {
        ctx.set('Idempotent-Replayed', 'true');
        return serializeOrder((await orderById(deps.knex, made))!);
      }
      // Recorded pending first: the approval (or the maker, under the threshold) activates it.
      const id = await createStandingOrder(deps.activities, principal, input, 'pending_approval');
      const answer = await runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'standing_order.create',
          payload: { standingOrderId: id },
          scope,
          amount: body.amount,
          summary: `Standing order of ${input.amount} XAF (${input.frequency})`,
        },
        async () => {
          await activateStandingOrder(deps.activities, principal, { standingOrderId: id });
          return serializeOrder((await orderById(deps.knex, id))!);
        },
      );
      await refreshStandingOrderSchedule(deps, id, ctx.state.log);
      return answer;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/standing-orders/{id}/',
    module: 'cash',
    operationId: 'getStandingOrder',
    summary: 'Standing order detail',
    access: 'authenticated',
    load: orderLoader,
    params: idParams,
    response: standingOrderSchema,
    errorStatuses: [401, 404],
    handler: async ({ resource }) => serializeOrder(resource),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/cash/standing-orders/{id}/',
    module: 'cash',
    operationId: 'updateStandingOrder',
    summary:
      "Change an active standing order's amount, reference, end date or retry days (audited, values before and after)",
    access: tellers,
    load: orderLoader,
    params: idParams,
    body: yup.object({
      amount: amount().optional(),
      reference: yup.string().trim().max(100).optional(),
      end_date: isoDate().nullable().optional(),
      retry_days: retryDays().optional(),
    }),
    response: standingOrderSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['standing_order_inactive'],
    handler: async ({ resource, body, principal, deps }) => {
      const changes = {
        amount: body.amount === undefined ? undefined : formatAmount(body.amount),
        reference: body.reference,
        end_date: body.end_date,
        retry_days: body.retry_days,
      };
      return serializeOrder(await changeStandingOrder(deps.activities, principal, resource.id, changes));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/cash/standing-orders/{id}/cancel/',
    module: 'cash',
    operationId: 'cancelStandingOrder',
    summary: 'Cancel a standing order: no run from now on, its Schedule deleted (audited)',
    access: tellers,
    load: orderLoader,
    params: idParams,
    response: standingOrderSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['standing_order_inactive'],
    handler: async ({ resource, principal, deps, ctx }) => {
      const cancelled = await changeStandingOrder(deps.activities, principal, resource.id, 'cancel');
      await refreshStandingOrderSchedule(deps, resource.id, ctx.state.log);
      return serializeOrder(cancelled);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/standing-orders/{id}/runs/',
    module: 'cash',
    operationId: 'listStandingOrderRuns',
    summary:
      'The runs of a standing order, the latest due date first: outcome, attempts, the transfer made or the refusal',
    access: 'authenticated',
    load: orderLoader,
    params: idParams,
    query: listQuerySchema([], { date_from: isoDate().optional(), date_to: isoDate().optional() }),
    response: pageSchema(runSchema),
    errorStatuses: [401, 404],
    refusals: ['page_not_found'],
    handler: async ({ resource, query, deps, ctx }) => {
      const rows = deps
        .knex('standing_order_runs')
        .where({ standing_order_id: resource.id })
        .select(
          'id',
          'due_date',
          'outcome',
          'attempts',
          'last_attempt_on',
          'transfer_id as transfer',
          'repayment_id as repayment',
          'refusal_code',
          'refusal_message',
        );
      whereFilters(rows, query, { date_from: ['due_date', '>='], date_to: ['due_date', '<='] });
      return paginateRows(
        rows.orderBy([{ column: 'due_date', order: 'desc' }, { column: 'id' }]),
        query,
        new URL(ctx.href),
      );
    },
  }),
];
