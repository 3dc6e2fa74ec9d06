import { BaseModel } from './base.model';

/** A standard chart of accounts (the PCEMF 2010); enterprises' charts are copies of one. */
export class AccountPlan extends BaseModel {
  static override tableName = 'account_plans';

  code!: string;
  name!: string;
  description!: string;
}
