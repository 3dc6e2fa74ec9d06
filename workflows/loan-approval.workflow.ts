import {
  allHandlersFinished,
  condition,
  currentUpdateInfo,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { stepRetry } from './activity-calls';
import {
  applyDecision,
  initialApprovalState,
  refusalOf,
  type ApprovalStep,
  type DecisionRequest,
} from '../domain/loans/approval';
import { approvalStateQuery, decideUpdate, withdrawUpdate, type ApprovalView, type DecisionInput } from './definitions';
import { refuse } from './refusal';
import { tagWorkflow } from './tags';

export interface LoanApprovalInput {
  applicationId: string;
  enterpriseId: string;
  branchId: string;
  applicationNumber: string;
  /** How long each step may stay undecided before the application expires (configuration: days × 86 400). */
  stepTimeLimitSeconds: number;
  /** The step whose approval grants the loan (configuration's amount limits); direction when absent. */
  finalStep?: ApprovalStep;
  /** Who submitted the application: they decide none of its steps (absent in workflows started before). */
  submittedBy?: string;
}

const activityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: stepRetry,
} as const;
const { recordLoanDecision: recordDecisionAsTask, expireLoanApplication } =
  proxyActivities<Activities>(activityOptions);
// A decision is written by a local activity: it runs inside the workflow task of its Update, so the answer
// needs one round trip through the server instead of three workflow tasks and an activity task.
const { recordLoanDecision: recordDecisionLocally } = proxyLocalActivities<Activities>(activityOptions);
/** Workflows started before decisions became local activities keep their activity tasks, as recorded. */
const localDecisionsPatch = 'decisions-by-local-activity';

/** A decision or a withdrawal to persist, and the API request that carried it. */
type Persist = (
  request: DecisionRequest | (Omit<DecisionRequest, 'decision'> & { decision: 'withdraw' }),
  origin: Pick<DecisionInput, 'requestId' | 'address'>,
) => Promise<ApprovalView>;

/** The Updates that decide a step or withdraw the application; their validators refuse what the circuit forbids. */
function setDecisionHandlers(
  input: LoanApprovalInput,
  current: () => ApprovalView,
  persist: Persist,
  assertIdle: () => void,
): void {
  setHandler(
    decideUpdate,
    (decision) =>
      persist(
        { deciderId: decision.deciderId, step: decision.step, decision: decision.decision, comment: decision.comment },
        decision,
      ),
    {
      validator: (decision) => {
        assertIdle();
        const refusal = refusalOf(current(), decision, input.submittedBy);
        if (refusal !== null) refuse(refusal.code, refusal.message);
      },
    },
  );
  setHandler(
    withdrawUpdate,
    (withdrawal) =>
      persist(
        { deciderId: withdrawal.userId, step: current().step!, decision: 'withdraw', comment: withdrawal.comment },
        withdrawal,
      ),
    {
      validator: (_withdrawal) => {
        assertIdle();
        if (current().status !== 'in_review')
          refuse('application_closed', `The application is ${current().status}: it can no longer be withdrawn.`);
      },
    },
  );
}

/**
 * The four-step approval of a loan application (docs/architecture.md §5): cashier, branch head, credit committee,
 * direction. Decisions are Updates: the validator refuses synchronously what the circuit forbids (wrong
 * step, after the end, one person deciding two steps); the handler persists the decision through a local
 * activity first, and only then moves the state, so the workflow never runs ahead of the database. One
 * decision at a time: a second one arriving while the first is being written is refused, to retry.
 */
export async function loanApproval(input: LoanApprovalInput): Promise<ApprovalView> {
  let state: ApprovalView = { ...initialApprovalState(), loanId: null };
  let busy = false;
  const recordLoanDecision = patched(localDecisionsPatch) ? recordDecisionLocally : recordDecisionAsTask;
  /** Writes the decision (the activity stamps its time), then moves the state to what the circuit says. */
  const persist: Persist = async (request, origin) => {
    const after =
      request.decision === 'withdraw'
        ? { status: 'withdrawn' as const, step: null }
        : applyDecision(state, { ...request, decision: request.decision, decidedAt: '' }, input.finalStep);
    busy = true;
    try {
      const recorded = await recordLoanDecision({
        applicationId: input.applicationId,
        idempotencyKey: `${workflowInfo().workflowId}:${currentUpdateInfo()!.id}`,
        step: request.step,
        decision: request.decision,
        deciderId: request.deciderId,
        comment: request.comment,
        requestId: origin.requestId,
        address: origin.address,
        statusAfter: after.status,
        stepAfter: after.step,
      });
      if (recorded.outcome === 'refused') return refuse(recorded.code, recorded.message);
      state = {
        status: after.status,
        step: after.step,
        decisions: [...state.decisions, { ...request, decidedAt: recorded.decidedAt }],
        loanId: recorded.loanId,
      };
      return state;
    } finally {
      busy = false;
    }
  };

  const assertIdle = () => {
    if (busy) refuse('decision_in_progress', 'Another decision on this application is being recorded: try again.');
  };

  tagWorkflow({ enterpriseId: input.enterpriseId, branchId: input.branchId, businessId: input.applicationNumber });
  setHandler(approvalStateQuery, () => state);
  setDecisionHandlers(input, () => state, persist, assertIdle);

  while (state.status === 'in_review') {
    const decisionsBefore = state.decisions.length;
    const moved = () => state.status !== 'in_review' || state.decisions.length !== decisionsBefore;
    if (await condition(moved, input.stepTimeLimitSeconds * 1000)) continue;
    // The limit passed; a decision already being written still counts.
    await condition(() => !busy);
    if (moved()) continue;
    const step = state.step!;
    await expireLoanApplication({ applicationId: input.applicationId, step, limitSeconds: input.stepTimeLimitSeconds });
    state = { ...state, status: 'expired', step: null };
  }
  await condition(allHandlersFinished);
  return state;
}
