import { isDeepStrictEqual } from 'node:util';
import { approvalPolicyOf } from '../../../activities/approvals/approval-policy.activity';
import {
  anotherDeciderExists,
  markApprovalRequestFailed,
  openApprovalRequest,
  recordApprovalWaiver,
} from '../../../activities/approvals/approval-request.activity';
import { approvalWakers, type CoveredOperation, type PayloadOf } from '../../../activities/approvals/operations';
import { holdsRole, roles, type Role, type Scope } from '../../../domain/access';
import { operationKey, keyReusedError } from '../../../activities/idempotency';
import { isUniqueViolation } from '../../../db/errors';
import { fourEyesRule } from '../../../domain/approvals/policy';
import type { RequestDecision } from '../../../domain/approvals/request';
import { AppError } from '../../../domain/errors';
import type { Money } from '../../../domain/money';
import type { approvalRequest } from '../../../workflows/approval-request.workflow';
import { decideRequestUpdate } from '../../../workflows/definitions';
import type { Principal } from '../../auth/principal';
import type { AppContext } from '../../context';
import type { RouteDeps } from '../../deps';
import { AcceptedForApproval } from '../../route';
import { startWorkflowFor } from '../../workflow-start';
import { executeWorkflowUpdate } from '../../workflow-update';
import {
  pendingRequestByKey,
  requestById,
  type RequestRow,
} from '../../../activities/approvals/approval-requests.queries';
import { approvalRequestSchema, serializeRequest } from './approval-requests.schemas';

/**
 * Four eyes, the API's side (docs/architecture.md §7): a sensitive route hands its change to `runOrRequest`.
 * When the enterprise's policy lets one person do it, it runs at once as before; otherwise it becomes a request
 * (the row and its `approvalRequest` workflow) and the route answers 202 with it.
 */

/** What a sensitive route declares beside its own: the 202 of a request (`accepted`), and its refusals. */
export const fourEyesRoute = { accepted: approvalRequestSchema } as const;
export const fourEyesRefusals = ['workflow_unavailable'] as const;

interface SensitiveChange<O extends CoveredOperation> {
  operation: O;
  payload: PayloadOf<O>;
  /** The resource's enterprise and branch: where the approver must hold the policy's role. */
  scope: Scope;
  summary: string;
  /** For the operations the policy applies from a threshold on. */
  amount?: Money;
  /** The request's field the operation is, and the other fields it came with: a request carries its operation alone. */
  alone?: { field: string; others: readonly string[] };
  /**
   * The client's Idempotency-Key, held in the payload as `idempotencyKey`: a retry while the maker's request with
   * that key is pending answers that request again (another change under the same key is refused).
   */
  idempotencyKey?: string | null;
  /**
   * `run_now`: when no one but the maker could decide the request, the change is made at once and the waiver
   * audited, rather than left to expire (the first administrators of a new cooperative grant each other's roles).
   */
  whenNoOtherDecider?: 'run_now';
  /**
   * The other people who made what the request decides (a manual entry's author and editors): none of them may
   * decide it, any more than the person who submits it.
   */
  makers?: readonly string[];
  /**
   * The deciders' roles when the operation sets them itself, over the policy's (a restructuring: the steps above the
   * loan's granting one).
   */
  approverRoles?: readonly Role[];
}

/**
 * The client's Idempotency-Key of a request, in the house's one format (activities/idempotency.ts): the key per user
 * and operation. Null without a client key: nothing to answer again then.
 */
const requestKey = (principal: Principal, change: SensitiveChange<CoveredOperation>): string | null =>
  change.idempotencyKey === undefined || change.idempotencyKey === null
    ? null
    : operationKey(`approval:${change.operation}`, principal, change.idempotencyKey);

/** The pending request made with this key, if any; the same key for another change is refused. */
async function pendingRetry(
  deps: RouteDeps,
  key: string | null,
  change: SensitiveChange<CoveredOperation>,
): Promise<RequestRow | undefined> {
  if (key === null) return undefined;
  const row = await pendingRequestByKey(deps.knex, key);
  if (row !== undefined && !isDeepStrictEqual(row.payload, JSON.parse(JSON.stringify(change.payload)))) {
    throw keyReusedError();
  }
  return row;
}

const accepted = (row: RequestRow) =>
  new AcceptedForApproval(serializeRequest(row), `/api/v1/approvals/requests/${row.id}/`);

