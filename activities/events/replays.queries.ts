import type { Knex } from 'knex';
import type { EventKind } from '../../domain/events/rules';

export const replayStatuses = ['pending', 'running', 'completed', 'failed'] as const;
export const replayModes = ['dry_run', 'apply'] as const;
export const replayColumns = [
  'id',
  'enterprise_id',
  'date_from',
  'date_to',
  'kinds',
  'mode',
  'status',
  'events_seen',
  'events_changed',
  'entries_posted',
  'events_failed',
  'requested_by',
  'created_at',
  'finished_at',
  'failure',
];

export interface ReplayRow {
  id: string;
  enterprise_id: string;
  date_from: string;
  date_to: string;
  kinds: EventKind[];
  mode: (typeof replayModes)[number];
  status: (typeof replayStatuses)[number];
  events_seen: number;
  events_changed: number;
  entries_posted: number;
  events_failed: number;
  requested_by: string;
  created_at: Date;
  finished_at: Date | null;
  failure: string | null;
}

export const replayById = (knex: Knex, id: string): Promise<ReplayRow | undefined> =>
  knex('event_replay_requests').where({ id }).first(replayColumns);
