import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { markApplicationFailed } from '../../activities/loans/loan-applications.activity';
import { AppError } from '../../domain/errors';
import type { LoanApplication } from '../../db/models/loan-application.model';
import type { ApprovalView, DecisionInput, LoanApprovalInput, WithdrawalInput } from '../../workflows/loan-approval.workflow';
import type { RouteDeps } from '../deps';
import { startWorkflow } from '../workflow-start';

/**
 * The API's side of the `loanApproval` workflow: start it for a submitted application, and send it the
 * decisions as Updates. A refusal by the workflow (its validator or a business rule of the final step)
 * comes back as a 409 with the workflow's code; Temporal out of reach is a 503.
 */

export async function startLoanApproval(deps: RouteDeps, application: LoanApplication, stepTimeLimitSeconds: number): Promise<void> {
  const input: LoanApprovalInput = {
    applicationId: application.id,
    enterpriseId: application.enterpriseId,
    branchId: application.branchId,
    applicationNumber: application.number,
    stepTimeLimitSeconds,
    finalStep: application.finalStep,
  };
  try {
    await startWorkflow(deps, 'loanApproval', { workflowId: application.workflowId, args: [input] });
  } catch (error) {
    deps.logger.error({ err: error, application: application.id }, 'could not start the loan approval workflow');
    await markApplicationFailed(deps.knex, application.id, 'The approval workflow could not be started (Temporal unreachable); submit the application again.');
    throw new AppError('unavailable', 'workflow_unavailable', 'The application was recorded but its approval could not be started: Temporal is unreachable. Submit it again.');
  }
}

async function update<Arg>(deps: RouteDeps, application: LoanApplication, name: 'decide' | 'withdraw', arg: Arg): Promise<ApprovalView> {
  try {
    return await deps.temporal.workflow.getHandle(application.workflowId).executeUpdate<ApprovalView, [Arg]>(name, { args: [arg] });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      throw new AppError('conflict', error.cause.type ?? 'refused', error.cause.message);
    }
    if (error instanceof WorkflowNotFoundError) throw new AppError('conflict', 'application_closed', 'The approval process of this application has ended.');
    deps.logger.error({ err: error, application: application.id, update: name }, 'loan approval update failed');
    throw new AppError('unavailable', 'workflow_unavailable', 'The approval workflow could not be reached: try again.');
  }
}

export const decideOnApplication = (deps: RouteDeps, application: LoanApplication, decision: DecisionInput) => update(deps, application, 'decide', decision);

export const withdrawApplication = (deps: RouteDeps, application: LoanApplication, withdrawal: WithdrawalInput) => update(deps, application, 'withdraw', withdrawal);
