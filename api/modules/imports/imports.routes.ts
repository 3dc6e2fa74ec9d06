import { PassThrough } from 'node:stream';
import type { Knex } from 'knex';
import * as yup from 'yup';
import { createImport, uploadImportFile } from '../../../activities/imports/imports.activity';
import { approveImportApply, cancelImport } from '../../../activities/imports/apply';
import { csvTemplate, writeReportWorkbook, xlsxTemplate } from '../../../activities/imports/workbooks';
import { reportContentTypes } from '../../../activities/report-files';
import type { Role } from '../../../domain/access';
import { importFileLimitDefault } from '../../../domain/imports/files';
import { importKinds } from '../../../domain/imports/templates';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import { uploadBody } from '../../upload-body';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse } from '../common.schemas';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { scopeToWholeEnterprises } from '../enterprise-scope';
import { validateThroughWorkflow } from './import-workflow-start';

/** Who moves a cooperative onto Coopbank: its direction or administrator, over the whole enterprise. */
const importers: readonly Role[] = ['direction', 'admin'];
/** An auditor reads every import, its files' report and the templates, and changes nothing. */
const readers: readonly Role[] = [...importers, 'auditor'];

const importStatuses = [
  'uploaded',
  'validating',
  'validated',
  'rejected',
  'failed',
  'applying',
  'applied',
  'cancelled',
] as const;
const uploadTypes = [reportContentTypes.csv.split(';')[0]!, reportContentTypes.xlsx, 'application/octet-stream'];

interface ImportRow {
  id: string;
  enterprise_id: string;
}

/** An import is the whole enterprise's: seen and changed at the enterprise, never by a branch's staff alone. */
const importLoader = {
  name: 'The import',
  load: async ({ knex }, id) =>
    knex('imports').where({ id }).first('id', 'enterprise_id') as Promise<ImportRow | undefined>,
  scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: null }),
} satisfies Loader<ImportRow>;

const fileSchema = yup
  .object({
    kind: yup.string().oneOf(importKinds).required(),
    format: yup.string().oneOf(['csv', 'xlsx']).required(),
    rows: yup
      .number()
      .integer()
      .required()
      .meta({ description: 'Data rows stored (the header and empty rows aside).' }),
    bytes: yup.number().integer().required(),
    uploaded_at: timestampResponse(),
  })
  .meta({ component: 'ImportFile' });

const importSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    cut_over_date: dateResponse(),
    status: yup
      .string()
      .oneOf(importStatuses)
      .required()
      .meta({
        description:
          'uploaded: files are being uploaded (a new upload makes a validation ' +
          'stale); validating: its workflow validates, ties out and runs the dry run; ' +
          'validated: no problem, tied out, its dry run stored; rejected: the report lists ' +
          'problems; failed: a step of the validation failed (not the files: ask again); ' +
          'applying: apply approved, under way; applied: applied and reconciled; cancelled: reversed.',
      }),
    uploaded_by: yup.string().uuid().required(),
    created_at: timestampResponse(),
    validated_at: yup.string().nullable().defined().meta({ format: 'date-time' }),
    files: yup.array(fileSchema).required(),
    problems: yup.number().integer().required().meta({ description: 'Problems found by the last validation.' }),
    differences: yup.number().integer().required().meta({
      description:
        'Tie-out pairs whose detail differs from the trial balance (see tie-out/): apply needs them accepted.',
    }),
    dry_run: yup
      .object()
      .nullable()
      .defined()
      .meta({
        description:
          'What applying would produce: rows per kind and branch, detail ' +
          'totals, opening entries per branch, the opening balance sheet.',
      }),
    reconciliation: yup
      .object()
      .nullable()
      .defined()
      .meta({
        description:
          "Once applied: the subledger pairs and the trial balance's lines beside " +
          'the general ledger, those differing, the suspense posted, `reconciled`.',
      }),
  })
  .meta({ component: 'Import' });

