import {
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DecidedRequest } from '../activities/approvals/approval-request.activity';
import type { Role } from '../domain/access';
import { decisionRefusal } from '../domain/approvals/request';
import { stepRetry } from './activity-calls';
import { decideRequestUpdate, requestApprovedSignal, requestStateQuery } from './definitions';
import { refuse } from './refusal';

export interface ApprovalRequestInput {
  requestId: string;
  makerId: string;
  /**
   * Everyone who made what the request decides (a manual entry's author and editors), the submitter included; absent
   * from requests started before it, whose one maker is `makerId`. Read by the validator only: no command changes.
   */
  makers?: string[];
  approverRoles: Role[];
  /** How long the request waits for a decision before it expires (the policy's days × the workflow day). */
  lifetimeSeconds: number;
  /**
   * The workflow its approval wakes (activities/approvals/operations.ts `approvalWakers`); absent for most operations.
   */
  wake?: string;
}

const activityOptions = { startToCloseTimeout: '30 seconds', retry: stepRetry } as const;
const { expireApprovalRequest } = proxyActivities<Activities>(activityOptions);
// The decision, and on approval the operation, written in the Update's own workflow task (as a loan decision is).
const { decideApprovalRequest } = proxyLocalActivities<Activities>(activityOptions);

/**
 * A four-eyes request (docs/architecture.md §7): it waits for another authorised user's decision, an Update
 * whose validator refuses the maker, a decider without one of the policy's roles and a request already decided;
 * the handler writes the decision through a local activity (on approval the operation runs in the same
 * transaction), then the state moves. Undecided when its time runs out, it expires and nothing is applied.
 */
export async function approvalRequest(input: ApprovalRequestInput): Promise<DecidedRequest> {
  let state: DecidedRequest = { status: 'pending', decidedBy: null, failure: null };
  let busy = false;
  setHandler(requestStateQuery, () => state);
  setHandler(
    decideRequestUpdate,
    async (decision) => {
      busy = true;
      try {
        const decided = await decideApprovalRequest({ requestId: input.requestId, decision });
        if ('outcome' in decided) return refuse(decided.code, decided.message);
        state = decided;
        return state;
      } finally {
        busy = false;
      }
    },
    {
      validator: (decision) => {
        if (busy) refuse('decision_in_progress', 'Another decision on this request is being recorded: try again.');
        const refused = decisionRefusal(
          { status: state.status, makerId: input.makerId, makers: input.makers, approverRoles: input.approverRoles },
          decision,
        );
        if (refused !== null) refuse(refused.code, refused.message);
      },
    },
  );
  const decided = await condition(() => state.status !== 'pending', input.lifetimeSeconds * 1000);
  if (!decided) {
    // The time ran out; a decision already being written still counts.
    await condition(() => !busy);
    if (state.status === 'pending') state = await expireApprovalRequest({ requestId: input.requestId });
  }
  await condition(allHandlersFinished);
  if (state.status === 'approved' && input.wake !== undefined) await wake(input.wake, input.requestId);
  return state;
}

/**
 * Signals the workflow the approval wakes; one already ended (an import validated again) has nothing to wake, and its
 * successor reads the status.
 */
async function wake(workflowId: string, requestId: string): Promise<void> {
  try {
    await getExternalWorkflowHandle(workflowId).signal(requestApprovedSignal, { requestId });
  } catch {
    // Nothing running under that id: the approval is written all the same.
  }
}
