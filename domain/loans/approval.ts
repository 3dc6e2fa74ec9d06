import { Money } from '../money';
import { refusal, type Refusal } from '../refusal';

/**
 * The loan approval circuit (docs/domain.md §3): cashier, branch head, credit committee, direction, in this
 * order. Pure and deterministic, so the workflow's Update validator and handler, and the tests, share it.
 */

export const approvalSteps = ['cashier', 'branch_head', 'credit_committee', 'direction'] as const;
export type ApprovalStep = (typeof approvalSteps)[number];

export const decisions = ['approve', 'reject', 'send_back'] as const;
export type DecisionKind = (typeof decisions)[number];

export type ApplicationStatus = 'in_review' | 'approved' | 'rejected' | 'expired' | 'withdrawn';

export interface DecisionRequest {
  deciderId: string;
  /** The step the decider believes they decide: a stale screen must not approve the next step. */
  step: ApprovalStep;
  decision: DecisionKind;
  comment: string;
}

/** A decision as the history keeps it; a withdrawal by the submitter is recorded at the step it ended. */
export interface DecisionRecord extends Omit<DecisionRequest, 'decision'> {
  decision: DecisionKind | 'withdraw';
  decidedAt: string;
}

export interface ApprovalState {
  status: ApplicationStatus;
  /** null once the process has ended. */
  step: ApprovalStep | null;
  decisions: DecisionRecord[];
}

export const initialApprovalState = (): ApprovalState => ({
  status: 'in_review',
  step: approvalSteps[0],
  decisions: [],
});

/**
 * Amount limits under which the circuit ends early (docs/domain.md §3: no regulation gives thresholds; by
 * default every loan goes through all four steps). `{ branch_head: "500000" }`: a loan up to 500 000 XAF is
 * approved once the branch head approves it. Whole francs as strings; direction needs no limit.
 */
export type ApprovalLimits = Partial<Record<Exclude<ApprovalStep, 'direction'>, string>>;

/** The step whose approval grants a loan of `amount`: the first one whose limit covers it, else direction. */
export function finalStepFor(amount: Money, limits: ApprovalLimits): ApprovalStep {
  return (
    approvalSteps.find((step) => step !== 'direction' && limits[step] !== undefined && amount.lte(limits[step])) ??
    'direction'
  );
}

/** Limits must grow along the circuit: a later step decides larger loans than an earlier one. */
export function approvalLimitProblems(
  limits: ApprovalLimits,
  field = 'approval_limits',
): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  let previous: { step: ApprovalStep; limit: Money } | undefined;
  for (const step of approvalSteps) {
    if (step === 'direction') continue;
    const value = limits[step];
    if (value === undefined) continue;
    if (!/^\d{1,15}$/.test(value)) {
      problems.push({ field: `${field}.${step}`, message: 'must be a whole number of francs written as a string' });
      continue;
    }
    const limit = new Money(value);
    if (previous !== undefined && limit.lte(previous.limit))
      problems.push({ field: `${field}.${step}`, message: `must be above the ${previous.step} limit` });
    previous = { step, limit };
  }
  return problems;
}

/**
 * Why a decision cannot be taken now, or null when it can. Maker-checker: nobody decides an application they
 * submitted, and one person may not decide two different steps. `submittedBy` is absent from workflows started
 * before it was carried.
 */
export function refusalOf(state: ApprovalState, request: DecisionRequest, submittedBy?: string): Refusal | null {
  if (state.status !== 'in_review' || state.step === null)
    return refusal('application_closed', `The application is ${state.status}: no decision can be taken.`);
  if (request.step !== state.step)
    return refusal('wrong_step', `The application is at the ${state.step} step, not ${request.step}.`);
  if (request.deciderId === submittedBy)
    return refusal('submitter_cannot_decide', 'The user who submitted the application cannot decide it.');
  const earlier = state.decisions.find(
    (decision) => decision.deciderId === request.deciderId && decision.step !== request.step,
  );
  if (earlier !== undefined)
    return refusal('same_person_twice', `This user already decided the ${earlier.step} step of this application.`);
  if (request.decision === 'send_back' && state.step === approvalSteps[0])
    return refusal('nothing_to_send_back', 'The first step cannot send the application back.');
  if (request.decision !== 'approve' && request.comment.trim() === '')
    return refusal('comment_required', `A ${request.decision} needs a comment saying why.`);
  return null;
}

/** The state after a decision that `refusalOf` accepted; an approval at `finalStep` grants the loan. */
export function applyDecision(
  state: ApprovalState,
  record: DecisionRecord,
  finalStep: ApprovalStep = 'direction',
): ApprovalState {
  const index = approvalSteps.indexOf(record.step);
  const decisionsAfter = [...state.decisions, record];
  if (record.decision === 'reject') return { status: 'rejected', step: null, decisions: decisionsAfter };
  if (record.decision === 'send_back')
    return { status: 'in_review', step: approvalSteps[index - 1]!, decisions: decisionsAfter };
  const next = approvalSteps[index + 1];
  return next === undefined || record.step === finalStep
    ? { status: 'approved', step: null, decisions: decisionsAfter }
    : { status: 'in_review', step: next, decisions: decisionsAfter };
}
