import type { Knex } from 'knex';

/** The reads of the audit trail (issue 27). */

export interface AuditEventRow {
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

/**
 * The trail of an enterprise, newest first, with each actor's username; `from` and `to` are UTC days, either optional.
 */
export function auditEventsQuery(
  knex: Knex,
  enterpriseId: string,
  days: { from?: string; to?: string },
): Knex.QueryBuilder {
  const rows = knex('audit_events as a')
    .leftJoin('users as u', 'u.id', 'a.actor_id')
    .where('a.enterprise_id', enterpriseId)
    .select(
      'a.id',
      'a.occurred_at',
      'a.actor_id',
      'u.username',
      'a.action',
      'a.entity_type',
      'a.entity_id',
      'a.enterprise_id',
      'a.address',
      'a.request_id',
      'a.details',
      'a.before',
      'a.after',
    )
    .orderBy([
      { column: 'a.occurred_at', order: 'desc' },
      { column: 'a.id', order: 'desc' },
    ]);
  // Dates are UTC days: the trail records instants, not business dates.
  if (days.from !== undefined) rows.whereRaw(`a.occurred_at >= (?::date)::timestamp AT TIME ZONE 'UTC'`, [days.from]);
  if (days.to !== undefined) rows.whereRaw(`a.occurred_at < (?::date + 1)::timestamp AT TIME ZONE 'UTC'`, [days.to]);
  return rows;
}

const exportBatch = 1000;

/** Every row of the query in its order, read a batch at a time as the caller consumes them (a file being written). */
export async function* auditEventsInBatches(rows: Knex.QueryBuilder): AsyncGenerator<AuditEventRow> {
  for (let offset = 0; ; offset += exportBatch) {
    const batch = (await rows.clone().limit(exportBatch).offset(offset)) as AuditEventRow[];
    yield* batch;
    if (batch.length < exportBatch) return;
  }
}
