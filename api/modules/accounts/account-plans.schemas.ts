import type { Model, QueryBuilder } from 'objection';
import * as yup from 'yup';
import type { AccountPlan } from '../../../db/models/account-plan.model';
import type { AccountRecord } from '../../../db/models/account-record.model';
import type { CompanyChart } from '../../../db/models/company-chart.model';
import type { CompanyChartEntry } from '../../../db/models/company-chart-entry.model';
import type { SchemaMeta } from '../../json-schema';
import { timestampResponse, nullableId } from '../common.schemas';

/** Digits only: the code tree is by prefix, so codes of the chart are numeric strings (never numbers). */
export const accountCode = (max: number) =>
  yup
    .string()
    .trim()
    .matches(/^[0-9]+$/, '${path} may hold digits only')
    .max(max);

/** The filters records and chart entries share; `table` qualifies the columns of the query. */
export const accountFilters = {
  class: yup
    .number()
    .integer()
    .min(1)
    .max(9)
    .optional()
    .meta({ description: 'Only this class (1 to 9; 9: off-balance).' }),
  parent: accountCode(12).optional().meta({ description: 'Only the accounts directly below this code.' }),
  code_prefix: accountCode(12).optional().meta({ description: 'Only the codes starting with these digits.' }),
  search: yup.string().trim().max(100).optional().meta({ description: 'Part of the label or the code.' }),
};

export interface AccountFilterQuery {
  class?: number;
  parent?: string;
  code_prefix?: string;
  search?: string;
}

export function filterAccounts<M extends Model>(
  builder: QueryBuilder<M, M[]>,
  table: string,
  query: AccountFilterQuery,
): QueryBuilder<M, M[]> {
  if (query.class !== undefined) builder.where(`${table}.class`, query.class);
  if (query.parent !== undefined) builder.where(`${table}.parent_code`, query.parent);
  if (query.code_prefix !== undefined) builder.where(`${table}.code`, 'like', `${query.code_prefix}%`);
  if (query.search !== undefined) {
    const pattern = `%${query.search}%`;
    builder.where((b) => b.whereILike(`${table}.label`, pattern).orWhereILike(`${table}.code`, pattern));
  }
  return builder;
}

const timestamps = { created_at: timestampResponse(), updated_at: timestampResponse() };

export const planSchema = yup
  .object({
    id: yup.string().uuid().required(),
    code: yup.string().required(),
    name: yup.string().required(),
    description: yup.string().defined(),
    ...timestamps,
  })
  .meta({ component: 'AccountPlan' });

export function serializePlan(plan: AccountPlan) {
  return {
    id: plan.id,
    code: plan.code,
    name: plan.name,
    description: plan.description,
    created_at: plan.createdAt.toISOString(),
    updated_at: plan.updatedAt.toISOString(),
  };
}

const accountFields = {
  code: yup.string().required(),
  label: yup.string().required(),
  class: yup.number().integer().required(),
  parent_code: yup.string().nullable().defined().meta({ description: 'null for a class root (codes 1 to 8).' }),
  is_system: yup.boolean().required().meta({ description: 'Classes 6 to 8: never renamed, deactivated or extended.' }),
};

export const recordSchema = yup
  .object({ id: yup.string().uuid().required(), plan: yup.string().uuid().required(), ...accountFields })
  .meta({ component: 'AccountRecord' });

export function serializeRecord(record: AccountRecord) {
  return {
    id: record.id,
    plan: record.planId,
    code: record.code,
    label: record.label,
    class: record.class,
    parent_code: record.parentCode,
    is_system: record.isSystem,
  };
}

export const treeNodeSchema = yup
  .object({
    code: yup.string().required(),
    label: yup.string().required(),
    is_system: yup.boolean().required(),
    children: yup
      .array()
      .required()
      .meta({
        description: 'The accounts directly below, by code.',
        itemsComponent: 'AccountTreeNode',
      } satisfies SchemaMeta),
  })
  .meta({ component: 'AccountTreeNode' });

export interface TreeNode {
  code: string;
  label: string;
  is_system: boolean;
  children: TreeNode[];
}

/** Nests records (sorted by code, so parents come first) under their parents; returns the root `rootCode`. */
export function nestRecords(records: readonly AccountRecord[], rootCode: string): TreeNode | undefined {
  const nodes = new Map<string, TreeNode>();
  for (const record of records) {
    const node: TreeNode = { code: record.code, label: record.label, is_system: record.isSystem, children: [] };
    nodes.set(record.code, node);
    if (record.parentCode !== null) nodes.get(record.parentCode)?.children.push(node);
  }
  return nodes.get(rootCode);
}

export const chartSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    plan: yup.string().uuid().required(),
    ...timestamps,
  })
  .meta({ component: 'CompanyChart' });

export function serializeChart(chart: CompanyChart) {
  return {
    id: chart.id,
    enterprise: chart.enterpriseId,
    plan: chart.planId,
    created_at: chart.createdAt.toISOString(),
    updated_at: chart.updatedAt.toISOString(),
  };
}

export const entrySchema = yup
  .object({
    id: yup.string().uuid().required(),
    chart: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    record: nullableId("The plan's account; null for the enterprise's own sub-account."),
    ...accountFields,
    is_active: yup.boolean().required(),
    is_leaf: yup.boolean().required().meta({ description: 'No account below it: the ledger posts to leaves only.' }),
    ...timestamps,
  })
  .meta({ component: 'ChartEntry' });

export function serializeEntry(entry: CompanyChartEntry) {
  // A bug, not a user error: every read of entries goes through CompanyChartEntry.withLeafFlag.
  if (entry.isLeaf === undefined) throw new Error(`chart entry ${entry.id} was read without its leaf flag`);
  return {
    id: entry.id,
    chart: entry.chartId,
    enterprise: entry.enterpriseId,
    record: entry.recordId,
    code: entry.code,
    label: entry.label,
    class: entry.class,
    parent_code: entry.parentCode,
    is_system: entry.isSystem,
    is_active: entry.isActive,
    is_leaf: entry.isLeaf,
    created_at: entry.createdAt.toISOString(),
    updated_at: entry.updatedAt.toISOString(),
  };
}
