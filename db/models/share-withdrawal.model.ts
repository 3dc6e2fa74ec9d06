import { BaseModel } from './base.model';

export const withdrawalStatuses = ['notice', 'cancelled', 'effective', 'refunded', 'failed'] as const;
export type WithdrawalStatus = (typeof withdrawalStatuses)[number];

/**
 * A request to withdraw shares of one subscription, carried by the `shareWithdrawal` workflow: in notice, then
 * effective (shares cancelled, refund owed), then refunded; or cancelled during the notice.
 */
export class ShareWithdrawal extends BaseModel {
  static override tableName = 'share_withdrawals';
  static override jsonAttributes = ['refundRequest'];

  enterpriseId!: string;
  branchId!: string;
  clientId!: string;
  subscriptionId!: string;
  number!: string;
  shares!: number;
  leaving!: boolean;
  reason!: string;
  status!: WithdrawalStatus;
  statusReason!: string;
  requestedOn!: string;
  noticeDays!: number;
  effectiveOnPlanned!: string;
  requestedBy!: string;
  cancelledAt!: Date | null;
  cancelledBy!: string | null;
  effectiveOn!: string | null;
  cancelledPaid!: string | null;
  cancelledUnpaid!: string | null;
  refundDueOn!: string | null;
  refundExtendedAt!: Date | null;
  refundExtendedBy!: string | null;
  refundExtensionReason!: string;
  refundRemindedAt!: Date | null;
  refundOverdueAt!: Date | null;
  refundedOn!: string | null;
  refundChannel!: 'cash' | 'account' | null;
  refundAccountId!: string | null;
  offsetAmount!: string | null;
  netRefund!: string | null;
  refundedBy!: string | null;
  refundIdempotencyKey!: string | null;
  refundRequest!: Record<string, unknown> | null;
  workflowId!: string;
}