export async function runOrRequest<O extends CoveredOperation, T>(
  input: { deps: RouteDeps; principal: Principal; ctx: AppContext },
  change: SensitiveChange<O>,
  runNow: () => Promise<T>,
): Promise<T | AcceptedForApproval> {
  const { deps, principal } = input;
  const rule = fourEyesRule(
    await approvalPolicyOf(deps.knex, change.scope.enterpriseId),
    change.operation,
    change.amount,
  );
  if (rule === null) return runNow();
  const approverRoles = change.approverRoles ?? rule.approverRoles;
  if (
    change.whenNoOtherDecider === 'run_now' &&
    !(await anotherDeciderExists(deps.knex, principal.userId, approverRoles, change.scope))
  ) {
    await recordApprovalWaiver(deps.knex, principal, {
      operation: change.operation,
      scope: change.scope,
      approverRoles,
      summary: change.summary,
    });
    return runNow();
  }
  if (change.alone !== undefined && change.alone.others.length > 0) {
    const { field, others } = change.alone;
    throw new AppError(
      'unprocessable',
      'approval_change_mixed',
      `${field} needs a second person's approval: send it alone, and ${others.join(', ')} in another request.`,
      [{ field, message: `${field} is sent alone` }],
    );
  }
  const idempotencyKey = requestKey(principal, change);
  const retried = await pendingRetry(deps, idempotencyKey, change);
  if (retried !== undefined) return accepted(retried);
  const lifetimeSeconds = Math.max(1, Math.round((rule.lifetimeDays * deps.workflowDayMs) / 1000));
  const makers = [...new Set([principal.userId, ...(change.makers ?? [])])];
  try {
    return accepted(await openRequest(input, change, { approverRoles, lifetimeSeconds, makers, idempotencyKey }));
  } catch (error) {
    // A retry sent while the first was being opened: the database holds the key once, and the first answers both.
    const first = isUniqueViolation(error, 'approval_requests_pending_key')
      ? await pendingRetry(deps, idempotencyKey, change)
      : undefined;
    if (first === undefined) throw error;
    return accepted(first);
  }
}

/** Records the request (its row, tried as the maker) and starts its workflow: the request as the route answers it. */
async function openRequest<O extends CoveredOperation>(
  { deps, principal, ctx }: { deps: RouteDeps; principal: Principal; ctx: AppContext },
  change: SensitiveChange<O>,
  request: { approverRoles: readonly Role[]; lifetimeSeconds: number; makers: string[]; idempotencyKey: string | null },
): Promise<RequestRow> {
  const { operation, payload, scope, summary } = change;
  const { approverRoles, lifetimeSeconds, makers } = request;
  const opened = await openApprovalRequest(deps.knex, deps.clock(), principal, {
    operation,
    payload,
    scope,
    summary,
    ...request,
  });
  const waker = approvalWakers[operation] as ((payload: PayloadOf<O>) => string) | undefined;
  const wake = waker === undefined ? {} : { wake: waker(payload) };
  await startWorkflowFor<typeof approvalRequest>(
    deps,
    'approvalRequest',
    {
      workflowId: opened.workflowId,
      args: [
        {
          requestId: opened.id,
          makerId: principal.userId,
          makers,
          approverRoles: [...approverRoles],
          lifetimeSeconds,
          ...wake,
        },
      ],
      tags: {
        enterpriseId: scope.enterpriseId,
        ...(scope.branchId ? { branchId: scope.branchId } : {}),
        businessId: opened.id,
      },
    },
    {
      what: 'the approval request',
      markFailed: () =>
        markApprovalRequestFailed(deps.knex, deps.clock(), {
          requestId: opened.id,
          failure: "The request's workflow could not be started (Temporal unreachable); make the change again.",
        }),
      log: ctx.state.log,
    },
  );
  return (await requestById(deps.knex, opened.id))!;
}

/** The roles the principal holds where the request lies: what the workflow's validator compares with the policy's. */
export const rolesAt = (principal: Principal, scope: Scope) =>
  roles.filter((role) => holdsRole(principal.grants, [role], scope));

const requestEnded = new AppError(
  'conflict',
  'approval_request_closed',
  'The request has been decided or has expired.',
);

/** Sends the decision to the request's workflow; `updateId` from the client's Idempotency-Key, so a retry joins it. */
export const decideRequest = (deps: RouteDeps, row: RequestRow, decision: RequestDecision, updateId: string) =>
  executeWorkflowUpdate(deps, { workflowId: row.workflow_id, updateId }, decideRequestUpdate, decision, requestEnded);
