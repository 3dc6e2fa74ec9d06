import * as yup from 'yup';
import type { AuditEventRow } from '../../../activities/audit/audit-events.queries';
import type { ReportDocument } from '../../../domain/accounts/report-document';
import { timestampResponse, nullableId } from '../common.schemas';

export const auditEventSchema = yup
  .object({
    id: yup.string().required().meta({ description: "The row's number in the trail (increasing)." }),
    occurred_at: timestampResponse(),
    user: yup
      .object({ id: yup.string().uuid().required(), username: yup.string().required() })
      .nullable()
      .defined()
      .meta({ description: 'Who acted; null for the system (a schedule, a workflow step).' }),
    kind: yup.string().required().meta({ description: 'What was done, e.g. `user.create`, `loan.write_off`.' }),
    resource: yup.object({ type: yup.string().required(), id: yup.string().nullable().defined() }).required(),
    enterprise: nullableId(),
    address: yup
      .string()
      .nullable()
      .defined()
      .meta({ description: "The caller's address as the API saw it; null when the change was not a request's." }),
    request_id: yup.string().nullable().defined(),
    details: yup.object().required(),
    before: yup
      .object()
      .nullable()
      .defined()
      .meta({ description: 'The values the change replaced; null when not recorded.' }),
    after: yup
      .object()
      .nullable()
      .defined()
      .meta({ description: 'The values the change wrote; null when not recorded.' }),
  })
  .meta({
    component: 'AuditEvent',
    description:
      'One row of the audit trail: append-only, and chained by SHA-256 (GET /api/v1/enterprise/ledger/verification/).',
  });

export const serializeAuditEvent = (row: AuditEventRow) => ({
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

/** The exported file's row: the answer's fields, flat, the JSON values as their text. */
async function* exportRows(rows: AsyncIterable<AuditEventRow>) {
  for await (const row of rows) {
    const event = serializeAuditEvent(row);
    yield {
      id: event.id,
      occurred_at: event.occurred_at,
      user: row.username,
      kind: event.kind,
      resource_type: row.entity_type,
      resource_id: row.entity_id,
      address: row.address,
      request_id: row.request_id,
      details: JSON.stringify(row.details),
      before: row.before === null ? null : JSON.stringify(row.before),
      after: row.after === null ? null : JSON.stringify(row.after),
    };
  }
}

const column = (key: string, title: string) => ({ key, title, kind: 'text' as const });

/** The trail as a CSV or XLSX document, its rows read as the file is written. */
export function auditDocument(
  heading: Omit<ReportDocument, 'title' | 'sheets'>,
  rows: AsyncIterable<AuditEventRow>,
): ReportDocument {
  return {
    ...heading,
    title: "Journal d'audit",
    sheets: [
      {
        name: 'Événements',
        columns: [
          column('id', 'N°'),
          column('occurred_at', 'Date et heure (UTC)'),
          column('user', 'Utilisateur'),
          column('kind', 'Action'),
          column('resource_type', 'Ressource'),
          column('resource_id', 'Identifiant'),
          column('address', 'Adresse'),
          column('request_id', 'Requête'),
          column('details', 'Détails'),
          column('before', 'Avant'),
          column('after', 'Après'),
        ],
        rows: exportRows(rows),
      },
    ],
  };
}
