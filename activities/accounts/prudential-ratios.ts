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
  // Read side by side: the loans take the longest, and the balances need the accounting year first.
  const [{ at, balances }, { settings }, loans] = await Promise.all([
    statementScopeAt(knex, scope.enterpriseId, date, scope.branches).then(async (at) => ({
      at,
      balances: await accountBalances(knex, at.scope),
    })),
    prudentialSettingsFor(knex, scope.enterpriseId),
    loansAt(knex, { enterpriseId: scope.enterpriseId, asOf: date, branches: scope.branches }),
  ]);
  return {
    settings,
    report: prudentialRatios({ balances, settings, ...loanFigures(loans) }),
    ...provisionalOf(at.openExercices),
  };
}
