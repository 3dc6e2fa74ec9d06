import * as yup from 'yup';
import { withdrawalStatuses, type ShareWithdrawal } from '../../../db/models/share-withdrawal.model';
import { dateResponse, timestampResponse, nullableId } from '../common.schemas';
import { moneyResponse } from '../money.schemas';
import { memberRecordFields } from '../members/member-records.schemas';

export const withdrawalSchema = yup
  .object({
    ...memberRecordFields,
    subscription: yup.string().uuid().required(),
    number: yup.string().required().meta({ example: 'WDR-2026-000001' }),
    shares: yup.number().integer().required(),
    leaving: yup
      .boolean()
      .required()
      .meta({ description: 'The member leaves: no minimum holding, refund net of the outstanding principal too.' }),
    reason: yup.string().defined(),
    status: yup.string().oneOf(withdrawalStatuses).required(),
    status_reason: yup.string().defined(),
    requested_on: dateResponse(),
    notice_days: yup.number().integer().required(),
    effective_on_planned: yup.string().required(),
    requested_by: yup.string().uuid().required(),
    cancelled_at: timestampResponse().nullable(),
    cancelled_by: nullableId(),
    effective_on: dateResponse().nullable(),
    refund_owed: moneyResponse()
      .nullable()
      .defined()
      .meta({ description: 'Paid value of the cancelled shares, owed to the member from the effective date.' }),
    unpaid_cancelled: moneyResponse().nullable().defined(),
    refund_due_on: dateResponse().nullable(),
    refund_extended: yup.boolean().required(),
    refund_extension_reason: yup.string().defined(),
    refund_reminded_at: timestampResponse().nullable(),
    refund_overdue: yup.boolean().required().meta({ description: 'The refund was not made by its due date.' }),
    refunded_on: dateResponse().nullable(),
    refund_channel: yup.string().nullable().defined(),
    refund_account: nullableId(),
    offset_amount: moneyResponse()
      .nullable()
      .defined()
      .meta({ description: "Taken by the member's debts (loan repayments)." }),
    net_refund: moneyResponse().nullable().defined().meta({ description: 'Paid out to the member.' }),
    refunded_by: nullableId(),
    workflow_id: yup.string().required(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'ShareWithdrawal' });

export function serializeWithdrawal(withdrawal: ShareWithdrawal) {
  return {
    id: withdrawal.id,
    enterprise: withdrawal.enterpriseId,
    branch: withdrawal.branchId,
    client: withdrawal.clientId,
    subscription: withdrawal.subscriptionId,
    number: withdrawal.number,
    shares: withdrawal.shares,
    leaving: withdrawal.leaving,
    reason: withdrawal.reason,
    status: withdrawal.status,
    status_reason: withdrawal.statusReason,
    requested_on: withdrawal.requestedOn,
    notice_days: withdrawal.noticeDays,
    effective_on_planned: withdrawal.effectiveOnPlanned,
    requested_by: withdrawal.requestedBy,
    cancelled_at: withdrawal.cancelledAt?.toISOString() ?? null,
    cancelled_by: withdrawal.cancelledBy,
    effective_on: withdrawal.effectiveOn,
    refund_owed: withdrawal.cancelledPaid,
    unpaid_cancelled: withdrawal.cancelledUnpaid,
    refund_due_on: withdrawal.refundDueOn,
    refund_extended: withdrawal.refundExtendedAt !== null,
    refund_extension_reason: withdrawal.refundExtensionReason,
    refund_reminded_at: withdrawal.refundRemindedAt?.toISOString() ?? null,
    refund_overdue: withdrawal.refundOverdueAt !== null,
    refunded_on: withdrawal.refundedOn,
    refund_channel: withdrawal.refundChannel,
    refund_account: withdrawal.refundAccountId,
    offset_amount: withdrawal.offsetAmount,
    net_refund: withdrawal.netRefund,
    refunded_by: withdrawal.refundedBy,
    workflow_id: withdrawal.workflowId,
    created_at: withdrawal.createdAt.toISOString(),
  };
}
