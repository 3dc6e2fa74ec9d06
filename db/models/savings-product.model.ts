import { BaseModel } from './base.model';

export class SavingsProduct extends BaseModel {
  static override tableName = 'savings_products';

  enterpriseId!: string;
  code!: string;
  name!: string;
  kind!: 'demand_deposit' | 'term_deposit' | 'blocked_savings';
  /** Whole francs, as PostgreSQL numeric text. */
  minimumOpeningBalance!: string;
  minimumBalance!: string;
  withdrawalsAllowed!: boolean;
  /** Annual rate as a decimal string ("0.035"). */
  interestRate!: string;
  depositAccountCode!: string;
  isActive!: boolean;
}
