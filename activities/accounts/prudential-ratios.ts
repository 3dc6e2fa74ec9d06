import type { Knex } from 'knex';
import { loanFigures, prudentialRatios } from '../../domain/accounts/prudential-ratios';
import type { IsoDate } from '../../domain/calendar';
import { prudentialSettingsFor } from '../enterprise/prudential-settings.activity';
import { loansAt } from '../loans/positions-at';
import { accountBalances, provisionalOf } from './financial-statements';
import { statementScopeAt } from './year-balances';

/**
 * The COBAC prudential ratios at a date (docs/domain.md §10) over an enterprise's branches: the balances of the
 * accounting year covering the date, the loans at their provisioning position of the date, the enterprise's
 * thresholds and weights. Read here for the API and for the reporting pack.
 */
export async function prudentialRatiosAt(
  knex: Knex,
  scope: { enterpriseId: string; branches: 'all' | readonly string[] },
  date: IsoDate,
) {
  const at = await statementScopeAt(knex, scope.enterpriseId, date, scope.branches);
  const { settings } = await prudentialSettingsFor(knex, scope.enterpriseId);
  const balances = await accountBalances(knex, at.scope);
  const loans = await loansAt(knex, { enterpriseId: scope.enterpriseId, asOf: date, branches: scope.branches });
  return {
    settings,
    report: prudentialRatios({ balances, settings, ...loanFigures(loans) }),
    ...provisionalOf(at.openExercices),
  };
}
