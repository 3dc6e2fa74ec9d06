import { BaseModel } from './base.model';

/**
 * A member's subscription of shares of one type, numbered from ShareSequence. The running totals (paid,
 * withdrawn) move with each payment and withdrawal, in their transaction; the subscription itself never changes.
 */
export class ShareSubscription extends BaseModel {
  static override tableName = 'share_subscriptions';
  static override jsonAttributes = ['request'];

  enterpriseId!: string;
  branchId!: string;
  clientId!: string;
  shareTypeId!: string;
  number!: string;
  shares!: number;
  /** Whole francs as numeric text. */
  nominalValue!: string;
  amount!: string;
  subscribedOn!: string;
  paymentDueOn!: string;
  paidAmount!: string;
  withdrawnShares!: number;
  withdrawnPaid!: string;
  withdrawnUnpaid!: string;
  subscribedBy!: string;
  idempotencyKey!: string;
  request!: Record<string, unknown>;
}
