import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { holdsRole, type Grant, type Role, type Scope } from '../../domain/access';
import { decisionRefusal, type RequestDecision, type RequestStatus } from '../../domain/approvals/request';
import { AppError, NotFoundError } from '../../domain/errors';
import { inTransaction } from '../../db/transaction';
import { approvalRequestWorkflowId } from '../../workflows/identities';
import { recordAudit, requestOriginOf } from '../audit';
import type { Actor, Requester } from '../context';
import type { Refused } from '../refusal-outcome';
import { approvalClosers, approvalExecutors, type CoveredOperation, type PayloadOf } from './operations';

/**
 * Four eyes (docs/architecture.md §7): a sensitive operation recorded as a request, then decided by another
 * authorised user through its `approvalRequest` workflow. Each step is one transaction with its audit row; an
 * approval runs the operation in the transaction that records it, so it is approved and applied, or neither.
 */

export interface RequestToOpen<O extends CoveredOperation> {
  operation: O;
  payload: PayloadOf<O>;
  scope: Scope;
  /** What the approver reads in the inbox: "Move the business date to 2026-03-01". */
  summary: string;
  approverRoles: readonly Role[];
  lifetimeSeconds: number;
  /** Everyone who made what the request decides, the maker included: none of them may decide it. */
  makers: readonly string[];
  /**
   * The client's Idempotency-Key in the house's format (`operationKey`), else null: held once while the request waits.
   */
  idempotencyKey: string | null;
}

/** The decided state of a request, as its workflow and the approver's answer see it. */
export interface DecidedRequest {
  status: RequestStatus;
  decidedBy: string | null;
  /** Why an approved operation did not apply (its refusal), else null. */
  failure: { code: string; message: string } | null;
}

export async function openApprovalRequest<O extends CoveredOperation>(
  knex: Knex,
  now: Date,
  maker: Actor,
  request: RequestToOpen<O>,
): Promise<{ id: string; workflowId: string }> {
  const id = randomUUID();
  const workflowId = approvalRequestWorkflowId(id);
  await inTransaction(knex, async (trx) => {
    await tryOperation(trx, now, maker, request);
    await trx('approval_requests').insert({
      id,
      enterprise_id: request.scope.enterpriseId,
      branch_id: request.scope.branchId ?? null,
      operation: request.operation,
      payload: JSON.stringify(request.payload),
      summary: request.summary.slice(0, 300),
      approver_roles: request.approverRoles,
      maker_id: maker.userId,
      makers: request.makers,
      idempotency_key: request.idempotencyKey,
      workflow_id: workflowId,
      request_id: maker.requestId,
      created_at: now,
      expires_at: new Date(now.getTime() + request.lifetimeSeconds * 1000),
    });
    await recordAudit(trx, maker, {
      action: 'approval_request.create',
      entityType: 'approval_request',
      entityId: id,
      enterpriseId: request.scope.enterpriseId,
      details: { operation: request.operation, summary: request.summary },
    });
  });
  return { id, workflowId };
}

const triedOnly = new Error('tried only');

/**
 * Runs the operation as the maker and rolls it back: a refusal it meets now (a date backwards, a year already
 * open, a loan not doubtful) is the maker's answer at once, rather than a request doomed to fail on approval.
 */
async function tryOperation<O extends CoveredOperation>(
  trx: Knex.Transaction,
  now: Date,
  maker: Actor,
  request: RequestToOpen<O>,
): Promise<void> {
  try {
    await trx.transaction(async (savepoint) => {
      await approvalExecutors[request.operation](
        { knex: savepoint, clock: () => now },
        maker,
        request.payload as never,
      );
      throw triedOnly;
    });
  } catch (error) {
    if (error !== triedOnly) throw error;
  }
}

/** An active user other than the maker holds one of `approverRoles` where the request lies: someone could decide it. */
export async function anotherDeciderExists(
  knex: Knex,
  makerId: string,
  approverRoles: readonly Role[],
  scope: Scope,
): Promise<boolean> {
  const rows: { role: Role; enterprise_id: string | null; branch_id: string | null }[] = await knex('role_grants as g')
    .join('users as u', 'u.id', 'g.user_id')
    .where('u.is_active', true)
    .whereNull('g.revoked_at')
    .whereNot('g.user_id', makerId)
    .whereIn('g.role', [...approverRoles])
    .where((where) => where.whereNull('g.enterprise_id').orWhere('g.enterprise_id', scope.enterpriseId))
    .select('g.role', 'g.enterprise_id', 'g.branch_id');
  return holdsRole(
    rows.map((row) => ({ role: row.role, enterpriseId: row.enterprise_id, branchId: row.branch_id })),
    approverRoles,
    scope,
  );
}

/**
 * An operation made at once because no one but its maker could decide its request (docs/domain.md §11, roles): the
 * audit trail says so, with the roles that could have decided, for an auditor to list what one person did alone.
 */
export async function recordApprovalWaiver(
  knex: Knex,
  maker: Actor,
  waiver: { operation: CoveredOperation; scope: Scope; approverRoles: readonly Role[]; summary: string },
): Promise<void> {
  await inTransaction(knex, (trx) =>
    recordAudit(trx, maker, {
      action: 'approval.waived',
      entityType: 'approval_policy',
      entityId: waiver.scope.enterpriseId,
      enterpriseId: waiver.scope.enterpriseId,
      details: {
        operation: waiver.operation,
        approver_roles: waiver.approverRoles,
        reason: 'no one but the maker could decide it',
        summary: waiver.summary,
      },
    }),
  );
}

