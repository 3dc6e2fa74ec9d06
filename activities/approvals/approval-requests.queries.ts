import type { Knex } from 'knex';
import type { Role } from '../../domain/access';

/** The reads of four-eyes requests. */

export interface RequestRow {
  id: string;
  enterprise_id: string;
  branch_id: string | null;
  operation: string;
  payload: Record<string, unknown>;
  summary: string;
  approver_roles: Role[];
  maker_id: string;
  status: string;
  decided_by: string | null;
  reason: string | null;
  outcome: { code: string; message: string } | null;
  workflow_id: string;
  created_at: Date;
  expires_at: Date;
  decided_at: Date | null;
}

export const requestsQuery = (knex: Knex) => knex('approval_requests');

export const requestById = (knex: Knex, id: string) =>
  requestsQuery(knex).where({ id }).first() as Promise<RequestRow | undefined>;

/** The pending request made with this idempotency key, if any. */
export const pendingRequestByKey = (knex: Knex, key: string) =>
  requestsQuery(knex).where({ idempotency_key: key, status: 'pending' }).first() as Promise<RequestRow | undefined>;
