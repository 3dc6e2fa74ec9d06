import type { Knex } from 'knex';
import * as yup from 'yup';
import { NotFoundError } from '../../../domain/errors';
import { visibleBranches } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import {
  accountBalanceSchema,
  accountMovementSchema,
  journalEntrySchema,
  journalSchema,
  trialBalanceSchema,
} from './ledger.schemas';
import { defineRoute } from '../../route';
import { chartParams, reportBranchFilter } from '../report-query';
import { enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import {
  chartAccountById,
  chartAccountMovements,
  journalEntryIdsQuery,
  journalsQuery,
  ledgerLines,
  whereEntryHasAccount,
  type ChartRow,
} from '../../../activities/accounts/ledger.queries';
import { accountLoaders } from './accounts.queries';
import { statementScope } from './ledger-access';
import { statementRoutes } from './ledger-statements.routes';
import { ledgerReportRoutes } from './ledger-reports.routes';
import { accountTotals, trialBalanceOf } from '../../../activities/accounts/financial-statements';
import { trialBalanceDocument, reportHeading } from '../../../activities/accounts/statement-documents';
import { balanceScopeAt } from '../../../activities/accounts/year-balances';
import { answerReport, formatParameter } from '../../report-download';

/** An account of the chart the router loaded, with the branches whose lines the caller reads. */
async function chartAccount(knex: Knex, principal: Principal, chart: ChartRow, accountId: string) {
  const account = await chartAccountById(knex, chart.id, accountId);
  if (account === undefined) throw new NotFoundError('The account');
  return { ...account, chart: { ...chart, branches: visibleBranches(principal, chart.enterprise_id) } };
}

/** An entry's number in its journal and year (an integer column). */
const entryNumber = () => yup.number().integer().min(1).max(2_147_483_647).optional();

const chartAccountParams = yup.object({ chart_pk: yup.string().uuid().required(), id: yup.string().uuid().required() });
const asOf = isoDate()
  .optional()
  .meta({
    description:
      'Up to and including this date, in the accounting year that covers it (default: the latest year, all its ' +
      'postings).',
  });

/** Ledger reads: journal entries, an account's movements and balance, the trial balance. */
export const ledgerRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/journal-entries/',
    module: 'accounts',
    operationId: 'listJournalEntries',
    summary: 'Journal entries with their lines',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      date_from: isoDate().optional(),
      date_to: isoDate().optional(),
      account: yup
        .string()
        .matches(/^\d{1,12}$/)
        .optional()
        .meta({ description: 'Entries with a line on this account code.' }),
      branch: yup.string().uuid().optional(),
      event: yup.string().uuid().optional(),
      journal: yup
        .string()
        .matches(/^[A-Z]{1,6}$/, 'journal must be a journal code (GET /api/v1/accounts/journals/)')
        .optional()
        .meta({ description: 'Entries of this journal.' }),
      exercice: yup
        .string()
        .matches(/^[0-9A-Za-z_-]{1,20}$/, 'exercice must be an accounting year code')
        .optional()
        .meta({ description: 'Entries of the accounting year of this code.' }),
      number_from: entryNumber().meta({
        description: 'Entries numbered from this one (with `journal` and `exercice`, a range of one journal).',
      }),
      number_to: entryNumber()
        .test(
          'ordered',
          'number_to must not be below number_from',
          (to, { parent }) => to === undefined || parent.number_from === undefined || to >= parent.number_from,
        )
        .meta({ description: 'Entries numbered up to this one.' }),
    }),
    errorStatuses: [401],
    response: pageSchema(journalEntrySchema),
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(journalEntryIdsQuery(deps.knex), principal, {
        enterprise: 'e.enterprise_id',
        branch: 'e.branch_id',
      }).orderBy([
        { column: 'e.entry_date', order: 'desc' },
        { column: 'e.created_at', order: 'desc' },
        { column: 'e.id' },
      ]);
      whereFilters(rows, query, {
        enterprise: 'e.enterprise_id',
        date_from: ['e.entry_date', '>='],
        date_to: ['e.entry_date', '<='],
        branch: 'e.branch_id',
        event: 'e.event_id',
        journal: 'e.journal_code',
        exercice: 'y.code',
        number_from: ['n.number', '>='],
        number_to: ['n.number', '<='],
      });
      if (query.account !== undefined) whereEntryHasAccount(rows, query.account);
      const page = await paginateRows<{ id: string }>(rows, query, new URL(ctx.href));
      const entries = await ledgerLines(
        deps.knex,
        page.results.map((row) => row.id),
      );
      return { ...page, results: page.results.map((row) => entries.find((entry) => entry.id === row.id)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/journal-entries/{id}/',
    module: 'accounts',
    operationId: 'getJournalEntry',
    summary: 'One journal entry with its lines',
    access: 'authenticated',
    load: accountLoaders.journalEntry,
    params: idParams,
    errorStatuses: [401, 404],
    response: journalEntrySchema,
    handler: ({ resource }) => resource,
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/journals/',
    module: 'accounts',
    operationId: 'listJournals',
    summary: 'The journals entries are posted to, each numbering its entries per accounting year',
    description:
      'An entry goes to the journal its poster names (closing CLO, opening balances AN, result allocation ' +
      "AFF), else to its reversed entry's, " +
      'else to the journal of its kind of automatic posting (`event_kinds`), else by its lines: cash (57) ' +
      'CAI, a correspondent (56) BQ, anything else OD.',
    access: 'authenticated',
    query: listQuerySchema([], {}),
    errorStatuses: [401],
    response: pageSchema(journalSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, deps, ctx }) => paginateRows(journalsQuery(deps.knex), query, new URL(ctx.href)),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/entries/{id}/movements/',
    module: 'accounts',
    operationId: 'listAccountMovements',
    summary: 'Movements of an account with the running balance (debit minus credit; `amount` is signed the same way)',
    description: "A user whose roles are in some branches only reads the lines of those branches' entries.",
    access: 'authenticated',
    load: accountLoaders.chart,
    params: chartAccountParams,
    query: listQuerySchema([], { date_from: isoDate().optional(), date_to: asOf }),
    errorStatuses: [401, 404],
    response: pageSchema(accountMovementSchema),
    refusals: ['page_not_found'],
    handler: async ({ params, query, principal, deps, ctx, resource }) => {
      const account = await chartAccount(deps.knex, principal, resource, params.id);
      const rows = chartAccountMovements(deps.knex, params.id, account.chart.branches, query);
      return paginateRows(rows, query, new URL(ctx.href));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/entries/{id}/balance/',
    module: 'accounts',
    operationId: 'getAccountBalance',
    summary: 'Balance of an account at a date: total debit, total credit, debit minus credit',
    access: 'authenticated',
    load: accountLoaders.chart,
    params: chartAccountParams,
    query: yup.object({ date: asOf }),
    errorStatuses: [401, 404],
    response: accountBalanceSchema,
    handler: async ({ params, query, principal, deps, resource }) => {
      const account = await chartAccount(deps.knex, principal, resource, params.id);
      const { scope } = await balanceScopeAt(
        deps.knex,
        account.chart.enterprise_id,
        query.date,
        account.chart.branches,
      );
      const row = await accountTotals(deps.knex, scope).where('c.id', account.id).first();
      return {
        account: account.code,
        label: account.label,
        date: query.date ?? null,
        debit: row?.debit ?? '0',
        credit: row?.credit ?? '0',
        balance: row?.balance ?? '0',
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/trial-balance/',
    module: 'accounts',
    operationId: 'getTrialBalance',
    summary:
      'Trial balance at a date in six columns (opening, movements, closing; debit and credit), rolled up by ' +
      'parent account and class; totals equal',
    description:
      "Consolidated over the branches the caller sees (the enterprise's own entries too, for an " +
      'enterprise-wide role), or of one `branch`. ' +
      "The opening balance is the year's à-nouveaux, the earlier years carried by computation while open, " +
      'and what was posted before `date_from`.',
    access: 'authenticated',
    load: accountLoaders.chart,
    params: chartParams,
    query: yup.object({
      date: asOf,
      date_from: isoDate()
        .optional()
        .meta({ description: "First day of the movements (default: the accounting year's first day)." })
        .test(
          'ordered',
          'date_from must not be after date',
          (from, { parent }) => from === undefined || parent.date === undefined || from <= parent.date,
        ),
      branch: reportBranchFilter,
      class: yup.number().integer().min(1).max(8).optional().meta({
        description: 'Only this class; class 9 (off-balance) is never in the trial balance: see off-balance/.',
      }),
      format: formatParameter,
    }),
    downloadable: true,
    errorStatuses: [401, 404],
    response: trialBalanceSchema,
    handler: async ({ query, principal, deps, ctx, resource }) => {
      const scope = await statementScope(deps.knex, principal, resource, query.branch);
      const at = await balanceScopeAt(deps.knex, scope.enterpriseId, query.date, scope.branches);
      const trial = await trialBalanceOf(deps.knex, scope.chartId, at, {
        date: query.date ?? null,
        from: query.date_from,
        accountClass: query.class,
      });
      // A user of one branch reads that branch's lines only: the file's header names it.
      const branch =
        scope.branch ?? (scope.branches !== 'all' && scope.branches.length === 1 ? scope.branches[0]! : null);
      return answerReport(ctx, query.format, trial, {
        report: 'trial-balance',
        document: async () =>
          trialBalanceDocument(
            trial,
            await reportHeading(deps.knex, { enterpriseId: scope.enterpriseId, branch }, deps.clock()),
          ),
      });
    },
  }),
  ...statementRoutes,
  ...ledgerReportRoutes,
];
