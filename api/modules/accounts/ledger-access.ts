import type { Knex } from 'knex';
import { NotFoundError } from '../../../domain/errors';
import { requireVisible, visibleBranches } from '../../auth/access';
import type { Principal } from '../../auth/principal';

/** A chart the principal may see (404 otherwise), with the branches whose lines they read: a branch role reads its branches' only. */
export async function visibleChart(knex: Knex, principal: Principal, chartId: string): Promise<{ id: string; enterprise_id: string; branches: 'all' | readonly string[] }> {
  const chart = await knex('company_charts').where({ id: chartId }).first('id', 'enterprise_id');
  if (chart === undefined) throw new NotFoundError('The chart');
  requireVisible(principal, { enterpriseId: chart.enterprise_id }, 'The chart');
  return { ...chart, branches: visibleBranches(principal, chart.enterprise_id) };
}
