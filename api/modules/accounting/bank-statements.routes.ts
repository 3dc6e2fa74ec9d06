import type { Knex } from 'knex';
import * as yup from 'yup';
import {
  importBankStatement,
  matchStatementLine,
  matchWindowDaysDefault,
  unmatchStatementLine,
} from '../../../activities/accounting/bank-statements.activity';
import { AppError } from '../../../domain/errors';
import { reconciliationAt } from '../../../activities/accounting/bank-accounts.queries';
import { reportHeading } from '../../../activities/accounts/statement-documents';
import { businessDateOf } from '../../../activities/enterprise/configuration.activity';
import { reconciliationDocument } from '../../../domain/accounting/bank-reconciliation';
import { answerReport, formatParameter } from '../../report-download';
import { defineRoute, type Loader } from '../../route';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { dateResponse, enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { moneyResponse } from '../money.schemas';
import { bookkeepers, bookReaders } from './accounting.queries';
import { bankAccountLoader } from './bank-accounts.routes';

interface StatementLineRow {
  id: string;
  enterprise_id: string;
  branch_id: string | null;
}

const statementLineLoader = {
  name: 'The statement line',
  load: async ({ knex }, id) =>
    knex('bank_statement_lines as s')
      .join('bank_accounts as b', 'b.id', 's.bank_account_id')
      .where('s.id', id)
      .first('s.id', 'b.enterprise_id', 'b.branch_id') as Promise<StatementLineRow | undefined>,
  scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
} satisfies Loader<StatementLineRow>;

const lineSchema = yup.object({
  id: yup.string().uuid().required(),
  position: yup.number().integer().required(),
  date: dateResponse(),
  label: yup.string().required(),
  reference: yup.string().defined(),
  amount: moneyResponse().meta({ description: "Positive: money in (the bank's credit); negative: money out." }),
  journal_line: yup.string().nullable().defined().meta({ description: 'The ledger line it is matched to, or null.' }),
});

/** A line with its statement and bank account: the lines' list across statements. */
const listedLineSchema = lineSchema
  .concat(
    yup.object({
      statement: yup.string().uuid().required(),
      bank_account: yup.string().uuid().required(),
    }),
  )
  .meta({ component: 'BankStatementLine' });

/** The statement lines as listed, with their bank account's enterprise and branch for the caller's scope. */
const statementLinesQuery = (knex: Knex) =>
  knex('bank_statement_lines as s')
    .join('bank_accounts as b', 'b.id', 's.bank_account_id')
    .join('bank_statements as st', 'st.id', 's.statement_id')
    .select(
      's.id',
      's.position',
      knex.raw("to_char(s.line_date, 'YYYY-MM-DD') AS date"),
      's.label',
      's.reference',
      knex.raw('s.amount::text AS amount'),
      knex.raw('s.journal_line_id::text AS journal_line'),
      's.statement_id as statement',
      's.bank_account_id as bank_account',
    );

const statementSchema = yup
  .object({
    id: yup.string().uuid().required(),
    bank_account: yup.string().uuid().required(),
    file_name: yup.string().defined(),
    matched: yup.number().integer().required().meta({ description: 'How many of its lines are matched.' }),
    lines: yup.array(lineSchema).required(),
  })
  .meta({ component: 'BankStatement' });

interface StatementRow {
  id: string;
  enterprise_id: string;
  branch_id: string | null;
  bank_account_id: string;
  file_name: string;
}

const statementLoader = {
  name: 'The bank statement',
  load: async ({ knex }, id) =>
    knex('bank_statements as s')
      .join('bank_accounts as b', 'b.id', 's.bank_account_id')
      .where('s.id', id)
      .first('s.id', 'b.enterprise_id', 'b.branch_id', 's.bank_account_id', 's.file_name') as Promise<
      StatementRow | undefined
    >,
  scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
} satisfies Loader<StatementRow>;

/** A statement with its lines, in the file's order, each with the ledger line it is matched to. */
async function statementOf(knex: Knex, row: Pick<StatementRow, 'id' | 'bank_account_id' | 'file_name'>) {
  const lines = await knex('bank_statement_lines')
    .where({ statement_id: row.id })
    .orderBy('position')
    .select(
      'id',
      'position',
      knex.raw("to_char(line_date, 'YYYY-MM-DD') AS date"),
      'label',
      'reference',
      knex.raw('amount::text AS amount'),
      knex.raw('journal_line_id::text AS journal_line'),
    );
  return {
    id: row.id,
    bank_account: row.bank_account_id,
    file_name: row.file_name,
    matched: lines.filter((line) => line.journal_line !== null).length,
    lines,
  };
}

/** Strict base64: a body that is not is refused naming `content`, not read as something else. */
function bytesOf(content: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(content) || content.length % 4 !== 0) {
    throw new AppError('validation', 'bank_statement_invalid', 'content is not base64.', [
      { field: 'content', message: 'content must be the file in base64' },
    ]);
  }
  return Buffer.from(content, 'base64');
}

