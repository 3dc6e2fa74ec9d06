import type { Knex } from 'knex';
import type { StatementScope } from '../../../activities/accounts/financial-statements';
import { chartById, chartOfEnterprise, isBranchOf } from '../../../activities/accounts/ledger.queries';
import { NotFoundError } from '../../../domain/errors';
import { requireVisible, visibleBranches } from '../../auth/access';
import type { Principal } from '../../auth/principal';

/**
 * A chart the principal may see (404 otherwise), with the branches whose lines they read: a branch role reads its
 * branches' only.
 */
export async function visibleChart(
  knex: Knex,
  principal: Principal,
  chartId: string,
): Promise<{ id: string; enterprise_id: string; branches: 'all' | readonly string[] }> {
  const chart = await chartById(knex, chartId);
  if (chart === undefined) throw new NotFoundError('The chart');
  requireVisible(principal, { enterpriseId: chart.enterprise_id }, 'The chart');
  return { ...chart, branches: visibleBranches(principal, chart.enterprise_id) };
}

/**
 * The enterprise of a chart the caller sees, and the branches whose entries count: the one asked for (404 if not seen),
 * else all seen.
 */
export async function statementScope(
  knex: Knex,
  principal: Principal,
  chartId: string,
  branch: string | undefined,
): Promise<StatementScope> {
  const chart = await visibleChart(knex, principal, chartId);
  if (branch === undefined)
    return { enterpriseId: chart.enterprise_id, chartId, branch: null, branches: chart.branches };
  const known = await isBranchOf(knex, branch, chart.enterprise_id);
  if (!known || (chart.branches !== 'all' && !chart.branches.includes(branch))) throw new NotFoundError('The branch');
  return { enterpriseId: chart.enterprise_id, chartId, branch, branches: [branch] };
}

/**
 * As statementScope, for a report asked by enterprise rather than by chart (the journal book): 404 when the caller does
 * not see it.
 */
export async function enterpriseStatementScope(
  knex: Knex,
  principal: Principal,
  enterpriseId: string,
  branch: string | undefined,
): Promise<StatementScope> {
  const chart = await chartOfEnterprise(knex, enterpriseId);
  if (chart === undefined) throw new NotFoundError('The enterprise');
  return statementScope(knex, principal, chart.id, branch);
}
