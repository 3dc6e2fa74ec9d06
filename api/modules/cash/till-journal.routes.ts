import * as yup from 'yup';
import { branchDayJournal, sessionJournal, type TillJournal } from '../../../activities/cash/till-journal';
import { reportHeading } from '../../../activities/accounts/statement-documents';
import { tillJournalDocument } from '../../../domain/cash/till-journal.document';
import { NotFoundError } from '../../../domain/errors';
import { Branch } from '../../../db/models/branch.model';
import type { RouteDeps } from '../../deps';
import { answerReport, formatParameter, type ReportFormat } from '../../report-download';
import { defineRoute } from '../../route';
import type { AppContext } from '../../context';
import { dateResponse, idParams, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { moneyResponse } from '../money.schemas';
import { serializeSession, tillSessionLoader, tillSessionSchema } from './till-sessions.routes';
import { tillReaders } from './tills.routes';

const lineSchema = yup.object({
  entry: yup.string().uuid().required(),
  number: yup.string().defined().meta({ description: "The entry's journal and number, e.g. CAI-000042." }),
  created_at: timestampResponse(),
  till_code: yup.string().required(),
  account: yup.string().required(),
  description: yup.string().defined(),
  amount: moneyResponse().meta({
    description: 'What the line moved in the till: positive cash in, negative cash out.',
  }),
  actor: nullableId(),
});

const tillJournalSchema = yup
  .object({
    branch: yup.string().uuid().required(),
    date: dateResponse(),
    sessions: yup
      .array(tillSessionSchema)
      .required()
      .meta({ description: 'The sessions, with their opening and closing counts and differences.' }),
    lines: yup.array(lineSchema).required(),
    totals: yup.object({ cash_in: moneyResponse(), cash_out: moneyResponse() }).required(),
  })
  .meta({ component: 'TillJournal' });

/** The JSON answer, or the CSV or XLSX file of the same figures. */
type JournalScope = { enterpriseId: string; branchId: string; date: string };

async function answerJournal(
  deps: RouteDeps,
  ctx: AppContext,
  format: ReportFormat | undefined,
  scope: JournalScope,
  journal: TillJournal,
) {
  const sessions = journal.sessions.map(serializeSession);
  const lines = journal.lines.map((line) => ({ ...line, created_at: line.created_at.toISOString() }));
  const answer = { branch: scope.branchId, date: scope.date, sessions, lines, totals: journal.totals };
  return answerReport(ctx, format, answer, {
    report: 'till-journal',
    document: async () =>
      tillJournalDocument(
        await reportHeading(deps.knex, { enterpriseId: scope.enterpriseId, branch: scope.branchId }, deps.clock()),
        answer,
      ),
  });
}

/** The till journal, brouillard de caisse (issue 29, docs/domain.md §13.1): per session and per branch-day. */
export const tillJournalRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/till-sessions/{id}/journal/',
    module: 'cash',
    operationId: 'getTillSessionJournal',
    summary: 'The journal of a till session: every line on its till from its opening to its close, with its counts',
    access: tillReaders,
    load: tillSessionLoader,
    params: idParams,
    query: yup.object({ format: formatParameter }),
    downloadable: true,
    response: tillJournalSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource, query, deps, ctx }) =>
      answerJournal(
        deps,
        ctx,
        query.format,
        { enterpriseId: resource.enterprise_id, branchId: resource.branch_id, date: resource.business_date },
        await sessionJournal(deps.knex, resource),
      ),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/till-journal/',
    module: 'cash',
    operationId: 'getBranchTillJournal',
    summary:
      "The till journal of a branch's day: every line of its tills " +
      'and vault dated on it, and its sessions with their counts',
    access: tillReaders,
    query: yup.object({
      branch: yup.string().uuid().required(),
      date: isoDate()
        .required()
        .meta({ description: 'The business date: the entries dated on it, the sessions opened for it.' }),
      format: formatParameter,
    }),
    downloadable: true,
    response: tillJournalSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ query, deps, ctx, authorize }) => {
      const branch = await Branch.query(deps.knex).findById(query.branch);
      if (branch === undefined) throw new NotFoundError('The branch');
      authorize({ enterpriseId: branch.enterpriseId, branchId: branch.id }, 'The branch');
      const scope = { enterpriseId: branch.enterpriseId, branchId: branch.id, date: query.date };
      return answerJournal(deps, ctx, query.format, scope, await branchDayJournal(deps.knex, branch.id, query.date));
    },
  }),
];
