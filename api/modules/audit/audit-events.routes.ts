import * as yup from 'yup';
import {
  auditEventsInBatches,
  auditEventsQuery,
  type AuditEventRow,
} from '../../../activities/audit/audit-events.queries';
import { reportHeading } from '../../../activities/accounts/statement-documents';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { answerReport, formatParameter } from '../../report-download';
import { defineRoute } from '../../route';
import { isoDate } from '../common.schemas';
import { auditDocument, auditEventSchema, serializeAuditEvent } from './audit-events.schemas';

/** Who reads the audit trail of an enterprise: its direction, its administrators and its auditors, enterprise-wide. */
export const auditReaders = ['direction', 'admin', 'auditor'] as const;

/** The audit trail (issue 27): who did what, when, from where, on which resource, before and after. */
export const auditEventRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/audit/events/',
    module: 'audit',
    operationId: 'listAuditEvents',
    summary:
      'The audit trail of an enterprise, newest first (direction, ' +
      'administrators, auditors); as CSV or XLSX with `format`',
    description:
      'Filters by user, resource (type and id), kind and date (UTC). ' +
      'With `format=csv|xlsx` every row the filters select, not one page.',
    access: auditReaders,
    query: listQuerySchema([], {
      enterprise: yup.string().uuid().required(),
      user: yup.string().uuid().optional().meta({ description: "Rows of this user's actions." }),
      resource_type: yup
        .string()
        .matches(/^[a-z_]{1,60}$/, 'resource_type must be a resource type, e.g. loan')
        .optional(),
      resource_id: yup.string().uuid().optional(),
      kind: yup
        .string()
        .matches(/^[a-z_.]{1,60}$/, 'kind must be an action, e.g. user.create')
        .optional(),
      date_from: isoDate().optional(),
      date_to: isoDate()
        .optional()
        .test(
          'ordered',
          'date_to must not be before date_from',
          (to, { parent }) => to === undefined || parent.date_from === undefined || to >= parent.date_from,
        ),
      format: formatParameter,
    }),
    downloadable: true,
    errorStatuses: [401, 403, 404],
    response: pageSchema(auditEventSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, deps, ctx, authorize }) => {
      authorize({ enterpriseId: query.enterprise }, 'The enterprise');
      const rows = auditEventsQuery(deps.knex, query.enterprise, { from: query.date_from, to: query.date_to });
      whereFilters(rows, query, {
        user: 'a.actor_id',
        resource_type: 'a.entity_type',
        resource_id: 'a.entity_id',
        kind: 'a.action',
      });
      if (query.format === 'csv' || query.format === 'xlsx') {
        const heading = await reportHeading(deps.knex, { enterpriseId: query.enterprise, branch: null }, deps.clock());
        const period =
          query.date_from !== undefined && query.date_to !== undefined
            ? { period: { from: query.date_from, to: query.date_to } }
            : {};
        return answerReport(ctx, query.format, undefined, {
          report: 'audit-events',
          document: () => auditDocument({ ...heading, ...period }, auditEventsInBatches(rows)),
        });
      }
      const page = await paginateRows<AuditEventRow>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serializeAuditEvent) };
    },
  }),
];
