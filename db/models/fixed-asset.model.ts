import { BaseModel } from './base.model';

/**
 * An asset of the fixed-asset register (docs/domain.md §12.4): its acquisition, its straight-line period, its disposal.
 */
export class FixedAsset extends BaseModel {
  static override tableName = 'fixed_assets';

  enterpriseId!: string;
  branchId!: string;
  categoryId!: string;
  label!: string;
  supplier!: string | null;
  /** ISO dates (the date type parser keeps them as text); amounts as whole-franc numeric text. */
  acquisitionDate!: string;
  cost!: string;
  depreciationMonths!: number;
  method!: 'straight_line';
  fundingAccountCode!: string;
  acquisitionEntryId!: string;
  status!: 'active' | 'disposed';
  disposalDate!: string | null;
  disposalProceeds!: string | null;
  proceedsAccountCode!: string | null;
  disposalEntryId!: string | null;
  createdBy!: string;
  disposedBy!: string | null;
}