/** The imports as shown: each with its files and its problems' count. */
const importsQuery = (knex: Knex) =>
  knex('imports as i').select(
    'i.id',
    'i.enterprise_id as enterprise',
    knex.raw("to_char(i.cut_over_date, 'YYYY-MM-DD') AS cut_over_date"),
    'i.status',
    'i.uploaded_by',
    knex.raw('to_json(i.created_at) AS created_at'),
    knex.raw('to_json(i.validated_at) AS validated_at'),
    knex.raw(`coalesce((SELECT json_agg(json_build_object('kind', f.kind, 'format', f.format, 'rows', f.rows,
                                                          'bytes', f.bytes, 'uploaded_at', f.uploaded_at)
                                        ORDER BY f.kind)
    FROM import_files f WHERE f.import_id = i.id), '[]') AS files`),
    knex.raw('(SELECT count(*)::int FROM import_problems p WHERE p.import_id = i.id) AS problems'),
    knex.raw(
      '(SELECT count(*)::int FROM import_tie_outs t WHERE t.import_id = i.id AND t.difference <> 0) AS differences',
    ),
    'i.dry_run',
    'i.reconciliation',
  );

const importOf = async (knex: Knex, id: string) => (await importsQuery(knex).where('i.id', id).first()) as unknown;

const problemSchema = yup
  .object({
    kind: yup.string().oneOf(importKinds).required(),
    row: yup.number().integer().required().meta({ description: 'The row in the file, the header being row 1.' }),
    column: yup.string().required(),
    value: yup.string().defined().meta({ description: 'The cell as written.' }),
    problem: yup.string().required(),
  })
  .meta({ component: 'ImportProblem' });

const tieOutSchema = yup
  .object({
    branch_code: yup.string().required(),
    account_code: yup.string().required(),
    what: yup.string().required().meta({
      description: 'The detail compared: "member deposits, product EPA", or the subledger with no detail imported.',
    }),
    trial_balance: yup
      .string()
      .required()
      .meta({ description: "The trial balance's debit − credit on the account in the branch." }),
    detail: yup.string().required().meta({ description: "The imported detail's, debit positive." }),
    difference: yup
      .string()
      .required()
      .meta({ description: 'Trial balance − detail: what an accepted difference puts on the suspense account.' }),
  })
  .meta({ component: 'ImportTieOut' });

const kindParams = yup.object({ kind: yup.string().oneOf(importKinds).required() });

