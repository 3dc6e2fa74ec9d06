import * as yup from 'yup';
import {
  markReportingPackFailed,
  reissueReportingPack,
  requestReportingPack,
  type ReportingPackRow,
} from '../../../activities/accounts/reporting-packs.activity';
import { packFile, reportingPacksQuery, withFiles } from '../../../activities/accounts/reporting-packs.queries';
import { enterpriseById } from '../../../activities/enterprise/enterprises.queries';
import { reportContentTypes, type ReportFileFormat } from '../../../activities/report-files';
import { NotFoundError } from '../../../domain/errors';
import type { reportingPack, ReportingPackInput } from '../../../workflows/reporting-pack.workflow';
import { reportingPackVersionWorkflowId } from '../../../workflows/identities';
import type { Logger } from 'pino';
import type { Principal } from '../../auth/principal';
import type { RouteDeps } from '../../deps';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { startWorkflowFor } from '../../workflow-start';
import { enterpriseFilter, idParams, periodSchema } from '../common.schemas';
import { packSchema, serializePack } from './reporting-packs.schemas';
import { accountLoaders } from './accounts.queries';

/**
 * The figures sent to COBAC are the direction's: only direction and administrators request the packs; auditors and
 * accountants read them too.
 */
const packRoles = ['direction', 'admin'] as const;
const packReaders = ['direction', 'admin', 'auditor', 'accountant'] as const;

/**
 * Starts the workflow that makes a pack's version; when Temporal cannot take it, the version is marked failed (503).
 */
async function startPackWorkflow(deps: RouteDeps, pack: ReportingPackRow, log: Logger): Promise<void> {
  const input: ReportingPackInput = { enterpriseId: pack.enterprise_id, period: pack.period };
  await startWorkflowFor<typeof reportingPack>(
    deps,
    'reportingPack',
    {
      workflowId: reportingPackVersionWorkflowId(pack.enterprise_id, pack.period, pack.version),
      args: [input],
      tags: { enterpriseId: pack.enterprise_id, businessId: pack.period },
    },
    {
      what: 'the reporting pack',
      markFailed: () =>
        markReportingPackFailed(deps.knex, { packId: pack.id, failure: 'the workflow could not be started' }),
      log,
    },
  );
}

/**
 * The enterprises whose packs the caller reads: where they hold one of the readers' roles over the whole enterprise
 * ('all' for a platform grant). A pack is consolidated: a role in one branch does not read it.
 */
function readableEnterprises(principal: Principal): 'all' | string[] {
  const grants = principal.grants.filter(
    (grant) => (packReaders as readonly string[]).includes(grant.role) && grant.branchId === null,
  );
  return grants.some((grant) => grant.enterpriseId === null) ? 'all' : grants.map((grant) => grant.enterpriseId!);
}

/**
 * The monthly reporting pack (docs/architecture.md §10): requested here or by the month end, made by the
 * reportingPack workflow, its files stored as made and downloaded as stored.
 */
