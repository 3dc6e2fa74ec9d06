import type { Role } from '../access';
import { refusal, type Refusal } from '../refusal';

export type RequestStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'failed';

/** A decision on a request, as the approver's route sends it: who, their roles at the request's scope, why. */
export interface RequestDecision {
  decision: 'approve' | 'reject';
  deciderId: string;
  /** The roles the decider holds at the request's enterprise or branch (read by the API on this request). */
  deciderRoles: readonly Role[];
  reason: string;
  requestId: string | null;
  /** The client's address, for the audit trail (optional: updates recorded before it have none). */
  address?: string;
}

/**
 * A request as its decision sees it. `makers`: everyone who made what it decides (a draft's author), the submitter
 * `makerId` among them or not.
 */
interface DecidedThing {
  status: RequestStatus;
  makerId: string;
  makers?: readonly string[];
  approverRoles: readonly Role[];
}

/**
 * Why a decision is refused, or null: no maker decides their own request (that is the point), neither its submitter nor
 * anyone who made the thing it decides; the decider holds one of the policy's roles there, and the request is still
 * pending. Pure: the workflow's validator and the activity that writes the decision ask the same question.
 */
export function decisionRefusal(
  request: DecidedThing,
  decision: Pick<RequestDecision, 'deciderId' | 'deciderRoles'>,
): Refusal | null {
  if (request.status !== 'pending')
    return refusal('approval_request_closed', `The request is ${request.status}: it can no longer be decided.`);
  if (decision.deciderId === request.makerId || (request.makers ?? []).includes(decision.deciderId)) {
    return refusal(
      'approval_own_request',
      'A maker of a request, or of what it decides, cannot decide it: another authorised user must.',
    );
  }
  if (!decision.deciderRoles.some((role) => request.approverRoles.includes(role))) {
    return refusal(
      'approval_role_required',
      `Deciding this request requires one of the roles ${request.approverRoles.join(', ')}.`,
    );
  }
  return null;
}
