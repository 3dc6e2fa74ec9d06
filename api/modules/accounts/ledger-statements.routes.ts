import * as yup from 'yup';
import {
  balanceSheetAt,
  incomeStatementOf,
  intermediateBalancesOf,
} from '../../../activities/accounts/financial-statements';
import { offBalanceDocument, offBalanceStatementAt } from '../../../activities/accounts/off-balance-statement';
import {
  balanceSheetDocument,
  incomeStatementDocument,
  reportHeading,
} from '../../../activities/accounts/statement-documents';
import { intermediateBalancesDocument } from '../../../domain/accounts/intermediate-balances.document';
import { answerReport, formatParameter } from '../../report-download';
import { defineRoute } from '../../route';
import { chartParams, reportBranchFilter } from '../report-query';
import { isoDate } from '../common.schemas';
import { accountLoaders } from './accounts.queries';
import { chartReportAt, statementScope } from './ledger-access';
import {
  balanceSheetSchema,
  incomeStatementSchema,
  intermediateBalancesSchema,
  offBalanceSchema,
} from './ledger.schemas';

const periodQuery = yup.object({
  date_from: isoDate().required(),
  date_to: isoDate()
    .required()
    .test(
      'ordered',
      'date_to must not be before date_from',
      (to, { parent }) => to === undefined || parent.date_from === undefined || to >= parent.date_from,
    ),
  branch: reportBranchFilter,
  format: formatParameter,
});

/**
 * The financial statements (docs/domain.md §7) in the PCEMF presentation of domain/accounts/statements.ts,
 * with the prior period beside them, consolidated or for one branch; as JSON, CSV or XLSX (`format`).
 */
export const statementRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/balance-sheet/',
    module: 'accounts',
    operationId: 'getBalanceSheet',
    summary:
      'Balance sheet at a date, beside the end of the year before: assets equal liabilities, the result of ' +
      'the period included',
    description:
      'Balances are read from the entries of the accounting year covering the date (its opening balances included).',
    ...chartReportAt,
    response: balanceSheetSchema,
    refusals: ['no_exercice_for_date'],
    handler: async ({ query, principal, deps, ctx, resource }) => {
      const scope = await statementScope(deps.knex, principal, resource, query.branch);
      const sheet = await balanceSheetAt(deps.knex, scope, query.date);
      return answerReport(ctx, query.format, sheet, {
        report: 'balance-sheet',
        document: async () => balanceSheetDocument(sheet, await reportHeading(deps.knex, scope, deps.clock())),
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/off-balance/',
    module: 'accounts',
    operationId: 'getOffBalanceStatement',
    summary: 'Off-balance statement at a date (class 9): commitments given, received, doubtful',
    description:
      "The class 9 balances at the date, read as the balance sheet's (the year covering it, its opening " +
      'balances included, earlier years not closed carried). ' +
      "The product posts the loans' financing commitments (922), the guarantees received (931, 932, 934, " +
      '913, 961) and the interest suspended on doubtful loans (9841): docs/domain.md §12.2.',
    ...chartReportAt,
    response: offBalanceSchema,
    refusals: ['no_exercice_for_date'],
    handler: async ({ query, principal, deps, ctx, resource }) => {
      const scope = await statementScope(deps.knex, principal, resource, query.branch);
      const statement = await offBalanceStatementAt(deps.knex, scope, query.date);
      return answerReport(ctx, query.format, statement, {
        report: 'off-balance',
        document: async () => offBalanceDocument(statement, await reportHeading(deps.knex, scope, deps.clock())),
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/income-statement/',
    module: 'accounts',
    operationId: 'getIncomeStatement',
    summary:
      'Income statement of a period, beside the same period a year earlier: expenses and income by two-digit ' +
      'group, the result',
    description: 'The movements of classes 6 and 7 between the dates, without the closing entries of a year end.',
    access: 'authenticated',
    load: accountLoaders.chart,
    params: chartParams,
    query: periodQuery,
    downloadable: true,
    errorStatuses: [401, 404],
    response: incomeStatementSchema,
    handler: async ({ query, principal, deps, ctx, resource }) => {
      const scope = await statementScope(deps.knex, principal, resource, query.branch);
      const statement = await incomeStatementOf(deps.knex, scope, { from: query.date_from, to: query.date_to });
      return answerReport(ctx, query.format, statement, {
        report: 'income-statement',
        document: async () => incomeStatementDocument(statement, await reportHeading(deps.knex, scope, deps.clock())),
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/intermediate-balances/',
    module: 'accounts',
    operationId: 'getIntermediateBalances',
    summary:
      'Soldes intermédiaires de gestion (PCEMF class 8: 80 PNF … 87 résultat net) of a period, beside the ' +
      'same period a year earlier',
    description:
      'Computed from the movements of classes 6 and 7 (as the income statement, closing entries left out) by ' +
      'the formulas of docs/domain.md §10, ' +
      'which are UNVERIFIED against the PCEMF text; each balance lists the accounts of its own groups. 87 ' +
      "equals the income statement's result.",
    access: 'authenticated',
    load: accountLoaders.chart,
    params: chartParams,
    query: periodQuery,
    downloadable: true,
    errorStatuses: [401, 404],
    response: intermediateBalancesSchema,
    handler: async ({ query, principal, deps, ctx, resource }) => {
      const scope = await statementScope(deps.knex, principal, resource, query.branch);
      const period = { from: query.date_from, to: query.date_to };
      const { answer, balances } = await intermediateBalancesOf(deps.knex, scope, period);
      return answerReport(ctx, query.format, answer, {
        report: 'intermediate-balances',
        document: async () =>
          intermediateBalancesDocument(await reportHeading(deps.knex, scope, deps.clock()), period, balances),
      });
    },
  }),
];
