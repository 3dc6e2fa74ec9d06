import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/**
 * Every name Temporal knows the project's work by (docs/architecture.md §5), in one place for every layer: the
 * workflows, the activities that store an id, the API that starts and finds them, the runtime that registers the
 * attributes. Plain values, no I/O: safe in the workflow sandbox and anywhere else.
 */

/** The task queue when TEMPORAL_TASK_QUEUE is not set. */
export const defaultTaskQueue = 'coopbank';

// Workflow ids come from business ids (internal UUIDs, or the enterprise's UUID with a period or year code), so
// that a retry cannot start a twin. They are unique across enterprises as they are: they do not carry the code.
export const loanApprovalWorkflowId = (applicationId: string) => `loan-approval-${applicationId}`;
export const shareWithdrawalWorkflowId = (withdrawalId: string) => `share-withdrawal-${withdrawalId}`;
export const provisioningRunWorkflowId = (runId: string) => `provisioning-run-${runId}`;
export const eventReplayWorkflowId = (requestId: string) => `event-replay-${requestId}`;
export const yearEndClosingWorkflowId = (enterpriseId: string, exerciceCode: string) =>
  `year-end-closing-${enterpriseId}-${exerciceCode}`;
/** One workflow per four-eyes request (its UUID, made with the request). */
export const approvalRequestWorkflowId = (requestId: string) => `approval-request-${requestId}`;
/** One workflow per enterprise and period: a second start cannot run a twin. */
export const monthEndWorkflowId = (enterpriseId: string, period: string) => `month-end-${enterpriseId}-${period}`;
/** One workflow per enterprise and month: a second start while one runs is refused by Temporal. */
export const reportingPackWorkflowId = (enterpriseId: string, period: string) =>
  `reporting-pack-${enterpriseId}-${period}`;
/** Issue 29: one end of day (close of business) per enterprise and business date: a second start cannot run a twin. */
export const endOfDayWorkflowId = (enterpriseId: string, date: string) => `end-of-day-${enterpriseId}-${date}`;
/** Issue 31: one workflow per go-live import; validating it again starts it anew. */
export const importWorkflowId = (importId: string) => `import-${importId}`;
/** Version 1 keeps the month's workflow id; a reissue runs under an id of its own. */
export const reportingPackVersionWorkflowId = (enterpriseId: string, period: string, version: number) =>
  version === 1
    ? reportingPackWorkflowId(enterpriseId, period)
    : `${reportingPackWorkflowId(enterpriseId, period)}-v${version}`;

// Schedule ids, one of each per enterprise; also the id prefix of the workflows they start.
export const provisioningScheduleId = (enterpriseId: string) => `provisioning-${enterpriseId}`;
export const monthEndScheduleId = (enterpriseId: string) => `month-end-${enterpriseId}`;
/** Issue 28, recurring entries: the daily proposal of the drafts due (docs/domain.md §12.7). */
export const recurringEntriesScheduleId = (enterpriseId: string) => `recurring-entries-${enterpriseId}`;
/** Issue 29: the daily end of day, only where the enterprise set its hour (docs/domain.md §13.3). */
export const endOfDayScheduleId = (enterpriseId: string) => `end-of-day-${enterpriseId}`;
/** Issue 29, standing orders: one Schedule per order, its daily pass (docs/domain.md §13.5). */
export const standingOrderScheduleId = (standingOrderId: string) => `standing-order-${standingOrderId}`;

/**
 * Search attributes operators filter on in the Temporal UI: the enterprise (id and code), the branch and the business
 * id. All keywords; registered in the namespace by every worker at start (runtime/worker.ts).
 */
export const enterpriseIdKey = defineSearchAttributeKey('CoopEnterpriseId', SearchAttributeType.KEYWORD);
export const enterpriseCodeKey = defineSearchAttributeKey('CoopEnterpriseCode', SearchAttributeType.KEYWORD);
export const branchIdKey = defineSearchAttributeKey('CoopBranchId', SearchAttributeType.KEYWORD);
export const businessIdKey = defineSearchAttributeKey('CoopBusinessId', SearchAttributeType.KEYWORD);

export const searchAttributeKeys = [enterpriseIdKey, enterpriseCodeKey, branchIdKey, businessIdKey];

/** A business id (an application number, a period…) repeats across enterprises: `DEMO/HQ-D2026-00001` does not. */
export const coopBusinessId = (enterpriseCode: string, businessId: string) => `${enterpriseCode}/${businessId}`;

export interface WorkflowTags {
  enterpriseId: string;
  enterpriseCode: string;
  branchId?: string;
  /** Without the code: it is prefixed here. Absent when the workflow makes it (a scheduled run). */
  businessId?: string;
}

/** The search attributes a workflow or Schedule action starts with. */
export function startTags(tags: WorkflowTags): SearchAttributePair[] {
  return [
    { key: enterpriseIdKey, value: tags.enterpriseId },
    { key: enterpriseCodeKey, value: tags.enterpriseCode },
    ...(tags.branchId === undefined ? [] : [{ key: branchIdKey, value: tags.branchId }]),
    ...(tags.businessId === undefined
      ? []
      : [{ key: businessIdKey, value: coopBusinessId(tags.enterpriseCode, tags.businessId) }]),
  ];
}