/** The go-live import (issue 31, docs/domain.md §15): imports, their templates, uploads, validation and its report. */
export const importRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/imports/',
    module: 'imports',
    operationId: 'listImports',
    summary: 'List go-live imports, newest first',
    access: readers,
    query: listQuerySchema([], { enterprise: enterpriseFilter, status: yup.string().oneOf(importStatuses).optional() }),
    response: pageSchema(importSchema),
    errorStatuses: [401, 403],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToWholeEnterprises(importsQuery(deps.knex), principal, 'i.enterprise_id');
      whereFilters(rows, query, { enterprise: 'i.enterprise_id', status: 'i.status' });
      return paginateRows(
        rows.orderBy([{ column: 'i.created_at', order: 'desc' }, { column: 'i.id' }]),
        query,
        new URL(ctx.href),
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/imports/',
    module: 'imports',
    operationId: 'createImport',
    summary: 'Start moving a cooperative onto Coopbank: an import at a cut-over date',
    description:
      'The cut-over date is the date of the balances the files give: on or before ' +
      "the business date. Then upload each kind's file, validate, read the report.",
    access: importers,
    status: 201,
    location: '/api/v1/imports/{id}/',
    body: yup.object({ enterprise: yup.string().uuid().required(), cut_over_date: isoDate().required() }),
    response: importSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ body, principal, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise, branchId: null }, 'The enterprise');
      const id = await createImport(deps.activities, principal, {
        enterpriseId: body.enterprise,
        cutOverDate: body.cut_over_date,
      });
      return importOf(deps.knex, id);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/imports/templates/{kind}/',
    module: 'imports',
    operationId: 'getImportTemplate',
    summary: 'The template of a kind of import file: XLSX (a data sheet and a Documentation sheet) or the CSV header',
    description:
      'The Documentation sheet lists each column: required or not, its format, ' +
      'the codes allowed, an example. Validation reads the same declaration.',
    access: readers,
    params: kindParams,
    query: yup.object({
      format: yup.string().oneOf(['xlsx', 'csv']).optional().meta({ description: 'xlsx (default) or csv.' }),
    }),
    produces: [reportContentTypes.xlsx, reportContentTypes.csv],
    errorStatuses: [401, 403],
    handler: async ({ params, query, ctx }) => {
      const format = query.format ?? 'xlsx';
      ctx.set('Content-Disposition', `attachment; filename="coopbank-import-${params.kind}.${format}"`);
      ctx.type = reportContentTypes[format];
      ctx.body = format === 'csv' ? csvTemplate(params.kind) : await xlsxTemplate(params.kind);
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/imports/{id}/',
    module: 'imports',
    operationId: 'getImport',
    summary: "An import with its files and its problems' count",
    access: readers,
    load: importLoader,
    params: idParams,
    response: importSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource, deps }) => importOf(deps.knex, resource.id),
  }),
  defineRoute({
    method: 'put',
    path: '/api/v1/imports/{id}/files/{kind}/',
    module: 'imports',
    operationId: 'uploadImportFile',
    summary: 'Upload (or replace) the file of a kind: XLSX or CSV, the raw file as the body',
    description:
      `The body is the file itself, streamed into the staging table; its type is ` +
      `read from its content (a zip: XLSX; UTF-8 text: CSV with \`;\` or \`,\`). ` +
      `Size limit IMPORT_FILE_LIMIT_BYTES (default ${importFileLimitDefault} bytes: ` +
      `413 beyond). The header row must name the template's columns, in any order. ` +
      "A file that cannot be read as its kind's rows is refused whole (400 `import_file_invalid`, naming " +
      'why) and the earlier upload of the kind stays. Formulas are never evaluated: validation reports them.',
    access: importers,
    load: importLoader,
    params: idParams.concat(kindParams),
    upload: uploadTypes,
    response: importSchema,
    errorStatuses: [401, 403, 404],
    refusals: ['import_file_invalid'],
    handler: async ({ resource, params, principal, deps, ctx }) => {
      const limitBytes = deps.importFileLimitBytes ?? importFileLimitDefault;
      const body = uploadBody(ctx, uploadTypes, limitBytes);
      await uploadImportFile(deps.activities, principal, {
        importId: resource.id,
        kind: params.kind,
        body,
        limitBytes,
      });
      return importOf(deps.knex, resource.id);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/imports/{id}/validation/',
    module: 'imports',
    operationId: 'validateImport',
    summary:
      'Validate the import: every row and reference, before anything is written; then the tie-out and the dry run',
    description:
      "Starts the import's workflow (`import-{id}`) anew (ending an earlier one) " +
      'and answers 202 with the import `validating`. The workflow validates, ' +
      "ties out and runs the dry run, replacing the last validation's problems, " +
      "then waits for apply's approval. Read the import until its status leaves " +
      '`validating`: `validated` without a problem, `rejected` with some (see ' +
      'the report), `failed` when a step failed for a reason of the system.',
    access: importers,
    load: importLoader,
    params: idParams,
    status: 202,
    location: '/api/v1/imports/{id}/',
    response: importSchema,
    errorStatuses: [401, 403, 404, 409, 503],
    refusals: ['import_applied', 'workflow_unavailable'],
    handler: async ({ resource, principal, deps, ctx }) => {
      await validateThroughWorkflow({ deps, principal, ctx }, resource);
      return importOf(deps.knex, resource.id);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/imports/{id}/application/',
    module: 'imports',
    operationId: 'applyImport',
    summary:
      'Ask to apply a validated import: always under four eyes, decided by someone other than who uploaded its files',
    description:
      "The maker is one who uploaded the import's files; the request " +
      '(`import.apply`, 202) is decided by another direction member or administrator. ' +
      "Approved, the import's workflow applies it in batches, posts one opening entry " +
      'per branch at the cut-over and ends with the reconciliation (GET the import). ' +
      'A tie-out difference needs `difference_reason`: it is then posted to the suspense account.',
    access: importers,
    load: importLoader,
    params: idParams,
    body: yup.object({
      difference_reason: yup
        .string()
        .trim()
        .min(10)
        .max(500)
        .optional()
        .meta({ description: "Why direction accepts the tie-out's differences." }),
    }),
    response: importSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409],
    refusals: [
      'import_not_validated',
      'import_apply_not_uploader',
      'import_tie_out_difference',
      'opening_entry_exists',
      ...fourEyesRefusals,
    ],
    handler: async ({ resource, body, principal, deps, ctx }) => {
      const payload = { importId: resource.id, differenceReason: body.difference_reason ?? null };
      return runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'import.apply',
          payload,
          scope: { enterpriseId: resource.enterprise_id, branchId: null },
          summary: 'Apply the go-live import',
        },
        async () => {
          await approveImportApply(deps.activities, principal, payload);
          return importOf(deps.knex, resource.id);
        },
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/imports/{id}/cancellation/',
    module: 'imports',
    operationId: 'cancelImport',
    summary: 'Ask to cancel an applied import while the enterprise has no other operation since: under four eyes',
    description:
      'Approved (`import.cancel`), the opening entry is reversed and every row the ' +
      'import created is marked: members left, accounts closed, their numbers freed. ' +
      'Once anything else happened in the enterprise (a business event, an entry), 409 `import_not_cancellable`.',
    access: importers,
    load: importLoader,
    params: idParams,
    response: importSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['import_not_cancellable', ...fourEyesRefusals],
    handler: async ({ resource, principal, deps, ctx }) => {
      const payload = { importId: resource.id };
      return runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'import.cancel',
          payload,
          scope: { enterpriseId: resource.enterprise_id, branchId: null },
          summary: 'Cancel the go-live import',
        },
        async () => {
          await cancelImport(deps.activities, principal, payload);
          return importOf(deps.knex, resource.id);
        },
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/imports/{id}/tie-out/',
    module: 'imports',
    operationId: 'getImportTieOut',
    summary: "The tie-out: each branch and account's trial balance beside the imported detail, and their difference",
    description:
      "Every account a kind's detail names, and every account of the trial balance " +
      'a subledger keeps. A difference blocks apply unless accepted with a reason; ' +
      'accepted, it is posted to the suspense account of the opening entries (enterprise ' +
      'configuration, default 4780). The XLSX report has it as its Tie-out sheet.',
    access: readers,
    load: importLoader,
    params: idParams,
    query: listQuerySchema([], {
      differences: yup.boolean().optional().meta({ description: 'true: only the pairs that differ.' }),
    }),
    response: pageSchema(tieOutSchema),
    errorStatuses: [401, 403, 404],
    refusals: ['page_not_found'],
    handler: async ({ resource, query, deps, ctx }) => {
      const rows = deps
        .knex('import_tie_outs')
        .where({ import_id: resource.id })
        .select(
          'branch_code',
          'account_code',
          'what',
          deps.knex.raw('trial_balance::text'),
          deps.knex.raw('detail::text'),
          deps.knex.raw('difference::text'),
        );
      if (query.differences === true) rows.whereNot('difference', 0);
      return paginateRows(
        rows.orderBy([{ column: 'branch_code' }, { column: 'account_code' }]),
        query,
        new URL(ctx.href),
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/imports/{id}/report/',
    module: 'imports',
    operationId: 'getImportReport',
    summary: 'The validation report: row, column, value, problem; as XLSX with the rejected rows highlighted',
    access: readers,
    load: importLoader,
    params: idParams,
    query: listQuerySchema([], {
      kind: yup.string().oneOf(importKinds).optional(),
      format: yup
        .string()
        .oneOf(['json', 'xlsx'])
        .optional()
        .meta({
          description:
            'json (default): the problems, a page at a time; xlsx: every ' +
            "problem, and each kind's rows with the rejected ones filled red.",
        }),
    }),
    response: pageSchema(problemSchema),
    produces: ['application/json', reportContentTypes.xlsx],
    errorStatuses: [401, 403, 404],
    refusals: ['page_not_found'],
    handler: async ({ resource, query, deps, ctx }) => {
      if (query.format === 'xlsx') {
        ctx.set('Content-Disposition', `attachment; filename="import-report-${resource.id}.xlsx"`);
        ctx.type = reportContentTypes.xlsx;
        const output = new PassThrough();
        ctx.body = output;
        writeReportWorkbook(deps.knex, resource.id, output).catch((error: unknown) => {
          ctx.state.log.error({ err: error }, 'the import report could not be written');
          output.destroy(error as Error);
        });
        return undefined;
      }
      const rows = deps
        .knex('import_problems')
        .where({ import_id: resource.id })
        .select('kind', 'row_number as row', 'column', 'value', 'problem');
      whereFilters(rows, query, { kind: 'kind' });
      return paginateRows(
        rows.orderBy([{ column: 'kind' }, { column: 'row_number' }, { column: 'id' }]),
        query,
        new URL(ctx.href),
      );
    },
  }),
];
