import * as yup from 'yup';
import { assertSameRequest, operationKey } from '../../../activities/idempotency';
import { requestShareWithdrawal } from '../../../activities/shares/share-withdrawals.activity';
import {
  whereRefundOverdue,
  withdrawalById,
  withdrawalsQuery,
} from '../../../activities/shares/share-withdrawals.queries';
import type { Role } from '../../../domain/access';
import type { ErrorCode } from '../../../domain/error-catalogue';
import { AppError } from '../../../domain/errors';
import { withdrawalStatuses, type ShareWithdrawal } from '../../../db/models/share-withdrawal.model';
import type { StepRequest } from '../../../workflows/definitions';
import type { RouteDeps } from '../../deps';
import { listQuerySchema, pageSchema, paginate } from '../../pagination';
import { defineRoute } from '../../route';
import { requestOrigin } from '../../context';
import { enterpriseFilter, idParams } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { memberLoaders } from '../members/members.queries';
import { tellers } from '../money.schemas';
import { ownAccountChannel } from '../members/member-payments.schemas';
import {
  cancelWithdrawal,
  extendWithdrawalRefund,
  refundWithdrawal,
  startShareWithdrawal,
} from './share-withdrawal.temporal';
import { shareLoaders } from './shares.queries';
import { serializeWithdrawal, withdrawalSchema } from './share-withdrawals.schemas';
import { postingRefusals } from '../refusal-lists';

/** The member asks at the counter; the board (direction) may also cancel a withdrawal in notice. */
const cancellers: readonly Role[] = [...tellers, 'direction'];

const reasonSchema = (required: boolean) =>
  required ? yup.string().trim().min(3).max(500).required() : yup.string().trim().max(500).default('');

/**
 * A decision with a reason on a withdrawal in a given status, sent to its workflow as an Update: the
 * cancellation during the notice, the extension of the refund period.
 */
function decisionRoute(spec: {
  action: string;
  operationId: string;
  summary: string;
  description?: string;
  access: readonly Role[];
  from: { status: ShareWithdrawal['status']; code: ErrorCode; what: string };
  refusals: readonly ErrorCode[];
  send: (deps: RouteDeps, withdrawal: ShareWithdrawal, request: StepRequest, updateId: string) => Promise<unknown>;
}) {
  return defineRoute({
    method: 'post',
    path: `/api/v1/shares/withdrawals/{id}/${spec.action}/`,
    module: 'shares',
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    access: spec.access,
    idempotent: true,
    status: 200,
    load: shareLoaders.withdrawal,
    params: idParams,
    body: yup.object({ reason: reasonSchema(true) }),
    response: withdrawalSchema,
    errorStatuses: [401, 403, 404, 409, 503],
    refusals: spec.refusals,
    handler: async ({ resource: withdrawal, body, principal: actor, deps, ctx, idempotencyKey }) => {
      if (withdrawal.status !== spec.from.status)
        throw new AppError(
          'conflict',
          spec.from.code,
          `Withdrawal ${withdrawal.number} is ${withdrawal.status}: ${spec.from.what}.`,
        );
      const request = { userId: actor.userId, reason: body.reason, ...requestOrigin(ctx) };
      await spec.send(deps, withdrawal, request, operationKey(`share-${spec.action}`, actor, idempotencyKey));
      return serializeWithdrawal((await withdrawalById(deps.knex, withdrawal.id))!);
    },
  });
}

