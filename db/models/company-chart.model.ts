import { BaseModel } from './base.model';

/** An enterprise's chart of accounts (one per enterprise), copied from a standard plan when it is created. */
export class CompanyChart extends BaseModel {
  static override tableName = 'company_charts';

  enterpriseId!: string;
  planId!: string;
}
