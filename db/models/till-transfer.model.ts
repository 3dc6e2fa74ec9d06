import type { Denomination } from '../../domain/cash/till-counts';
import type { TillTransferKind } from '../../domain/cash/till-transfers';
import { BaseModel } from './base.model';

/** Cash between a branch's vault and one of its tills, in transit on 459 until counted in (docs/domain.md §13.2). */
export class TillTransfer extends BaseModel {
  static override tableName = 'till_transfers';
  static override jsonAttributes = ['count', 'receivedCount'];

  enterpriseId!: string;
  branchId!: string;
  tillId!: string;
  kind!: TillTransferKind;
  /** Whole francs as text, as numeric columns read. */
  amount!: string;
  count!: Record<Denomination, number> | null;
  status!: 'pending' | 'confirmed' | 'cancelled';
  businessDate!: string;
  requestedBy!: string;
  requestEntryId!: string;
  receivedCount!: Record<Denomination, number> | null;
  decidedBy!: string | null;
  decidedAt!: Date | null;
  decisionEntryId!: string | null;
}
