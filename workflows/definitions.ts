import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ApprovalView, DecisionInput, WithdrawalInput } from './loan-approval.workflow';
import type { RefundRequest, ShareWithdrawalView, StepRequest } from './share-withdrawal.workflow';

/**
 * The messages sent to the workflows, defined once: the workflows set their handlers with these, and the API
 * and the tests send them by definition (typed arguments and answer), never by a name written twice. This
 * file holds definitions only, so the API may load it (the one runtime import of workflows/ the architecture
 * test allows).
 */

export const decideUpdate = defineUpdate<ApprovalView, [DecisionInput]>('decide');
export const withdrawUpdate = defineUpdate<ApprovalView, [WithdrawalInput]>('withdraw');
export const approvalStateQuery = defineQuery<ApprovalView>('approvalState');

export const cancelWithdrawalUpdate = defineUpdate<ShareWithdrawalView, [StepRequest]>('cancel');
export const refundUpdate = defineUpdate<ShareWithdrawalView, [RefundRequest]>('refund');
export const extendRefundUpdate = defineUpdate<ShareWithdrawalView, [StepRequest]>('extendRefund');
export const withdrawalStateQuery = defineQuery<ShareWithdrawalView>('withdrawalState');
