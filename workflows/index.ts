// The worker bundles workflows from this one entry file: every workflow is exported here.
export { eventReplay } from './event-replay.workflow';
export { workerSelfCheck } from './worker-self-check.workflow';
export { loanApproval } from './loan-approval.workflow';
export { provisioningRun } from './provisioning.workflow';
export { shareWithdrawal } from './share-withdrawal.workflow';
export { yearEndClosing } from './year-end-closing.workflow';
export { reportingPack } from './reporting-pack.workflow';
export { monthEnd } from './month-end.workflow';
export { approvalRequest } from './approval-request.workflow';
export { recurringEntries } from './recurring-entries.workflow';
export { endOfDay } from './end-of-day.workflow';
export { standingOrder } from './standing-order.workflow';
export { importWorkflow } from './import.workflow';
