import { BaseModel } from './base.model';

export type TillKind = 'till' | 'vault';

/**
 * A till (caisse) or a branch's vault (coffre), issue 29 (docs/domain.md §13.1). The vault's account is 5710, one
 * per branch; a till's is its own sub-account of 5712, and it is assigned to one cashier at a time.
 */
export class Till extends BaseModel {
  static override tableName = 'tills';

  enterpriseId!: string;
  branchId!: string;
  code!: string;
  label!: string;
  kind!: TillKind;
  accountCode!: string;
  /** Whole francs as text; null: no limit set. */
  cashLimit!: string | null;
  cashierId!: string | null;
  isActive!: boolean;
  createdBy!: string | null;
}
