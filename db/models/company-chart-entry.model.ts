import { raw, type QueryBuilder } from 'objection';
import { BaseModel } from './base.model';

const isLeafSql = 'SELECT 1 FROM company_chart_leaves leaf WHERE leaf.id = company_chart_entries.id';

/**
 * An account of an enterprise's chart: a copy of a plan record (`recordId`), or the enterprise's own
 * sub-account (`recordId` null). Whether it is a leaf is derived from the other entries, never stored.
 */
export class CompanyChartEntry extends BaseModel {
  static override tableName = 'company_chart_entries';

  chartId!: string;
  enterpriseId!: string;
  recordId!: string | null;
  code!: string;
  label!: string;
  class!: number;
  parentCode!: string | null;
  isSystem!: boolean;
  isActive!: boolean;
  /** Set by `withLeafFlag` only. */
  isLeaf?: boolean;

  /** Adds `isLeaf` to each row, from the company_chart_leaves view (the one definition of a leaf). */
  static withLeafFlag(builder: QueryBuilder<CompanyChartEntry>): QueryBuilder<CompanyChartEntry> {
    return builder.select('company_chart_entries.*', raw(`EXISTS (${isLeafSql}) AS is_leaf`));
  }

  /** Keeps the leaves (`leaf` true) or the accounts that have sub-accounts (false). */
  static whereLeaf(builder: QueryBuilder<CompanyChartEntry>, leaf: boolean): QueryBuilder<CompanyChartEntry> {
    return leaf ? builder.whereExists(raw(isLeafSql)) : builder.whereNotExists(raw(isLeafSql));
  }
}
