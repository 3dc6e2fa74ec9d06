import type { Knex } from 'knex';
import * as yup from 'yup';
import { exerciceCovering } from '../../../activities/accounts/year-balances';
import { addDaysTo, parseIsoDate } from '../../../domain/calendar';
import { AppError, NotFoundError } from '../../../domain/errors';
import { balanceSheet, besidePrior, incomeStatement, yearEarlier, type ComparedLine } from '../../../domain/accounts/statements';
import { formatAmount, type Money } from '../../../domain/money';
import type { Principal } from '../../auth/principal';
import { defineRoute } from '../../route';
import { isoDate } from '../common.schemas';
import { visibleChart } from './ledger-access';
import { accountBalances, chartByCode, incomeAndExpenseFlows } from './ledger-queries';
import { balanceSheetSchema, incomeStatementSchema } from './ledger.schemas';

const chartParams = yup.object({ chart_pk: yup.string().uuid().required() });
const branchFilter = yup.string().uuid().optional().meta({ description: 'One branch; default: consolidated over the branches the caller sees.' });

/** The enterprise of a chart the caller sees, and the branches whose entries count: the one asked for (404 if not seen), else all seen. */
async function statementScope(knex: Knex, principal: Principal, chartId: string, branch: string | undefined) {
  const chart = await visibleChart(knex, principal, chartId);
  if (branch === undefined) return { enterpriseId: chart.enterprise_id, branch: null, branches: chart.branches };
  const known = await knex('branches').where({ id: branch, enterprise_id: chart.enterprise_id }).first('id');
  if (known === undefined || (chart.branches !== 'all' && !chart.branches.includes(branch))) throw new NotFoundError('The branch');
  return { enterpriseId: chart.enterprise_id, branch, branches: [branch] };
}

const serializeLines = (lines: readonly ComparedLine[]) =>
  lines.map((line) => ({
    code: line.code,
    label: line.label,
    amount: formatAmount(line.amount),
    prior_amount: formatAmount(line.prior),
    accounts: line.accounts.map((account) => ({ account: account.account, amount: formatAmount(account.amount) })),
  }));

/** A statement's totals as answered: each as it is, and the prior period's beside it under `prior_`. */
function totalsBeside<K extends string>(current: Record<K, Money>, prior: Record<K, Money>): Record<string, string> {
  const keys = Object.keys(current) as K[];
  return Object.fromEntries([...keys.map((key) => [key, formatAmount(current[key])]), ...keys.map((key) => [`prior_${key}`, formatAmount(prior[key])])]);
}

/**
 * The financial statements (docs/domain.md §7) in the PCEMF presentation of domain/accounts/statements.ts,
 * with the prior period beside them, consolidated or for one branch.
 */
export const statementRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/balance-sheet/',
    module: 'accounts',
    operationId: 'getBalanceSheet',
    summary: 'Balance sheet at a date, beside the end of the year before: assets equal liabilities, the result of the period included',
    description: 'Balances are read from the entries of the accounting year covering the date (its opening balances included).',
    access: 'authenticated',
    params: chartParams,
    query: yup.object({ date: isoDate().required(), branch: branchFilter }),
    errorStatuses: [401, 404, 422],
    response: balanceSheetSchema,
    handler: async ({ params, query, principal, deps }) => {
      const scope = await statementScope(deps.knex, principal, params.chart_pk, query.branch);
      const year = await exerciceCovering(deps.knex, scope.enterpriseId, query.date);
      if (year === undefined) {
        throw new AppError('unprocessable', 'no_exercice_for_date', `No accounting year of the enterprise covers ${query.date}.`, [{ field: 'date', message: 'no accounting year covers this date' }]);
      }
      const priorDate = addDaysTo(parseIsoDate(year.start_date), -1);
      const prior = await exerciceCovering(deps.knex, scope.enterpriseId, priorDate);
      const current = balanceSheet(await accountBalances(deps.knex, { exerciceId: year.id, upTo: query.date, branches: scope.branches }));
      const before = balanceSheet(await accountBalances(deps.knex, { exerciceId: prior?.id ?? null, upTo: priorDate, branches: scope.branches }));
      return {
        enterprise: scope.enterpriseId,
        branch: scope.branch,
        date: query.date,
        prior_date: priorDate,
        assets: serializeLines(besidePrior(current.assets, before.assets)),
        liabilities: serializeLines(besidePrior(current.liabilities, before.liabilities)),
        totals: {
          ...totalsBeside(current.totals, before.totals),
          balanced: current.totals.assets.eq(current.totals.liabilities) && before.totals.assets.eq(before.totals.liabilities),
        },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/income-statement/',
    module: 'accounts',
    operationId: 'getIncomeStatement',
    summary: 'Income statement of a period, beside the same period a year earlier: expenses and income by two-digit group, the result',
    description: 'The movements of classes 6 and 7 between the dates, without the closing entries of a year end.',
    access: 'authenticated',
    params: chartParams,
    query: yup.object({
      date_from: isoDate().required(),
      date_to: isoDate().required().test('ordered', 'date_to must not be before date_from', (to, { parent }) => to === undefined || parent.date_from === undefined || to >= parent.date_from),
      branch: branchFilter,
    }),
    errorStatuses: [401, 404],
    response: incomeStatementSchema,
    handler: async ({ params, query, principal, deps }) => {
      const scope = await statementScope(deps.knex, principal, params.chart_pk, query.branch);
      const chart = await chartByCode(deps.knex, params.chart_pk);
      const label = (group: string) => chart.get(group)?.label ?? group;
      const period = { from: query.date_from, to: query.date_to };
      const priorPeriod = { from: yearEarlier(period.from), to: yearEarlier(period.to) };
      const current = incomeStatement(await incomeAndExpenseFlows(deps.knex, { enterpriseId: scope.enterpriseId, ...period, branches: scope.branches }), label);
      const before = incomeStatement(await incomeAndExpenseFlows(deps.knex, { enterpriseId: scope.enterpriseId, ...priorPeriod, branches: scope.branches }), label);
      return {
        enterprise: scope.enterpriseId,
        branch: scope.branch,
        date_from: period.from,
        date_to: period.to,
        prior_date_from: priorPeriod.from,
        prior_date_to: priorPeriod.to,
        expenses: serializeLines(besidePrior(current.expenses, before.expenses)),
        income: serializeLines(besidePrior(current.income, before.income)),
        totals: totalsBeside(current.totals, before.totals),
      };
    },
  }),
];
