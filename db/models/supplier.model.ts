import { BaseModel } from './base.model';

/** A supplier of an enterprise (issue 28), with its own sub-account of 40110 in the chart (docs/domain.md §12.5). */
export class Supplier extends BaseModel {
  static override tableName = 'suppliers';

  enterpriseId!: string;
  /** null: a supplier of the whole enterprise. */
  branchId!: string | null;
  name!: string;
  /** NIU, the tax administration's identifier. */
  taxId!: string | null;
  contact!: string | null;
  chartEntryId!: string;
  accountCode!: string;
  isActive!: boolean;
  createdBy!: string | null;
}