export const reportingPackRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/v1/accounts/reporting-packs/',
    module: 'accounts',
    operationId: 'requestReportingPack',
    summary:
      'Make a month’s reporting pack (direction, administrators): balance sheet, income statement for the ' +
      'year to date, trial balance, as CSV and XLSX',
    description:
      'Made once per enterprise and month: a month whose pack is stored answers it as stored (nothing is ' +
      'made again); a failed one is made again.',
    access: packRoles,
    status: 202,
    location: '/api/v1/accounts/reporting-packs/{id}/',
    body: yup.object({ enterprise: yup.string().uuid().required(), period: periodSchema().required() }),
    response: packSchema,
    errorStatuses: [401, 403, 404, 422, 503],
    refusals: ['no_exercice_for_period', 'period_not_ended', 'workflow_unavailable'],
    handler: async ({ body, principal, deps, authorize, ctx }) => {
      authorize({ enterpriseId: body.enterprise }, 'The enterprise');
      const { pack, start } = await requestReportingPack(deps.activities, principal, {
        enterpriseId: body.enterprise,
        period: body.period,
      });
      if (start) await startPackWorkflow(deps, pack, ctx.state.log);
      return serializePack((await withFiles(deps.knex, [pack]))[0]!);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounts/reporting-packs/{id}/reissue/',
    module: 'accounts',
    operationId: 'reissueReportingPack',
    summary:
      'Reissue a stored pack as the month’s next version (direction, administrators): when it was ' +
      'provisional or an entry came into its month since',
    description:
      'The version reissued stays exactly as stored; the new one names it, records the reason and, once ' +
      'made, how its figures differ. ' +
      "Refused (409) for a pack that is not the month's latest, not stored, or whose figures stand: made " +
      'with every earlier year closed and nothing posted into its month since.',
    access: packRoles,
    status: 202,
    location: '/api/v1/accounts/reporting-packs/{id}/',
    load: accountLoaders.reportingPack,
    params: idParams,
    body: yup.object({ reason: yup.string().trim().required().min(5).max(500) }),
    response: packSchema,
    errorStatuses: [401, 403, 404, 409, 503],
    refusals: [
      'reporting_pack_current',
      'reporting_pack_not_stored',
      'reporting_pack_superseded',
      'workflow_unavailable',
    ],
    handler: async ({ resource: pack, body, principal, deps, ctx }) => {
      const reissued = await reissueReportingPack(deps.activities, principal, { packId: pack.id, reason: body.reason });
      await startPackWorkflow(deps, reissued, ctx.state.log);
      return serializePack((await withFiles(deps.knex, [reissued]))[0]!);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/reporting-packs/',
    module: 'accounts',
    operationId: 'listReportingPacks',
    summary: "Reporting packs, the latest month first, and each month's latest version first",
    access: packReaders,
    query: listQuerySchema([], { enterprise: enterpriseFilter, period: periodSchema().optional() }),
    errorStatuses: [401, 403],
    response: pageSchema(packSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = reportingPacksQuery(deps.knex);
      const readable = readableEnterprises(principal);
      if (readable !== 'all') rows.whereIn('enterprise_id', readable);
      whereFilters(rows, query, { enterprise: 'enterprise_id', period: 'period' });
      const page = await paginateRows<ReportingPackRow>(rows, query, new URL(ctx.href));
      return { ...page, results: (await withFiles(deps.knex, page.results)).map(serializePack) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/reporting-packs/{id}/',
    module: 'accounts',
    operationId: 'getReportingPack',
    summary: 'A reporting pack with its files, their sizes and SHA-256',
    access: packReaders,
    load: accountLoaders.reportingPack,
    params: idParams,
    errorStatuses: [401, 403, 404],
    response: packSchema,
    handler: async ({ resource, deps }) => serializePack((await withFiles(deps.knex, [resource]))[0]!),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/reporting-packs/{id}/files/{name}/',
    module: 'accounts',
    operationId: 'downloadReportingPackFile',
    summary: 'A file of a reporting pack, the bytes stored when it was made',
    access: packReaders,
    load: accountLoaders.reportingPack,
    params: yup.object({
      id: yup.string().uuid().required(),
      name: yup
        .string()
        .required()
        .matches(/^[a-z0-9-]{1,40}\.(csv|xlsx)$/, '${path} must be <report>.csv or <report>.xlsx'),
    }),
    produces: [reportContentTypes.csv, reportContentTypes.xlsx],
    errorStatuses: [401, 403, 404],
    handler: async ({ resource: pack, params, deps, ctx }) => {
      const [report, format] = params.name.split('.') as [string, ReportFileFormat];
      const file = await packFile(deps.knex, pack.id, report, format);
      if (file === undefined) throw new NotFoundError('The file');
      const enterprise = (await enterpriseById(deps.knex, pack.enterprise_id))!;
      ctx.set(
        'Content-Disposition',
        `attachment; ` +
          `filename="${report}-${String(enterprise.code).replace(/[^A-Za-z0-9._-]+/g, '-')}-${pack.period}.${format}"`,
      );
      // RFC 9530: the client can check what it received against the digest recorded in the pack.
      ctx.set('Repr-Digest', `sha-256=:${Buffer.from(file.sha256, 'hex').toString('base64')}:`);
      ctx.type = reportContentTypes[format];
      ctx.body = file.content;
      return undefined;
    },
  }),
];
