import type { Knex } from 'knex';
import * as yup from 'yup';
import { roles, type Role } from '../../../domain/access';
import { approvalOperations } from '../../../domain/approvals/policy';
import type { Loader } from '../../route';
import { timestampResponse } from '../common.schemas';

/** The reads of the approvals module: requests, their shape and their loader. */

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

export const requestStatuses = ['pending', 'approved', 'rejected', 'expired', 'failed'] as const;

export const approvalRequestSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    branch: yup.string().uuid().nullable().defined(),
    operation: yup.string().oneOf(approvalOperations).required(),
    summary: yup.string().required(),
    payload: yup
      .object()
      .required()
      .meta({ description: 'What the operation will do once approved, as its route received it.' }),
    status: yup.string().oneOf(requestStatuses).required(),
    maker: yup.string().uuid().required(),
    approver_roles: yup
      .array(yup.string().oneOf(roles).required())
      .required()
      .meta({ description: "The second person holds one of these at the request's enterprise (or branch)." }),
    decided_by: yup.string().uuid().nullable().defined(),
    reason: yup.string().nullable().defined(),
    failure: yup
      .object({ code: yup.string().required(), message: yup.string().required() })
      .nullable()
      .defined()
      .default(null)
      .meta({
        description: 'Approved, but the operation was refused when it ran (status failed): why. Nothing of it applied.',
      }),
    workflow_id: yup
      .string()
      .required()
      .meta({ description: "approval-request-{id}: the request's workflow in the Temporal UI." }),
    created_at: timestampResponse(),
    expires_at: timestampResponse(),
    decided_at: timestampResponse().nullable().defined(),
  })
  .meta({ component: 'ApprovalRequest' });

export function serializeRequest(row: RequestRow) {
  return {
    id: row.id,
    enterprise: row.enterprise_id,
    branch: row.branch_id,
    operation: row.operation,
    summary: row.summary,
    payload: row.payload,
    status: row.status,
    maker: row.maker_id,
    approver_roles: row.approver_roles,
    decided_by: row.decided_by,
    reason: row.reason,
    failure: row.outcome,
    workflow_id: row.workflow_id,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    decided_at: row.decided_at?.toISOString() ?? null,
  };
}

export const requestsQuery = (knex: Knex) => knex('approval_requests');

export const approvalLoaders = {
  /**
   * Seen by whoever sees its enterprise (or branch); its detail narrows a request of no branch to the roles over the
   * whole enterprise. Who may decide it is the workflow's question.
   */
  request: {
    name: 'The approval request',
    load: async ({ knex }, id) => requestsQuery(knex).where({ id }).first() as Promise<RequestRow | undefined>,
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<RequestRow>,
};
