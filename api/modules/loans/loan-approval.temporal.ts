import { markApplicationFailed } from '../../../activities/loans/loan-applications.activity';
import { AppError } from '../../../domain/errors';
import type { LoanApplication } from '../../../db/models/loan-application.model';
import { decideUpdate, withdrawUpdate } from '../../../workflows/definitions';
import type { DecisionInput, WithdrawalInput } from '../../../workflows/definitions';
import type { loanApproval, LoanApprovalInput } from '../../../workflows/loan-approval.workflow';
import type { RouteDeps } from '../../deps';
import { startWorkflowOfRequest } from '../../workflow-start';
import { executeWorkflowUpdate } from '../../workflow-update';

/**
 * The API's side of the `loanApproval` workflow: start it for a submitted application, and send it the
 * decisions as Updates. A refusal by the workflow (its validator or a business rule of the final step)
 * comes back as a 409 with the workflow's code; Temporal out of reach is a 503.
 */

/** The step time limit is in the enterprise's days, counted as the workflows count days (WORKFLOW_DAY_MS). */
export async function startLoanApproval(
  deps: RouteDeps,
  application: LoanApplication,
  stepTimeLimitDays: number,
): Promise<void> {
  const input: LoanApprovalInput = {
    applicationId: application.id,
    enterpriseId: application.enterpriseId,
    branchId: application.branchId,
    applicationNumber: application.number,
    stepTimeLimitSeconds: Math.round((stepTimeLimitDays * deps.workflowDayMs) / 1000),
    finalStep: application.finalStep,
    submittedBy: application.submittedBy,
  };
  await startWorkflowOfRequest<typeof loanApproval>(deps, 'loanApproval', application, [input], {
    what: 'the application',
    markFailed: () =>
      markApplicationFailed(
        deps.knex,
        application.id,
        'The approval workflow could not be started (Temporal unreachable); submit the application again.',
      ),
    log: deps.logger,
  });
}

const approvalEnded = () =>
  new AppError('conflict', 'application_closed', 'The approval process of this application has ended.');

/** `updateId`: from the client's Idempotency-Key (`operationKey`), so that a retry joins the first Update. */
export const decideOnApplication = (
  deps: RouteDeps,
  application: LoanApplication,
  decision: DecisionInput,
  updateId: string,
) =>
  executeWorkflowUpdate(
    deps,
    { workflowId: application.workflowId, updateId },
    decideUpdate,
    decision,
    approvalEnded(),
  );

export const withdrawApplication = (
  deps: RouteDeps,
  application: LoanApplication,
  withdrawal: WithdrawalInput,
  updateId: string,
) =>
  executeWorkflowUpdate(
    deps,
    { workflowId: application.workflowId, updateId },
    withdrawUpdate,
    withdrawal,
    approvalEnded(),
  );
