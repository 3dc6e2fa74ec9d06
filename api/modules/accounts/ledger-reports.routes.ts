import * as yup from 'yup';
import { generalLedgerAt, generalLedgerFile, generalLedgerJson } from '../../../activities/accounts/general-ledger';
import { journalBookFile, journalBookJson } from '../../../activities/accounts/journal-book';
import { reportHeading } from '../../../activities/accounts/statement-documents';
import { answerReport, formatParameter } from '../../report-download';
import { defineRoute } from '../../route';
import { chartParams, reportBranchFilter } from '../report-query';
import { isoDate } from '../common.schemas';
import { accountLoaders } from './accounts.queries';
import { statementScope } from './ledger-access';
import { generalLedgerSchema, journalBookSchema } from './ledger-reports.schemas';

const accountCode = () => yup.string().matches(/^\d{1,12}$/, '${path} must be an account code or a class (digits)');
const dateTo = () =>
  isoDate()
    .required()
    .test(
      'ordered',
      'date_to must not be before date_from',
      (to, { parent }) => to === undefined || parent.date_from === undefined || to >= parent.date_from,
    );

/**
 * The accountant's reports (issue 28, docs/architecture.md §10): the general ledger and the journal book, read as
 * the trial balance is (a branch role reads its branches' lines), as JSON (bounded) or streamed as CSV or XLSX.
 */
export const ledgerReportRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/general-ledger/',
    module: 'accounts',
    operationId: 'getGeneralLedger',
    summary:
      'General ledger (grand livre): per account, the opening balance, every movement of the period with the ' +
      'running balance, the closing balance',
    description:
      "The opening balance is the trial balance's: the year's à-nouveaux, the earlier years carried by " +
      'computation while open, what was posted before `date_from`. ' +
      'The period lies within the accounting year covering `date_to`. `account_to` includes its sub-accounts ' +
      '(401 to 401: every 401x). ' +
      'JSON holds at most 5000 movements (422 `report_too_large` beyond); CSV and XLSX stream any number.',
    access: 'authenticated',
    load: accountLoaders.chart,
    params: chartParams,
    query: yup.object({
      account_from: accountCode().optional().meta({ description: 'First account code (default: the first).' }),
      account_to: accountCode()
        .optional()
        .meta({ description: 'Last account code, its sub-accounts included (default: the last).' })
        .test(
          'ordered',
          'account_to must not be before account_from',
          (to, { parent }) =>
            to === undefined || parent.account_from === undefined || to >= parent.account_from.slice(0, to.length),
        ),
      date_from: isoDate().required(),
      date_to: dateTo(),
      branch: reportBranchFilter,
      format: formatParameter,
    }),
    downloadable: true,
    errorStatuses: [401, 404, 422],
    response: generalLedgerSchema,
    refusals: ['no_exercice_for_date', 'ledger_period_across_years', 'report_too_large'],
    handler: async ({ query, principal, deps, ctx, resource }) => {
      const scope = await statementScope(deps.knex, principal, resource, query.branch);
      const range = {
        from: query.date_from,
        to: query.date_to,
        accountFrom: query.account_from,
        accountTo: query.account_to,
      };
      const ledger = await generalLedgerAt(deps.knex, scope, range);
      if (query.format === 'csv' || query.format === 'xlsx') {
        return answerReport(ctx, query.format, undefined, {
          report: 'general-ledger',
          document: async () => generalLedgerFile(ledger, await reportHeading(deps.knex, scope, deps.clock()), range),
        });
      }
      return generalLedgerJson(ledger, scope, range);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/journal-book/',
    module: 'accounts',
    operationId: 'getJournalBook',
    summary:
      'Journal book (brouillard): the entries of a period with their lines, by day, journal, branch and ' +
      'user, and the totals of each journal',
    description:
      'Read as the trial balance is: consolidated over the branches the caller sees, or of one `branch`. One ' +
      'day: `date_from` = `date_to`. ' +
      'JSON holds at most 2000 entries (422 `report_too_large` beyond); CSV and XLSX stream any number.',
    access: 'authenticated',
    query: yup.object({
      enterprise: yup.string().uuid().required(),
      date_from: isoDate().required(),
      date_to: dateTo(),
      journal: yup
        .string()
        .matches(/^[A-Z]{1,6}$/, 'journal must be a journal code (GET /api/v1/accounts/journals/)')
        .optional()
        .meta({ description: 'Entries of this journal.' }),
      branch: reportBranchFilter,
      user: yup.string().uuid().optional().meta({ description: 'Entries posted by this user.' }),
      format: formatParameter,
    }),
    downloadable: true,
    errorStatuses: [401, 404, 422],
    response: journalBookSchema,
    refusals: ['report_too_large'],
    handler: async ({ query, principal, deps, ctx, load }) => {
      const chart = await load(accountLoaders.chartOfEnterprise, query.enterprise);
      const scope = await statementScope(deps.knex, principal, chart, query.branch);
      const filter = { from: query.date_from, to: query.date_to, journal: query.journal, user: query.user };
      if (query.format === 'csv' || query.format === 'xlsx') {
        return answerReport(ctx, query.format, undefined, {
          report: 'journal-book',
          document: async () =>
            journalBookFile(deps.knex, scope, filter, await reportHeading(deps.knex, scope, deps.clock())),
        });
      }
      return journalBookJson(deps.knex, scope, filter);
    },
  }),
];