/** Withdrawals of shares: each request runs the `shareWithdrawal` workflow (notice, effect, refund). */
export const shareWithdrawalRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/shares/withdrawals/',
    module: 'shares',
    operationId: 'listShareWithdrawals',
    summary: 'List withdrawals, newest first; refund_overdue=true lists the refunds past their due date',
    access: 'authenticated',
    query: listQuerySchema(['created_at', 'number'], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      client: yup.string().uuid().optional(),
      subscription: yup.string().uuid().optional(),
      status: yup.string().oneOf(withdrawalStatuses).optional(),
      refund_overdue: yup.boolean().optional(),
    }),
    response: pageSchema(withdrawalSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = visibleRows(withdrawalsQuery(deps.knex), principal, query, {
        enterprise: 'enterprise_id',
        branch: 'branch_id',
        client: 'client_id',
        subscription: 'subscription_id',
        status: 'status',
      });
      if (query.refund_overdue !== undefined) whereRefundOverdue(builder, query.refund_overdue);
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { created_at: 'created_at', number: 'number' },
        defaultOrdering: '-created_at',
      });
      return { ...page, results: page.results.map(serializeWithdrawal) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/shares/withdrawals/',
    module: 'shares',
    operationId: 'requestShareWithdrawal',
    summary:
      "Record a member's written notice to withdraw shares of a " +
      'subscription (cashier, branch head); starts its workflow',
    description:
      'Refused for shares that are not withdrawable, founder shares before 5 years of ' +
      "seniority, or a holding left below the type's minimum by a member who stays. The workflow " +
      "`share-withdrawal-{id}` waits the notice period (the type's, or the enterprise's " +
      'share_withdrawal_notice_days), then cancels the shares; the refund is due within a year.',
    access: tellers,
    status: 201,
    location: '/api/v1/shares/withdrawals/{id}/',
    body: yup.object({
      subscription: yup.string().uuid().required(),
      shares: yup
        .number()
        .strict(true)
        .integer()
        .min(1)
        .max(1_000_000)
        .optional()
        .meta({ description: 'Default: every share of the subscription not already in notice.' }),
      leaving: yup.boolean().default(false).meta({ description: 'The member leaves the cooperative.' }),
      reason: reasonSchema(false),
    }),
    response: withdrawalSchema,
    errorStatuses: [401, 403, 404, 409, 503],
    refusals: [
      'below_minimum_shares',
      'member_left',
      'not_enough_shares',
      'seniority_not_reached',
      'shares_not_withdrawable',
      'workflow_unavailable',
    ],
    handler: async ({ body, principal: actor, deps, ctx, load }) => {
      const subscription = await load(shareLoaders.subscription, body.subscription);
      const { withdrawal, refundReminderDays } = await requestShareWithdrawal(deps.activities, actor, {
        subscriptionId: subscription.id,
        shares: body.shares ?? null,
        leaving: body.leaving,
        reason: body.reason,
      });
      await startShareWithdrawal(deps, ctx, withdrawal, refundReminderDays);
      return serializeWithdrawal(withdrawal);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/shares/withdrawals/{id}/',
    module: 'shares',
    operationId: 'getShareWithdrawal',
    summary: 'Withdrawal detail: where its workflow stands',
    access: 'authenticated',
    load: shareLoaders.withdrawal,
    params: idParams,
    response: withdrawalSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeWithdrawal(resource),
  }),
  decisionRoute({
    action: 'cancellation',
    operationId: 'cancelShareWithdrawal',
    summary:
      'Cancel a withdrawal during its notice period, for the member (cashier, branch head) or the board (direction)',
    access: cancellers,
    from: {
      status: 'notice',
      code: 'withdrawal_not_in_notice',
      what: 'only a withdrawal in its notice period can be cancelled',
    },
    refusals: ['withdrawal_not_in_notice', 'withdrawal_closed', 'decision_in_progress', 'workflow_unavailable'],
    send: cancelWithdrawal,
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/shares/withdrawals/{id}/refund/',
    module: 'shares',
    operationId: 'refundShareWithdrawal',
    summary:
      "Refund an effective withdrawal, net of the member's debts, " +
      "in cash or to the member's account (cashier, branch head)",
    description:
      "The member's overdue installments are repaid from the refund first; when the member " +
      "leaves, their loans' outstanding principal too; the rest is paid out. Send an " +
      'Idempotency-Key header: a retry with the same key and body answers the first result.',
    access: tellers,
    idempotent: true,
    status: 200,
    load: shareLoaders.withdrawal,
    params: idParams,
    body: yup.object(ownAccountChannel),
    response: withdrawalSchema,
    errorStatuses: [401, 403, 404, 409, 503],
    refusals: [
      ...postingRefusals,
      'already_refunded',
      'decision_in_progress',
      'exceeds_total_due',
      'idempotency_key_reused',
      'insufficient_funds',
      'refund_not_owed',
      'withdrawal_closed',
      'workflow_unavailable',
    ],
    handler: async ({ resource: withdrawal, body, principal: actor, deps, ctx, idempotencyKey, load }) => {
      const key = operationKey('share-refund', actor, idempotencyKey);
      const request = { channel: body.channel, account: body.account ?? null, reference: body.reference };
      if (withdrawal.status === 'refunded' && idempotencyKey !== null && withdrawal.refundIdempotencyKey === key) {
        assertSameRequest(withdrawal.refundRequest ?? {}, request);
        ctx.set('Idempotent-Replayed', 'true');
        return serializeWithdrawal(withdrawal);
      }
      if (withdrawal.status !== 'effective')
        throw new AppError(
          'conflict',
          withdrawal.status === 'refunded' ? 'already_refunded' : 'refund_not_owed',
          `Withdrawal ${withdrawal.number} is ${withdrawal.status}: no refund is owed.`,
        );
      if (
        body.account !== undefined &&
        (await load(memberLoaders.tellerAccount, body.account)).clientId !== withdrawal.clientId
      ) {
        throw new AppError('validation', 'invalid_request', 'The account is not an account of the member.', [
          { field: 'account', message: 'account must be an account of the member' },
        ]);
      }
      await refundWithdrawal(deps, withdrawal, {
        userId: actor.userId,
        channel: body.channel,
        accountId: body.account ?? null,
        reference: body.reference,
        idempotencyKey: key,
        request,
        ...requestOrigin(ctx),
      });
      return serializeWithdrawal((await withdrawalById(deps.knex, withdrawal.id))!);
    },
  }),
  decisionRoute({
    action: 'refund-extension',
    operationId: 'extendShareRefund',
    summary: "Record the board's decision to defer the refund to two years after the effective date, once (direction)",
    description:
      "AUSCOOP Art. 11: when the refund would harm the cooperative's finances. The reason is the recorded decision.",
    access: ['direction'],
    from: { status: 'effective', code: 'refund_not_owed', what: 'no refund is waiting' },
    refusals: [
      'refund_not_owed',
      'refund_already_extended',
      'withdrawal_closed',
      'decision_in_progress',
      'workflow_unavailable',
    ],
    send: extendWithdrawalRefund,
  }),
];
