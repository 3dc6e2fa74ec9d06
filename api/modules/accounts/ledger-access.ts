import type { Knex } from 'knex';
import { exerciceCovering, type ExerciceDates } from '../../../activities/accounts/year-balances';
import { AppError, NotFoundError } from '../../../domain/errors';
import { requireVisible, visibleBranches } from '../../auth/access';
import type { Principal } from '../../auth/principal';

/** A chart the principal may see (404 otherwise), with the branches whose lines they read: a branch role reads its branches' only. */
export async function visibleChart(knex: Knex, principal: Principal, chartId: string): Promise<{ id: string; enterprise_id: string; branches: 'all' | readonly string[] }> {
  const chart = await knex('company_charts').where({ id: chartId }).first('id', 'enterprise_id');
  if (chart === undefined) throw new NotFoundError('The chart');
  requireVisible(principal, { enterpriseId: chart.enterprise_id }, 'The chart');
  return { ...chart, branches: visibleBranches(principal, chart.enterprise_id) };
}

/** The enterprise of a chart the caller sees, and the branches whose entries count: the one asked for (404 if not seen), else all seen. */
export async function statementScope(knex: Knex, principal: Principal, chartId: string, branch: string | undefined) {
  const chart = await visibleChart(knex, principal, chartId);
  if (branch === undefined) return { enterpriseId: chart.enterprise_id, branch: null, branches: chart.branches };
  const known = await knex('branches').where({ id: branch, enterprise_id: chart.enterprise_id }).first('id');
  if (known === undefined || (chart.branches !== 'all' && !chart.branches.includes(branch))) throw new NotFoundError('The branch');
  return { enterpriseId: chart.enterprise_id, branch, branches: [branch] };
}

/** The accounting year a statement at `date` reads (422 naming the date when none covers it). */
export async function exerciceForDate(knex: Knex, enterpriseId: string, date: string): Promise<ExerciceDates> {
  const year = await exerciceCovering(knex, enterpriseId, date);
  if (year === undefined) {
    throw new AppError('unprocessable', 'no_exercice_for_date', `No accounting year of the enterprise covers ${date}.`, [{ field: 'date', message: 'no accounting year covers this date' }]);
  }
  return year;
}
