import type { Knex } from 'knex';
import type { EventKind, RuleLeg } from '../../domain/events/rules';

export interface RuleConfigRow {
  id: string;
  enterprise_id: string;
  kind: EventKind;
  version: number;
  legs: RuleLeg[];
  is_active: boolean;
  reason: string;
  created_at: Date;
  created_by: string | null;
}

export const ruleColumns = [
  'id',
  'enterprise_id',
  'kind',
  'version',
  'legs',
  'is_active',
  'reason',
  'created_at',
  'created_by',
];
export const ruleById = (knex: Knex, id: string): Promise<RuleConfigRow | undefined> =>
  knex('accounting_rule_configs').where({ id }).first(ruleColumns);

const eventColumns = [
  'ev.id',
  'ev.enterprise_id',
  'ev.branch_id',
  'ev.kind',
  'ev.amount',
  'ev.payload',
  'ev.business_date',
  'ev.actor_id',
  'ev.idempotency_key',
  'ev.created_at',
];

/** An event as its list and detail read it, with the entry it produced (the first, not its reversals). */
export interface EventRow {
  id: string;
  enterprise_id: string;
  branch_id: string | null;
  kind: EventKind;
  amount: string;
  payload: Record<string, unknown>;
  business_date: string;
  actor_id: string | null;
  idempotency_key: string;
  created_at: Date;
  journal_entry: string | null;
}

/** The business events with the entry each produced, newest first. */
export const businessEventsQuery = (knex: Knex) =>
  knex('business_event_logs as ev')
    .leftJoin('journal_entries as je', (join) => join.on('je.event_id', 'ev.id').andOnNull('je.reverses_entry_id'))
    .select([...eventColumns, 'je.id as journal_entry'])
    .distinctOn('ev.created_at', 'ev.id')
    .orderBy([
      { column: 'ev.created_at', order: 'desc' },
      { column: 'ev.id', order: 'asc' },
    ]);

/** One business event with its entry. */
export const businessEventById = (knex: Knex, id: string): Promise<EventRow | undefined> =>
  businessEventsQuery(knex).where('ev.id', id).first();
