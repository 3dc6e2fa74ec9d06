import { BaseModel } from './base.model';

/** One account of a standard plan; the class roots (codes '1' to '8') have no parent. */
export class AccountRecord extends BaseModel {
  static override tableName = 'account_records';

  planId!: string;
  code!: string;
  label!: string;
  class!: number;
  parentCode!: string | null;
  isSystem!: boolean;
}
