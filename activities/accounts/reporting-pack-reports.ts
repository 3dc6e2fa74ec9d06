import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { intermediateBalancesDocument } from '../../domain/accounts/intermediate-balances.document';
import { prudentialRatiosDocument } from '../../domain/accounts/prudential-ratios.document';
import { arrearsStatementDocument } from '../../domain/loans/arrears-statement.document';
import type { ReportDocument } from '../../domain/accounts/report-document';
import { arrearsStatementAt } from '../loans/arrears-statement';
import { balanceSheetAt, incomeStatementOf, intermediateBalancesOf, trialBalanceOf, type StatementScope } from './financial-statements';
import { offBalanceDocument, offBalanceStatementAt } from './off-balance-statement';
import { prudentialRatiosAt } from './prudential-ratios';
import { balanceSheetDocument, incomeStatementDocument, provisionalHeading, trialBalanceDocument, type ReportHeading } from './statement-documents';
import { balanceScopeAt } from './year-balances';

/** What a report of the pack is made of: the enterprise as a whole, the month, its accounting year. */
export interface PackFacts {
  /** Consolidated: every branch, the enterprise's own entries included. */
  scope: StatementScope;
  /** The month's last day: the date of the balances. */
  monthEnd: IsoDate;
  /** The accounting year covering it: the income statement runs from its first day. */
  exercice: { id: string; startDate: IsoDate };
  heading: ReportHeading;
}

export interface PackReport {
  /** The file's name in the pack, `[a-z0-9-]`, unique: `balance-sheet` gives balance-sheet.csv and balance-sheet.xlsx. */
  name: string;
  build(knex: Knex, pack: PackFacts): Promise<ReportDocument>;
}

/**
 * The reports of the monthly pack (docs/architecture.md §10), each written as CSV and XLSX. Adding a report is
 * adding its line here; a pack already stored keeps the reports it was made with.
 */
export const reportingPackReports: readonly PackReport[] = [
  { name: 'balance-sheet', build: async (knex, pack) => balanceSheetDocument(await balanceSheetAt(knex, pack.scope, pack.monthEnd), pack.heading) },
  { name: 'income-statement', build: async (knex, pack) => incomeStatementDocument(await incomeStatementOf(knex, pack.scope, { from: pack.exercice.startDate, to: pack.monthEnd }), pack.heading) },
  { name: 'off-balance', build: async (knex, pack) => offBalanceDocument(await offBalanceStatementAt(knex, pack.scope, pack.monthEnd), pack.heading) },
  {
    name: 'trial-balance',
    build: async (knex, pack) => {
      const at = await balanceScopeAt(knex, pack.scope.enterpriseId, pack.monthEnd, 'all');
      return trialBalanceDocument(await trialBalanceOf(knex, pack.scope.chartId, at, { date: pack.monthEnd }), pack.heading);
    },
  },
  {
    name: 'intermediate-balances',
    build: async (knex, pack) => {
      const period = { from: pack.exercice.startDate, to: pack.monthEnd };
      return intermediateBalancesDocument(pack.heading, period, (await intermediateBalancesOf(knex, pack.scope, period)).balances);
    },
  },
  {
    name: 'prudential-ratios',
    build: async (knex, pack) => {
      const ratios = await prudentialRatiosAt(knex, pack.scope, pack.monthEnd);
      return prudentialRatiosDocument(provisionalHeading(pack.heading, ratios), pack.monthEnd, ratios.report);
    },
  },
  {
    name: 'arrears-statement',
    build: async (knex, pack) => {
      const arrears = await arrearsStatementAt(knex, pack.scope, pack.monthEnd);
      return arrearsStatementDocument(provisionalHeading(pack.heading, arrears), pack.monthEnd, arrears.statement, arrears.agreement);
    },
  },
];