/** The request's workflow could not be started: it ends failed, so it waits for no one. */
export async function markApprovalRequestFailed(
  knex: Knex,
  now: Date,
  input: { requestId: string; failure: string },
): Promise<void> {
  // Closed as any request that ends unapplied: its operation's closer frees what waited on it (a draft, a pending
  // guarantee).
  await inTransaction(knex, async (trx) => {
    const row = (await trx('approval_requests').where({ id: input.requestId }).forUpdate().first()) as
      RequestRow | undefined;
    if (row === undefined || row.status !== 'pending') return;
    await closeRequest(trx, now, row, {
      status: 'failed',
      decider: null,
      reason: null,
      failure: { code: 'workflow_unavailable', message: input.failure },
    });
  });
}

interface RequestRow {
  id: string;
  enterprise_id: string;
  operation: CoveredOperation;
  payload: unknown;
  status: RequestStatus;
  maker_id: string;
  makers: string[];
  approver_roles: Role[];
  decided_by: string | null;
  outcome: DecidedRequest['failure'];
  request_id: string | null;
}

const decidedOf = (row: Pick<RequestRow, 'status' | 'decided_by' | 'outcome'>): DecidedRequest => ({
  status: row.status,
  decidedBy: row.decided_by,
  failure: row.outcome,
});

/**
 * The decision of the request's workflow (its Update handler's local activity). A retried activity finds its
 * decision written and answers it; a refusal (the maker, a role, a decided request) is an answer, nothing written.
 */
export async function decideApprovalRequest(
  knex: Knex,
  now: Date,
  input: { requestId: string; decision: RequestDecision },
): Promise<DecidedRequest | Refused> {
  return inTransaction(knex, async (trx) => {
    const row = (await trx('approval_requests').where({ id: input.requestId }).forUpdate().first()) as
      RequestRow | undefined;
    if (row === undefined) throw new NotFoundError('The approval request');
    const { decision } = input;
    if (row.status !== 'pending' && row.decided_by === decision.deciderId) return decidedOf(row);
    const refused = decisionRefusal(
      { status: row.status, makerId: row.maker_id, makers: row.makers, approverRoles: row.approver_roles },
      decision,
    );
    if (refused !== null) return { outcome: 'refused' as const, ...refused };
    const decider = { userId: decision.deciderId, requestId: decision.requestId, address: decision.address };
    if (decision.decision === 'reject')
      return closeRequest(trx, now, row, { status: 'rejected', decider, reason: decision.reason, failure: null });
    const failure = await executeRequest(trx, now, row);
    return closeRequest(trx, now, row, {
      status: failure === null ? 'approved' : 'failed',
      decider,
      reason: decision.reason,
      failure,
    });
  });
}

/**
 * Runs the operation as its maker (whose grants are read now: a maker who lost the role has their request
 * fail), in a savepoint of the decision's transaction: a business refusal undoes the operation alone and is
 * recorded as the outcome.
 */
async function executeRequest(trx: Knex.Transaction, now: Date, row: RequestRow): Promise<DecidedRequest['failure']> {
  const grants = (await trx('role_grants')
    .where({ user_id: row.maker_id })
    .whereNull('revoked_at')
    .select('role', 'enterprise_id as enterpriseId', 'branch_id as branchId')) as Grant[];
  const made = await requestOriginOf(trx, {
    entityType: 'approval_request',
    entityId: row.id,
    action: 'approval_request.create',
  });
  const maker: Actor = { userId: row.maker_id, grants, requestId: row.request_id ?? row.id, address: made.address };
  try {
    // Every executor runs its own inTransaction, which within this one is a savepoint.
    await approvalExecutors[row.operation]({ knex: trx, clock: () => now }, maker, row.payload as never);
    return null;
  } catch (error) {
    if (error instanceof AppError) return { code: error.code, message: error.message };
    throw error;
  }
}

interface Closing {
  status: Exclude<RequestStatus, 'pending'>;
  decider: Requester | null;
  reason: string | null;
  failure: DecidedRequest['failure'];
}

async function closeRequest(
  trx: Knex.Transaction,
  now: Date,
  row: RequestRow,
  closing: Closing,
): Promise<DecidedRequest> {
  const [updated] = await trx('approval_requests')
    .where({ id: row.id })
    .update({
      status: closing.status,
      decided_by: closing.decider?.userId ?? null,
      reason: closing.reason,
      outcome: closing.failure === null ? null : JSON.stringify(closing.failure),
      decided_at: now,
    })
    .returning(['status', 'decided_by', 'outcome']);
  const action = { approved: 'approve', rejected: 'reject', expired: 'expire', failed: 'fail' }[closing.status];
  const closer = approvalClosers[row.operation];
  if (closing.status !== 'approved' && closer !== undefined)
    await closer(trx, row.payload as never, {
      requestId: row.id,
      status: closing.status,
      reason: closing.status === 'failed' ? (closing.failure?.message ?? null) : closing.reason,
    });
  await recordAudit(trx, closing.decider, {
    action: `approval_request.${action}`,
    entityType: 'approval_request',
    entityId: row.id,
    enterpriseId: row.enterprise_id,
    details: { operation: row.operation, reason: closing.reason, failure: closing.failure },
  });
  return decidedOf(updated as RequestRow);
}

/**
 * The request's time ran out undecided: it ends expired and nothing of it is applied. A decided request stays as it is.
 */
export async function expireApprovalRequest(
  knex: Knex,
  now: Date,
  input: { requestId: string },
): Promise<DecidedRequest> {
  return inTransaction(knex, async (trx) => {
    const row = (await trx('approval_requests').where({ id: input.requestId }).forUpdate().first()) as RequestRow;
    if (row.status !== 'pending') return decidedOf(row);
    return closeRequest(trx, now, row, { status: 'expired', decider: null, reason: null, failure: null });
  });
}
