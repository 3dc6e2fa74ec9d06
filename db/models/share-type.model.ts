import type { ShareTypeCode } from '../../domain/shares/share-type';
import { BaseModel } from './base.model';

/**
 * A share type of an enterprise (001 Founder, 002 Ordinary, 003 Honorary): value, bounds, payment and withdrawal terms.
 */
export class ShareType extends BaseModel {
  static override tableName = 'share_types';

  enterpriseId!: string;
  code!: ShareTypeCode;
  name!: string;
  /** Whole francs as numeric text; the rate as a decimal string ("0.25"). */
  nominalValue!: string;
  minShares!: number;
  maxShares!: number;
  voting!: boolean;
  withdrawable!: boolean;
  seniorityYears!: number;
  /** null: the enterprise's share_withdrawal_notice_days. */
  noticeDays!: number | null;
  partialPaymentAllowed!: boolean;
  minimumInitialPaymentRate!: string;
  paymentPeriodMonths!: number;
  isActive!: boolean;
}
