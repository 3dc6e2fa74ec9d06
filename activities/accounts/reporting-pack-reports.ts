import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { intermediateBalancesDocument } from '../../domain/accounts/intermediate-balances.document';
import { prudentialRatiosDocument } from '../../domain/accounts/prudential-ratios.document';
import { arrearsStatementDocument } from '../../domain/loans/arrears-statement.document';
import type { ReportDocument } from '../../domain/accounts/report-document';
import { arrearsStatementAt } from '../loans/arrears-statement';
import { generalLedgerAt, generalLedgerFile } from './general-ledger';
import { journalBookFile } from './journal-book';
import { fixedAssetRegisterAt } from '../accounting/fixed-asset-register';
import { fixedAssetRegisterDocument } from '../../domain/accounting/fixed-asset-register';
import {
  balanceSheetAt,
  incomeStatementOf,
  intermediateBalancesOf,
  trialBalanceOf,
  type StatementScope,
} from './financial-statements';
import { offBalanceDocument, offBalanceStatementAt } from './off-balance-statement';
import { prudentialRatiosAt } from './prudential-ratios';
import {
  balanceSheetDocument,
  incomeStatementDocument,
  provisionalHeading,
  trialBalanceDocument,
  type ReportHeading,
} from './statement-documents';
import { balanceScopeAt } from './year-balances';
import { supplierBalancesAt } from '../accounting/supplier-balances';
import { supplierBalancesDocument } from '../../domain/accounting/supplier-balances.document';

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

/** The month of the pack: its first day (or its year's, when the year starts later in the month) to its last. */
const monthOf = (pack: PackFacts) => {
  const first = `${pack.monthEnd.slice(0, 8)}01`;
  return { from: first < pack.exercice.startDate ? pack.exercice.startDate : first, to: pack.monthEnd };
};

export interface PackReport {
  /**
   * The file's name in the pack, `[a-z0-9-]`, unique: `balance-sheet` gives balance-sheet.csv and balance-sheet.xlsx.
   */
  name: string;
  build(knex: Knex, pack: PackFacts): Promise<ReportDocument>;
}

/**
 * The reports of the monthly pack (docs/architecture.md §10), each written as CSV and XLSX. Adding a report is
 * adding its line here; a pack already stored keeps the reports it was made with.
 */
export const reportingPackReports: readonly PackReport[] = [
  {
    name: 'balance-sheet',
    build: async (knex, pack) =>
      balanceSheetDocument(await balanceSheetAt(knex, pack.scope, pack.monthEnd), pack.heading),
  },
  {
    name: 'income-statement',
    build: async (knex, pack) =>
      incomeStatementDocument(
        await incomeStatementOf(knex, pack.scope, { from: pack.exercice.startDate, to: pack.monthEnd }),
        pack.heading,
      ),
  },
  {
    name: 'off-balance',
    build: async (knex, pack) =>
      offBalanceDocument(await offBalanceStatementAt(knex, pack.scope, pack.monthEnd), pack.heading),
  },
  {
    name: 'trial-balance',
    build: async (knex, pack) => {
      const at = await balanceScopeAt(knex, pack.scope.enterpriseId, pack.monthEnd, 'all');
      return trialBalanceDocument(
        await trialBalanceOf(knex, pack.scope.chartId, at, { date: pack.monthEnd }),
        pack.heading,
      );
    },
  },
  {
    name: 'intermediate-balances',
    build: async (knex, pack) => {
      const period = { from: pack.exercice.startDate, to: pack.monthEnd };
      return intermediateBalancesDocument(
        pack.heading,
        period,
        (await intermediateBalancesOf(knex, pack.scope, period)).balances,
      );
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
      return arrearsStatementDocument(
        provisionalHeading(pack.heading, arrears),
        pack.monthEnd,
        arrears.statement,
        arrears.agreement,
      );
    },
  },
  // The auditors' books of the month (issue 28, part 3): its journal book and its general ledger, every account.
  { name: 'journal-book', build: async (knex, pack) => journalBookFile(knex, pack.scope, monthOf(pack), pack.heading) },
  {
    name: 'general-ledger',
    build: async (knex, pack) =>
      generalLedgerFile(await generalLedgerAt(knex, pack.scope, monthOf(pack)), pack.heading, monthOf(pack)),
  },
  // Issue 28, general accounting, 5. suppliers.
  {
    name: 'supplier-balances',
    build: async (knex, pack) => {
      const balances = await supplierBalancesAt(knex, pack.scope, pack.monthEnd);
      return supplierBalancesDocument(provisionalHeading(pack.heading, balances), balances);
    },
  },
  // Issue 28, general accounting, 4. fixed assets.
  {
    name: 'fixed-asset-register',
    build: async (knex, pack) =>
      fixedAssetRegisterDocument(
        pack.heading,
        pack.monthEnd,
        await fixedAssetRegisterAt(knex, pack.scope, pack.monthEnd),
      ),
  },
];
