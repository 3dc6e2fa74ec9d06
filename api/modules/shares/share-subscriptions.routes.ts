import * as yup from 'yup';
import { payShares, subscribeShares } from '../../../activities/shares/share-subscriptions.activity';
import {
  paymentsQuery,
  subscriptionWithPayments,
  subscriptionsQuery,
  whereOverdue,
  withPayments,
  type PaymentRow,
  type SubscriptionRow,
} from '../../../activities/shares/share-subscriptions.queries';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { memberLoaders } from '../members/members.queries';
import { enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { amount, tellers } from '../money.schemas';
import { ownAccountChannel, paymentOf } from '../members/member-payments.schemas';
import { shareLoaders } from './shares.queries';
import {
  paymentSchema,
  serializePayment,
  serializeSubscription,
  subscriptionSchema,
} from './share-subscriptions.schemas';
import { postingRefusals } from '../refusal-lists';

const idempotencyNote =
  'Send an Idempotency-Key header: a retry with the same key and body answers the ' +
  'first result and moves nothing; the same key with another body is refused (409).';

/** Subscriptions of shares and their payments (libérations), posted through the ledger, idempotent by header. */
export const shareSubscriptionRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/shares/subscriptions/',
    module: 'shares',
    operationId: 'listShareSubscriptions',
    summary: 'List subscriptions, newest first; payment_overdue=true lists the overdue balances for the board',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      client: yup.string().uuid().optional(),
      share_type: yup.string().uuid().optional(),
      payment_overdue: yup
        .boolean()
        .optional()
        .meta({ description: 'true: only subscriptions with an unpaid balance past its due date.' }),
    }),
    response: pageSchema(subscriptionSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const now = deps.clock();
      const rows = visibleRows(subscriptionsQuery(deps.knex, now), principal, query, {
        enterprise: 's.enterprise_id',
        branch: 's.branch_id',
        client: 's.client_id',
        share_type: 's.share_type_id',
      });
      if (query.payment_overdue === true) whereOverdue(rows, deps.knex, now);
      if (query.payment_overdue === false) rows.whereNot((builder) => whereOverdue(builder, deps.knex, now));
      const page = await paginateRows<SubscriptionRow>(
        rows.orderBy([{ column: 's.created_at', order: 'desc' }, { column: 's.id' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: (await withPayments(deps.knex, page.results)).map(serializeSubscription) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/shares/subscriptions/',
    module: 'shares',
    operationId: 'subscribeShares',
    summary: 'Subscribe shares for a member of the branch and pay them, in full or in part (cashier, branch head)',
    description:
      `Numbered SUB-{year}-{n}, gap-free per enterprise and year. The member's holding of the type stays ` +
      `within its bounds; founder shares for members named founders. initial_payment defaults to the ` +
      `whole amount; a type allowing partial payment takes from its minimum share of it. ${idempotencyNote}`,
    access: tellers,
    idempotent: true,
    status: 201,
    location: '/api/v1/shares/subscriptions/{id}/',
    body: yup.object({
      client: yup.string().uuid().required(),
      share_type: yup.string().uuid().required(),
      shares: yup.number().strict(true).integer().min(1).max(1_000_000).required(),
      initial_payment: amount().optional().meta({ description: 'Paid now; default: the whole amount.' }),
      ...ownAccountChannel,
    }),
    response: subscriptionSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      ...postingRefusals,
      'above_maximum_shares',
      'amount_out_of_bounds',
      'below_minimum_shares',
      'idempotency_key_reused',
      'initial_payment_out_of_bounds',
      'insufficient_funds',
      'member_not_active',
      'not_a_founder',
      'share_type_inactive',
    ],
    handler: async ({ body, principal: actor, deps, ctx, idempotencyKey, load }) => {
      const client = await load(memberLoaders.client, body.client);
      if (body.account !== undefined) await load(memberLoaders.tellerAccount, body.account);
      const { subscription, replayed } = await subscribeShares(deps.activities, actor, {
        clientId: client.id,
        shareTypeId: body.share_type,
        shares: body.shares,
        initialPayment: body.initial_payment ?? null,
        channel: body.channel,
        accountId: body.account ?? null,
        reference: body.reference,
        idempotencyKey,
      });
      if (replayed) ctx.set('Idempotent-Replayed', 'true');
      return serializeSubscription(await subscriptionWithPayments(deps.knex, deps.clock(), subscription.id));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/shares/subscriptions/{id}/',
    module: 'shares',
    operationId: 'getShareSubscription',
    summary: 'Subscription detail, with its payments',
    access: 'authenticated',
    load: shareLoaders.subscription,
    params: idParams,
    response: subscriptionSchema,
    errorStatuses: [401, 404],
    handler: async ({ resource, deps }) => serializeSubscription((await withPayments(deps.knex, [resource]))[0]!),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/shares/payments/',
    module: 'shares',
    operationId: 'listSharePayments',
    summary: 'List payments (libérations), newest first',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      client: yup.string().uuid().optional(),
      subscription: yup.string().uuid().optional(),
      date_from: isoDate().optional(),
      date_to: isoDate().optional(),
    }),
    response: pageSchema(paymentSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleRows(paymentsQuery(deps.knex), principal, query, {
        enterprise: 'p.enterprise_id',
        branch: 'p.branch_id',
        client: 'p.client_id',
        subscription: 'p.subscription_id',
      });
      whereFilters(rows, query, { date_from: ['p.business_date', '>='], date_to: ['p.business_date', '<='] });
      const page = await paginateRows<PaymentRow>(
        rows.orderBy([{ column: 'p.created_at', order: 'desc' }, { column: 'p.id' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializePayment) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/shares/payments/',
    module: 'shares',
    operationId: 'payShares',
    summary:
      "Pay up (libérer) part or all of a subscription's unpaid balance, " +
      "in cash or from the member's account (cashier, branch head)",
    description:
      'Never above what is unpaid. Numbered PAY-{year}-{n}, gap-free per enterprise and year. ' + idempotencyNote,
    access: tellers,
    idempotent: true,
    status: 201,
    location: '/api/v1/shares/payments/{id}/',
    body: yup.object({
      subscription: yup.string().uuid().required(),
      amount: amount().required(),
      ...ownAccountChannel,
    }),
    response: paymentSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: [
      ...postingRefusals,
      'exceeds_unpaid',
      'idempotency_key_reused',
      'insufficient_funds',
      'subscription_paid_up',
    ],
    handler: async ({ body, principal: actor, deps, ctx, idempotencyKey, load }) => {
      const subscription = await load(shareLoaders.subscription, body.subscription);
      if (body.account !== undefined) await load(memberLoaders.tellerAccount, body.account);
      const { payment, replayed } = await payShares(deps.activities, actor, {
        subscriptionId: subscription.id,
        ...paymentOf(body),
        idempotencyKey,
      });
      if (replayed) ctx.set('Idempotent-Replayed', 'true');
      return serializePayment({ ...payment, subscription_number: subscription.number });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/shares/payments/{id}/',
    module: 'shares',
    operationId: 'getSharePayment',
    summary: 'Payment detail',
    access: 'authenticated',
    load: shareLoaders.payment,
    params: idParams,
    response: paymentSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializePayment(resource),
  }),
];