const reconciliationSchema = yup
  .object({
    date: dateResponse(),
    account: yup.string().required(),
    book_balance: moneyResponse().meta({
      description: "The account's balance in the books at the date: debits less credits.",
    }),
    bank_balance: moneyResponse().meta({
      description: "The last statement line's balance at the date, or the sum of the lines when it gives none.",
    }),
    unmatched_ledger_lines: yup
      .array(
        yup.object({
          journal_line: yup.string().required(),
          date: dateResponse(),
          description: yup.string().defined(),
          amount: moneyResponse(),
        }),
      )
      .required()
      .meta({ description: 'In the books, not yet on a statement: deducted.' }),
    unmatched_statement_lines: yup
      .array(
        yup.object({
          statement_line: yup.string().uuid().required(),
          date: dateResponse(),
          label: yup.string().required(),
          reference: yup.string().defined(),
          amount: moneyResponse(),
        }),
      )
      .required()
      .meta({ description: 'On a statement, not yet in the books: added.' }),
    reconciled_balance: moneyResponse(),
    difference: moneyResponse().meta({
      description: 'Bank balance less reconciled balance: 0 when the statement reconciles.',
    }),
    reconciled: yup.boolean().required(),
  })
  .meta({ component: 'BankReconciliation' });

/** Bank statements and their reconciliation (issue 28, docs/domain.md §12.6). */
export const bankStatementRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/statement-lines/',
    module: 'accounting',
    operationId: 'listStatementLines',
    summary: 'List bank statement lines across statements, newest first: of a bank account, matched or not',
    description:
      'What the accountant still has to match (`matched=false`) over every statement ' +
      "imported. A branch's staff see the lines of their branch's bank accounts.",
    access: bookReaders,
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      bank_account: yup.string().uuid().optional(),
      matched: yup
        .boolean()
        .optional()
        .meta({ description: 'true: only the lines matched to a ledger line; false: only those not matched.' }),
      date_from: isoDate().optional(),
      date_to: isoDate().optional(),
    }),
    response: pageSchema(listedLineSchema),
    errorStatuses: [401, 403],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(statementLinesQuery(deps.knex), principal, {
        enterprise: 'b.enterprise_id',
        branch: 'b.branch_id',
      });
      whereFilters(rows, query, {
        enterprise: 'b.enterprise_id',
        bank_account: 's.bank_account_id',
        date_from: ['s.line_date', '>='],
        date_to: ['s.line_date', '<='],
      });
      if (query.matched === true) rows.whereNotNull('s.journal_line_id');
      if (query.matched === false) rows.whereNull('s.journal_line_id');
      const order = [
        { column: 's.line_date', order: 'desc' },
        { column: 'st.created_at', order: 'desc' },
        { column: 's.position', order: 'desc' },
      ] as const;
      return paginateRows(rows.orderBy([...order]), query, new URL(ctx.href));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounting/bank-accounts/{id}/statements/',
    module: 'accounting',
    operationId: 'importBankStatement',
    summary: "Import a bank statement (CSV) and match its lines to the account's ledger lines",
    description:
      'The CSV file in base64 (`content`), UTF-8, `;` or `,`; a header ' +
      'row naming the columns date, value_date, label, reference, ' +
      'debit and credit or a signed amount, balance (README). A bad file is ' +
      'refused whole, 400 `bank_statement_invalid` naming the row and column. ' +
      `Each line is then matched to an unmatched ledger line of the same amount dated within ` +
      `\`window_days\` (default ${matchWindowDaysDefault}) whose entry holds its reference, if any.`,
    access: bookkeepers,
    status: 201,
    location: '/api/v1/accounting/bank-statements/{id}/',
    load: bankAccountLoader,
    params: idParams,
    body: yup.object({
      file_name: yup.string().trim().max(200).optional(),
      content: yup.string().required().max(1_000_000).meta({ description: 'The file, base64.' }),
      window_days: yup.number().integer().min(0).max(31).optional(),
    }),
    response: statementSchema,
    errorStatuses: [401, 403, 404],
    refusals: ['bank_statement_invalid'],
    handler: async ({ resource, body, principal, deps }) => {
      const fileName = body.file_name ?? '';
      const { statementId } = await importBankStatement(deps.activities, principal, {
        bankAccountId: resource.id,
        fileName,
        bytes: bytesOf(body.content),
        windowDays: body.window_days ?? matchWindowDaysDefault,
      });
      return statementOf(deps.knex, { id: statementId, bank_account_id: resource.id, file_name: fileName });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/bank-accounts/{id}/reconciliation/',
    module: 'accounting',
    operationId: 'getBankReconciliation',
    summary: 'The bank reconciliation statement (état de rapprochement) at a date',
    description:
      'Book balance − unmatched ledger lines + unmatched statement lines ' +
      '= bank balance, when the statement reconciles (`reconciled`).',
    access: bookReaders,
    load: bankAccountLoader,
    params: idParams,
    query: yup.object({
      date: isoDate().optional().meta({ description: 'Default: the business date.' }),
      format: formatParameter,
    }),
    downloadable: true,
    response: reconciliationSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource, query, deps, ctx }) => {
      const date = query.date ?? (await businessDateOf(deps.knex, resource.enterprise_id, deps.clock()));
      const answer = await reconciliationAt(deps.knex, resource, date);
      return answerReport(ctx, query.format, answer, {
        report: `bank-reconciliation-${resource.account_code}`,
        document: async () =>
          reconciliationDocument(
            await reportHeading(
              deps.knex,
              { enterpriseId: resource.enterprise_id, branch: resource.branch_id },
              deps.clock(),
            ),
            answer,
          ),
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/bank-statements/{id}/',
    module: 'accounting',
    operationId: 'getBankStatement',
    summary: 'A bank statement with its lines and their matches',
    access: bookReaders,
    load: statementLoader,
    params: idParams,
    response: statementSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource, deps }) => statementOf(deps.knex, resource),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounting/statement-lines/{id}/match/',
    module: 'accounting',
    operationId: 'matchStatementLine',
    summary: 'Match a statement line by hand to a ledger line of its bank account, of the same amount',
    access: bookkeepers,
    load: statementLineLoader,
    params: idParams,
    body: yup.object({
      journal_line: yup
        .string()
        .matches(/^\d{1,18}$/, '${path} must be a ledger line id')
        .required(),
    }),
    response: yup.object({ id: yup.string().uuid().required(), journal_line: yup.string().required() }),
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: ['bank_statement_line_matched', 'bank_statement_match_refused'],
    handler: async ({ resource, body, principal, deps }) => {
      await matchStatementLine(deps.activities, principal, resource.id, body.journal_line);
      return { id: resource.id, journal_line: body.journal_line };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounting/statement-lines/{id}/unmatch/',
    module: 'accounting',
    operationId: 'unmatchStatementLine',
    summary: "Undo a statement line's match",
    access: bookkeepers,
    load: statementLineLoader,
    params: idParams,
    response: yup.object({ id: yup.string().uuid().required(), journal_line: yup.string().nullable().defined() }),
    errorStatuses: [401, 403, 404],
    handler: async ({ resource, principal, deps }) => {
      await unmatchStatementLine(deps.activities, principal, resource.id);
      return { id: resource.id, journal_line: null };
    },
  }),
];
