import * as yup from 'yup';
import { operationKey } from '../../../activities/idempotency';
import { approvalOperations } from '../../../domain/approvals/policy';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { requestOrigin } from '../../context';
import { enterpriseFilter, idParams } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { requestById, requestsQuery, type RequestRow } from '../../../activities/approvals/approval-requests.queries';
import { inboxKinds, inboxQuery } from '../../../activities/approvals/inbox.queries';
import { approvalLoaders } from './approvals.queries';
import { approvalRequestSchema, requestStatuses, serializeRequest } from './approval-requests.schemas';
import { decideRequest, rolesAt } from './four-eyes';
import { approverOf, inboxItemSchema } from './inbox';

const decisionRefusals = [
  'approval_own_request',
  'approval_role_required',
  'approval_request_closed',
  'decision_in_progress',
  'idempotency_key_reused',
  'workflow_unavailable',
] as const;

/**
 * Approve or reject: sent to the request's workflow, whose validator refuses the maker, a wrong role, a decided
 * request.
 */
function decisionRoute(decision: 'approve' | 'reject') {
  return defineRoute({
    method: 'post',
    path: `/api/v1/approvals/requests/{id}/${decision}/`,
    module: 'approvals',
    operationId: decision === 'approve' ? 'approveRequest' : 'rejectRequest',
    summary:
      decision === 'approve'
        ? 'Approve a request (another user than its maker, holding one of its approver roles): the operation runs now'
        : 'Reject a request, with a reason: nothing of it is applied',
    description:
      'Send an Idempotency-Key: after a 503 (no answer in time) a retry with the same key joins the first decision.',
    access: 'authenticated',
    load: approvalLoaders.request,
    idempotent: true,
    params: idParams,
    body: yup.object({
      reason:
        decision === 'approve'
          ? yup.string().trim().max(500).default('')
          : yup.string().trim().required().min(5).max(500),
    }),
    response: approvalRequestSchema,
    errorStatuses: [401, 403, 404, 409, 503],
    refusals: decisionRefusals,
    handler: async ({ resource: row, body, principal, deps, ctx, idempotencyKey }) => {
      const deciderRoles = rolesAt(principal, { enterpriseId: row.enterprise_id, branchId: row.branch_id });
      const sent = { decision, deciderId: principal.userId, deciderRoles, reason: body.reason, ...requestOrigin(ctx) };
      await decideRequest(deps, row, sent, operationKey(`approval-${decision}`, principal, idempotencyKey));
      return serializeRequest((await requestById(deps.knex, row.id))!);
    },
  });
}

/** Four eyes: the requests, their decisions and the approver's inbox. */
export const approvalRequestRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/approvals/requests/',
    module: 'approvals',
    operationId: 'listApprovalRequests',
    summary: 'Four-eyes requests of the enterprises (and branches) the user sees, newest first',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      status: yup.string().oneOf(requestStatuses).optional(),
      operation: yup.string().oneOf(approvalOperations).optional(),
      maker: yup.string().uuid().optional(),
    }),
    response: pageSchema(approvalRequestSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(requestsQuery(deps.knex), principal, {
        enterprise: 'enterprise_id',
        branch: 'branch_id',
      });
      whereFilters(rows, query, {
        enterprise: 'enterprise_id',
        status: 'status',
        operation: 'operation',
        maker: 'maker_id',
      });
      const page = await paginateRows<RequestRow>(
        rows.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializeRequest) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/approvals/requests/{id}/',
    module: 'approvals',
    operationId: 'getApprovalRequest',
    summary: 'A four-eyes request: the operation, its payload, the maker, and the decision once taken',
    access: 'authenticated',
    load: approvalLoaders.request,
    params: idParams,
    response: approvalRequestSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeRequest(resource),
  }),
  decisionRoute('approve'),
  decisionRoute('reject'),
  defineRoute({
    method: 'get',
    path: '/api/v1/approvals/pending/',
    module: 'approvals',
    operationId: 'listPendingDecisions',
    summary: "The approver's inbox: everything awaiting the signed-in user's decision across modules, newest first",
    description:
      "Four-eyes requests naming one of the user's roles (not their own), loan applications at a step their " +
      'role decides (not submitted nor decided by them), share withdrawals whose refund is owed (tellers).',
    access: 'authenticated',
    query: listQuerySchema([], { enterprise: enterpriseFilter, kind: yup.string().oneOf(inboxKinds).optional() }),
    response: pageSchema(inboxItemSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const page = await paginateRows<{ since: Date }>(
        inboxQuery(deps.knex, approverOf(principal), query),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map((item) => ({ ...item, since: item.since.toISOString() })) };
    },
  }),
];
