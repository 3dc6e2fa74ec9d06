import type { Knex } from 'knex';
import * as yup from 'yup';
import type { ReportDocument } from '../../../domain/accounts/report-document';
import { reportHeading } from '../../../activities/accounts/statement-documents';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { answerReport, formatParameter } from '../../report-download';
import { defineRoute } from '../../route';
import { isoDate, timestampResponse } from '../common.schemas';

/** Who reads the audit trail of an enterprise: its direction, its administrators and its auditors, enterprise-wide. */
export const auditReaders = ['direction', 'admin', 'auditor'] as const;

interface AuditEventRow {
  id: string;
  occurred_at: Date;
  actor_id: string | null;
  username: string | null;
  action: string;
  entity_type: string;
  entity_id: string | null;
  enterprise_id: string | null;
  address: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

const auditEventSchema = yup.object({
  id: yup.string().required().meta({ description: 'The row\'s number in the trail (increasing).' }),
  occurred_at: timestampResponse(),
  user: yup.object({ id: yup.string().uuid().required(), username: yup.string().required() }).nullable().defined()
    .meta({ description: 'Who acted; null for the system (a schedule, a workflow step).' }),
  kind: yup.string().required().meta({ description: 'What was done, e.g. `user.create`, `loan.write_off`.' }),
  resource: yup.object({ type: yup.string().required(), id: yup.string().nullable().defined() }).required(),
  enterprise: yup.string().uuid().nullable().defined(),
  address: yup.string().nullable().defined().meta({ description: 'The caller\'s address as the API saw it; null when the change was not a request\'s.' }),
  request_id: yup.string().nullable().defined(),
  details: yup.object().required(),
  before: yup.object().nullable().defined().meta({ description: 'The values the change replaced; null when not recorded.' }),
  after: yup.object().nullable().defined().meta({ description: 'The values the change wrote; null when not recorded.' }),
}).meta({ component: 'AuditEvent', description: 'One row of the audit trail: append-only, and chained by SHA-256 (GET /api/v1/enterprise/ledger/verification/).' });

const serialize = (row: AuditEventRow) => ({
  id: String(row.id),
  occurred_at: row.occurred_at.toISOString(),
  user: row.actor_id === null ? null : { id: row.actor_id, username: row.username ?? '' },
  kind: row.action,
  resource: { type: row.entity_type, id: row.entity_id },
  enterprise: row.enterprise_id,
  address: row.address,
  request_id: row.request_id,
  details: row.details,
  before: row.before,
  after: row.after,
});

const exportBatch = 1000;

/** Every row of the query, newest first, read a batch at a time as the file is written. */
async function* exportRows(rows: Knex.QueryBuilder) {
  for (let offset = 0; ; offset += exportBatch) {
    const batch = (await rows.clone().limit(exportBatch).offset(offset)) as AuditEventRow[];
    for (const row of batch) {
      const event = serialize(row);
      yield {
        id: event.id, occurred_at: event.occurred_at, user: row.username, kind: event.kind, resource_type: row.entity_type, resource_id: row.entity_id,
        address: row.address, request_id: row.request_id, details: JSON.stringify(row.details), before: row.before === null ? null : JSON.stringify(row.before),
        after: row.after === null ? null : JSON.stringify(row.after),
      };
    }
    if (batch.length < exportBatch) return;
  }
}

const column = (key: string, title: string) => ({ key, title, kind: 'text' as const });

function auditDocument(heading: Omit<ReportDocument, 'title' | 'sheets'>, rows: Knex.QueryBuilder): ReportDocument {
  return {
    ...heading,
    title: 'Journal d\'audit',
    sheets: [{
      name: 'Événements',
      columns: [
        column('id', 'N°'), column('occurred_at', 'Date et heure (UTC)'), column('user', 'Utilisateur'), column('kind', 'Action'), column('resource_type', 'Ressource'),
        column('resource_id', 'Identifiant'), column('address', 'Adresse'), column('request_id', 'Requête'), column('details', 'Détails'), column('before', 'Avant'), column('after', 'Après'),
      ],
      rows: exportRows(rows),
    }],
  };
}

/** The audit trail (issue 27): who did what, when, from where, on which resource, before and after. */
export const auditEventRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/audit/events/',
    module: 'audit',
    operationId: 'listAuditEvents',
    summary: 'The audit trail of an enterprise, newest first (direction, administrators, auditors); as CSV or XLSX with `format`',
    description: 'Filters by user, resource (type and id), kind and date (UTC). With `format=csv|xlsx` every row the filters select, not one page.',
    access: auditReaders,
    query: listQuerySchema([], {
      enterprise: yup.string().uuid().required(),
      user: yup.string().uuid().optional().meta({ description: 'Rows of this user\'s actions.' }),
      resource_type: yup.string().matches(/^[a-z_]{1,60}$/, 'resource_type must be a resource type, e.g. loan').optional(),
      resource_id: yup.string().uuid().optional(),
      kind: yup.string().matches(/^[a-z_.]{1,60}$/, 'kind must be an action, e.g. user.create').optional(),
      date_from: isoDate().optional(),
      date_to: isoDate().optional()
        .test('ordered', 'date_to must not be before date_from', (to, { parent }) => to === undefined || parent.date_from === undefined || to >= parent.date_from),
      format: formatParameter,
    }),
    downloadable: true,
    errorStatuses: [401, 403, 404],
    response: pageSchema(auditEventSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, deps, ctx, authorize }) => {
      authorize({ enterpriseId: query.enterprise }, 'The enterprise');
      const rows = deps.knex('audit_events as a').leftJoin('users as u', 'u.id', 'a.actor_id').where('a.enterprise_id', query.enterprise)
        .select('a.id', 'a.occurred_at', 'a.actor_id', 'u.username', 'a.action', 'a.entity_type', 'a.entity_id', 'a.enterprise_id', 'a.address', 'a.request_id', 'a.details', 'a.before', 'a.after')
        .orderBy([{ column: 'a.occurred_at', order: 'desc' }, { column: 'a.id', order: 'desc' }]);
      whereFilters(rows, query, { user: 'a.actor_id', resource_type: 'a.entity_type', resource_id: 'a.entity_id', kind: 'a.action' });
      // Dates are UTC days: the trail records instants, not business dates.
      if (query.date_from !== undefined) rows.whereRaw(`a.occurred_at >= (?::date)::timestamp AT TIME ZONE 'UTC'`, [query.date_from]);
      if (query.date_to !== undefined) rows.whereRaw(`a.occurred_at < (?::date + 1)::timestamp AT TIME ZONE 'UTC'`, [query.date_to]);
      if (query.format === 'csv' || query.format === 'xlsx') {
        const heading = await reportHeading(deps.knex, { enterpriseId: query.enterprise, branch: null }, deps.clock());
        const period = query.date_from !== undefined && query.date_to !== undefined ? { period: { from: query.date_from, to: query.date_to } } : {};
        return answerReport(ctx, query.format, undefined, { report: 'audit-events', document: () => auditDocument({ ...heading, ...period }, rows) });
      }
      const page = await paginateRows<AuditEventRow>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serialize) };
    },
  }),
];
