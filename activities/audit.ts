import type { Knex } from 'knex';
import type { Actor } from './context';

export interface AuditEntry {
  action: string;
  entityType: string;
  entityId: string | null;
  enterpriseId: string | null;
  details?: Record<string, unknown>;
  /** The values the change replaced and the values it wrote, for a change of an existing resource. */
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
}

type AuditActor = { userId: Actor['userId']; requestId: Actor['requestId'] | null; address?: Actor['address'] } | null;

/** Appends who did what to the audit trail, in the transaction of the change it describes. */
export async function recordAudit(trx: Knex.Transaction, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await trx('audit_events').insert(auditRow(actor, entry));
}

/**
 * The audit trail's row for an entry, for a statement that writes the change and its audit together. The one
 * place an audit row is shaped: the database chains it at commit (docs/architecture.md §4, "Tamper evidence").
 */
export const auditRow = (actor: AuditActor, entry: AuditEntry) => ({
  actor_id: actor?.userId ?? null,
  request_id: actor?.requestId ?? null,
  address: actor?.address ?? null,
  action: entry.action,
  entity_type: entry.entityType,
  entity_id: entry.entityId,
  enterprise_id: entry.enterpriseId,
  details: JSON.stringify(entry.details ?? {}),
  before: entry.before === undefined ? null : JSON.stringify(entry.before),
  after: entry.after === undefined ? null : JSON.stringify(entry.after),
});
