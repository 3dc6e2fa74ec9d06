import * as yup from 'yup';
import type { RequestRow } from '../../../activities/approvals/approval-requests.queries';
import { roles } from '../../../domain/access';
import { approvalOperations } from '../../../domain/approvals/policy';
import { timestampResponse, nullableId } from '../common.schemas';

/** Representations of four-eyes requests. */

export const requestStatuses = ['pending', 'approved', 'rejected', 'expired', 'failed'] as const;

export const approvalRequestSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    branch: nullableId(),
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
    decided_by: nullableId(),
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
