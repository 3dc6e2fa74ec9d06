import { BaseModel } from './base.model';

/** A bank account of an enterprise (issue 28), its own sub-account of a leaf of 560 (docs/domain.md §12.6). */
export class BankAccount extends BaseModel {
  static override tableName = 'bank_accounts';

  enterpriseId!: string;
  /** null: an account of the whole enterprise. */
  branchId!: string | null;
  bankName!: string;
  /** RIB or IBAN, as the bank writes it. */
  accountNumber!: string;
  /** The bank's agency that keeps the account. */
  bankBranch!: string | null;
  chartEntryId!: string;
  accountCode!: string;
  isActive!: boolean;
  createdBy!: string | null;
}
