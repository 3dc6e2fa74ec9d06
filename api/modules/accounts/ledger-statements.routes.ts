import type { Knex } from 'knex';
import * as yup from 'yup';
import { exerciceCovering } from '../../../activities/accounts/year-balances';
import { addDaysTo, parseIsoDate } from '../../../domain/calendar';
import { balanceSheet, besidePrior, incomeStatement, yearEarlier, type ComparedLine } from '../../../domain/accounts/statements';
import { intermediateBalances } from '../../../domain/accounts/intermediate-balances';
import { formatAmount, type Money } from '../../../domain/money';
import { defineRoute } from '../../route';
import { isoDate } from '../common.schemas';
import { exerciceForDate, statementScope } from './ledger-access';
import { accountBalances, chartByCode, incomeAndExpenseFlows } from './ledger-queries';
import { balanceSheetSchema, incomeStatementSchema, intermediateBalancesSchema } from './ledger.schemas';

const chartParams = yup.object({ chart_pk: yup.string().uuid().required() });
const branchFilter = yup.string().uuid().optional().meta({ description: 'One branch; default: consolidated over the branches the caller sees.' });

const periodQuery = yup.object({
  date_from: isoDate().required(),
  date_to: isoDate().required().test('ordered', 'date_to must not be before date_from', (to, { parent }) => to === undefined || parent.date_from === undefined || to >= parent.date_from),
  branch: branchFilter,
});

/**
 * The movements of classes 6 and 7 of a period and of the same dates a year earlier, in the statement's scope,
 * and the heading of a statement of that period (the income statement and the SIG).
 */
async function periodFlows(knex: Knex, scope: { enterpriseId: string; branch: string | null; branches: 'all' | readonly string[] }, query: { date_from: string; date_to: string }) {
  const period = { from: query.date_from, to: query.date_to };
  const priorPeriod = { from: yearEarlier(period.from), to: yearEarlier(period.to) };
  const flowsOf = (dates: typeof period) => incomeAndExpenseFlows(knex, { enterpriseId: scope.enterpriseId, ...dates, branches: scope.branches });
  const heading = {
    enterprise: scope.enterpriseId,
    branch: scope.branch,
    date_from: period.from,
    date_to: period.to,
    prior_date_from: priorPeriod.from,
    prior_date_to: priorPeriod.to,
  };
  return { heading, current: await flowsOf(period), prior: await flowsOf(priorPeriod) };
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
      const year = await exerciceForDate(deps.knex, scope.enterpriseId, query.date);
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
    query: periodQuery,
    errorStatuses: [401, 404],
    response: incomeStatementSchema,
    handler: async ({ params, query, principal, deps }) => {
      const flows = await periodFlows(deps.knex, await statementScope(deps.knex, principal, params.chart_pk, query.branch), query);
      const chart = await chartByCode(deps.knex, params.chart_pk);
      const label = (group: string) => chart.get(group)?.label ?? group;
      const current = incomeStatement(flows.current, label);
      const before = incomeStatement(flows.prior, label);
      return {
        ...flows.heading,
        expenses: serializeLines(besidePrior(current.expenses, before.expenses)),
        income: serializeLines(besidePrior(current.income, before.income)),
        totals: totalsBeside(current.totals, before.totals),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/intermediate-balances/',
    module: 'accounts',
    operationId: 'getIntermediateBalances',
    summary: 'Soldes intermédiaires de gestion (PCEMF class 8: 80 PNF … 87 résultat net) of a period, beside the same period a year earlier',
    description: 'Computed from the movements of classes 6 and 7 (as the income statement, closing entries left out) by the formulas of docs/domain.md §10, '
      + 'which are UNVERIFIED against the PCEMF text; each balance lists the accounts of its own groups. 87 equals the income statement\'s result.',
    access: 'authenticated',
    params: chartParams,
    query: periodQuery,
    errorStatuses: [401, 404],
    response: intermediateBalancesSchema,
    handler: async ({ params, query, principal, deps }) => {
      const flows = await periodFlows(deps.knex, await statementScope(deps.knex, principal, params.chart_pk, query.branch), query);
      return { ...flows.heading, balances: serializeLines(besidePrior(intermediateBalances(flows.current), intermediateBalances(flows.prior))) };
    },
  }),
];
