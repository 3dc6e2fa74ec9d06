import type { Knex } from 'knex';
import { statementScopeAt } from '../accounts/year-balances';
import { accountBalances, provisionalOf } from '../accounts/financial-statements';
import { defaultRoleAccounts } from '../events/default-rules';
import { arrearsStatement, ledgerAgreement } from '../../domain/loans/arrears-statement';
import type { IsoDate } from '../../domain/calendar';
import { EnterpriseConfiguration } from '../../db/models/enterprise-configuration.model';
import { doubtfulAccounts, provisionAccounts } from '../../domain/loans/doubtful-accounts';
import { classAccounts } from './class-accounts';
import { loansAt } from './positions-at';

/**
 * Where each class's principal and the provisions sit: every product's portfolio account, then 3312, every
 * doubtful account (3332, 3342, 3352) and every provision account (39100, 3921–3924, 3931–3933).
 */
async function figureAccounts(knex: Knex, enterpriseId: string) {
  const products: { portfolio_account_code: string }[] = await knex('loan_products')
    .where({ enterprise_id: enterpriseId })
    .distinct('portfolio_account_code');
  // classAccounts: the overdue account is the same whatever the product.
  const { overdue } = classAccounts(defaultRoleAccounts.loan_portfolio!);
  return {
    performing: products.map((product) => product.portfolio_account_code),
    overdue: [overdue],
    doubtful: doubtfulAccounts,
    provisions: provisionAccounts,
  };
}

/**
 * The arrears and provisions statement at a date (docs/domain.md §10) over an enterprise's branches, with the
 * ledger's balances of the class and provision accounts beside its totals. Read here for the API and the pack.
 */
export async function arrearsStatementAt(
  knex: Knex,
  scope: { enterpriseId: string; branches: 'all' | readonly string[] },
  date: IsoDate,
) {
  const at = await statementScopeAt(knex, scope.enterpriseId, date, scope.branches);
  const configuration = await EnterpriseConfiguration.query(knex)
    .findOne({ enterprise_id: scope.enterpriseId })
    .throwIfNotFound();
  const statement = arrearsStatement(
    await loansAt(knex, { enterpriseId: scope.enterpriseId, asOf: date, branches: scope.branches }),
    configuration.provisioningLadder,
  );
  const balances = await accountBalances(knex, at.scope);
  return {
    statement,
    agreement: ledgerAgreement(statement, balances, await figureAccounts(knex, scope.enterpriseId)),
    ...provisionalOf(at.openExercices),
  };
}
