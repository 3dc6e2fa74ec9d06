import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { RefundInput } from '../activities/shares/share-refunds.activity';
import type { StepInput } from '../activities/shares/share-withdrawals.activity';
import type { DecidedRequest } from '../activities/approvals/approval-request.activity';
import type { RequestDecision } from '../domain/approvals/request';
import type { ApprovalState, DecisionKind, DecisionRequest } from '../domain/loans/approval';

/**
 * The messages sent to the workflows, defined once: the workflows set their handlers with these, and the API
 * and the tests send them by definition (typed arguments and answer), never by a name written twice. This
 * file holds definitions only, so the API may load it (the one runtime import of workflows/ the architecture
 * test allows).
 */

export interface DecisionInput {
  deciderId: string;
  step: DecisionRequest['step'];
  decision: DecisionKind;
  comment: string;
  requestId: string | null;
  /** The client's address, for the audit trail (optional: updates recorded before it have none). */
  address?: string;
}

export interface WithdrawalInput {
  userId: string;
  comment: string;
  requestId: string | null;
  address?: string;
}

export interface ApprovalView extends ApprovalState {
  loanId: string | null;
}

export const decideUpdate = defineUpdate<ApprovalView, [DecisionInput]>('decide');
export const withdrawUpdate = defineUpdate<ApprovalView, [WithdrawalInput]>('withdraw');
export const approvalStateQuery = defineQuery<ApprovalView>('approvalState');

export interface ShareWithdrawalView {
  status: 'notice' | 'cancelled' | 'effective' | 'refunded';
  effectiveOn: string | null;
  refundDueOn: string | null;
  refundExtended: boolean;
  refundReminded: boolean;
  refundOverdue: boolean;
}

/** A decision as the API sends it; the workflow adds its withdrawal. */
export type StepRequest = Omit<StepInput, 'withdrawalId'>;
export type RefundRequest = Omit<RefundInput, 'withdrawalId'>;

export const cancelWithdrawalUpdate = defineUpdate<ShareWithdrawalView, [StepRequest]>('cancel');
export const refundUpdate = defineUpdate<ShareWithdrawalView, [RefundRequest]>('refund');
export const extendRefundUpdate = defineUpdate<ShareWithdrawalView, [StepRequest]>('extendRefund');
export const withdrawalStateQuery = defineQuery<ShareWithdrawalView>('withdrawalState');

/** A four-eyes request's decision (approve or reject) and its state: `approvalRequest` workflow. */
export const decideRequestUpdate = defineUpdate<DecidedRequest, [RequestDecision]>('decideRequest');
export const requestStateQuery = defineQuery<DecidedRequest>('requestState');

/** Issue 29: a branch closed its day; the end of day of that date looks again at once rather than at its next poll. */
export const branchDayClosedSignal = defineSignal('branchDayClosed');

/**
 * A four-eyes request was approved and its operation written: sent by the request's workflow to the workflow its
 * operation wakes (activities/approvals/operations.ts `approvalWakers`), e.g. an import waiting for apply.
 */
export const requestApprovedSignal = defineSignal<[{ requestId: string }]>('requestApproved');
