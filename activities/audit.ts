import type { Knex } from 'knex';
import type { RequestOrigin, Requester } from './context';
import { auditOrigin } from './work-origin';

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

type AuditActor = Requester | null;

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
  ...auditOrigin(actor),
  action: entry.action,
  entity_type: entry.entityType,
  entity_id: entry.entityId,
  enterprise_id: entry.enterpriseId,
  details: JSON.stringify(entry.details ?? {}),
  before: entry.before === undefined ? null : JSON.stringify(entry.before),
  after: entry.after === undefined ? null : JSON.stringify(entry.after),
});

/**
 * The values a change of a row replaced and wrote, for the fields it names: the audit row's before and after
 * (docs/architecture.md §7), read from the row as it was locked and as the update returned it.
 */
export function changedValues<Row extends object>(
  changes: object,
  before: Row,
  after: Row,
): Required<Pick<AuditEntry, 'before' | 'after'>> {
  const fields = Object.entries(changes)
    .filter(([, value]) => value !== undefined)
    .map(([field]) => field);
  const valuesOf = (row: Row) =>
    Object.fromEntries(fields.map((field) => [field, (row as Record<string, unknown>)[field] ?? null]));
  return { before: valuesOf(before), after: valuesOf(after) };
}

/**
 * Where a change asked through the API came from, read back from the audit row of its request: the work a workflow
 * does later on the requester's behalf (a four-eyes request approved, a year's closing) is audited with them.
 */
export async function requestOriginOf(
  trx: Knex.Transaction,
  row: { entityType: string; entityId: string; action: string },
): Promise<RequestOrigin> {
  const asked = await trx('audit_events')
    .where({ entity_type: row.entityType, entity_id: row.entityId, action: row.action })
    .orderBy('id', 'desc')
    .first('request_id', 'address');
  return {
    requestId: (asked?.request_id as string | null | undefined) ?? null,
    address: (asked?.address as string | null | undefined) ?? undefined,
  };
}

/** Where one of an enterprise's hash chains ends: printed outside the database, it anchors the chain. */
export interface ChainAnchor {
  chain: 'journal_entries' | 'audit_events';
  /** Links in the chain; 0 before its first row. */
  position: number;
  /** SHA-256 (hex) of the last link; null before the first row. */
  head_hash: string | null;
}

/**
 * The heads of both chains of an enterprise, as committed (the one ledger_chain_heads row, docs/architecture.md §4).
 */
export async function chainAnchors(trx: Knex.Transaction, enterpriseId: string): Promise<ChainAnchor[]> {
  const head = await trx('ledger_chain_heads')
    .where({ chain_key: enterpriseId })
    .first(
      trx.raw('entries_position::int AS entries_position'),
      trx.raw("encode(entries_hash, 'hex') AS entries_hash"),
      trx.raw('audit_position::int AS audit_position'),
      trx.raw("encode(audit_hash, 'hex') AS audit_hash"),
    );
  return [
    { chain: 'journal_entries', position: head?.entries_position ?? 0, head_hash: head?.entries_hash ?? null },
    { chain: 'audit_events', position: head?.audit_position ?? 0, head_hash: head?.audit_hash ?? null },
  ];
}
