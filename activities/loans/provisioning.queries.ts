import type { Knex } from 'knex';

export const runStatuses = ['running', 'completed', 'failed'] as const;

export const runColumns = [
  'id',
  'enterprise_id',
  'as_of',
  'trigger',
  'status',
  'requested_by',
  'loans_processed',
  'provisions_changed',
  'loans_reclassified',
  'amount_charged',
  'amount_reversed',
  'failure',
  'created_at',
  'finished_at',
];

export interface RunRow {
  id: string;
  enterprise_id: string;
  as_of: string;
  trigger: 'schedule' | 'api';
  status: (typeof runStatuses)[number];
  requested_by: string | null;
  loans_processed: number;
  provisions_changed: number;
  loans_reclassified: number;
  amount_charged: string;
  amount_reversed: string;
  failure: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export const runById = (knex: Knex, id: string): Promise<RunRow | undefined> =>
  knex('provisioning_runs').where({ id }).first(runColumns);
