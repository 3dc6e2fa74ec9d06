import type { Denomination } from '../../domain/cash/till-counts';
import { BaseModel } from './base.model';

/** A cashier's day at their till (journée de caisse), between an opening and a closing count (docs/domain.md §13.1). */
export class TillSession extends BaseModel {
  static override tableName = 'till_sessions';
  static override jsonAttributes = ['openingCount', 'closingCount'];

  enterpriseId!: string;
  branchId!: string;
  tillId!: string;
  cashierId!: string;
  businessDate!: string;
  status!: 'open' | 'closed';
  openingCount!: Record<Denomination, number>;
  /** Whole francs as text, as numeric columns read. */
  openingTotal!: string;
  openingBookBalance!: string;
  openingEntryId!: string | null;
  closingCount!: Record<Denomination, number> | null;
  closingTotal!: string | null;
  closingBookBalance!: string | null;
  closingEntryId!: string | null;
  openedAt!: Date;
  closedAt!: Date | null;
  closedBy!: string | null;
}
