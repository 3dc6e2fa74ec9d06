import type { Knex } from 'knex';
import type { StatementScope } from '../../../activities/accounts/financial-statements';
import { isBranchOf, type ChartRow } from '../../../activities/accounts/ledger.queries';
import { NotFoundError } from '../../../domain/errors';
import { visibleBranches } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import { chartParams, chartReportQuery } from '../report-query';
import { accountLoaders } from './accounts.queries';

/**
 * The scope of a report on a chart the router loaded and the caller sees (accountLoaders.chart): its enterprise, and
 * the branches whose entries count: the one asked for (404 if not seen), else all the caller sees (a branch role
 * reads its branches' only).
 */
export async function statementScope(
  knex: Knex,
  principal: Principal,
  chart: ChartRow,
  branch: string | undefined,
): Promise<StatementScope> {
  const branches = visibleBranches(principal, chart.enterprise_id);
  const base = { enterpriseId: chart.enterprise_id, chartId: chart.id };
  if (branch === undefined) return { ...base, branch: null, branches };
  const known = await isBranchOf(knex, branch, chart.enterprise_id);
  if (!known || (branches !== 'all' && !branches.includes(branch))) throw new NotFoundError('The branch');
  return { ...base, branch, branches: [branch] };
}

/**
 * What a chart's report at a date declares (the balance sheet, the off-balance statement, the prudential ratios): any
 * user who sees the chart, loaded from `{chart_pk}`; a date and a branch; JSON, CSV or XLSX.
 */
export const chartReportAt = {
  access: 'authenticated' as const,
  load: accountLoaders.chart,
  params: chartParams,
  query: chartReportQuery,
  downloadable: true as const,
  errorStatuses: [401, 404, 422],
};
