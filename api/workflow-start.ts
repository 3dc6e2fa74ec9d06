import type { Workflow, WorkflowStartOptions } from '@temporalio/client';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors';
import { startTags, type WorkflowTags } from '../workflows/identities';
import type { RouteDeps } from './deps';
import { withinTemporalDeadline } from './temporal-deadline';

/**
 * A workflow to start: its id (workflows/identities.ts), its arguments, and what it is tagged with but the code, read
 * here.
 */
interface WorkflowStart<W extends Workflow> {
  workflowId: string;
  args: Parameters<W>;
  tags: Omit<WorkflowTags, 'enterpriseCode'>;
}

/**
 * Starts a workflow on the API's task queue with its search attributes, bounded in time; the caller turns a failure
 * into its 503.
 */
async function startWorkflow<W extends Workflow>(
  deps: Pick<RouteDeps, 'temporal' | 'taskQueue'>,
  workflowType: string,
  options: WorkflowStart<W>,
  enterpriseCode: string,
): Promise<void> {
  // The arguments are checked against the workflow's signature here, at the caller's `<typeof workflow>`.
  const startOptions: WorkflowStartOptions = {
    taskQueue: deps.taskQueue,
    workflowId: options.workflowId,
    args: options.args,
    typedSearchAttributes: startTags({ ...options.tags, enterpriseCode }),
  };
  await withinTemporalDeadline(deps.temporal, () => deps.temporal.workflow.start(workflowType, startOptions));
}

export interface StartRecovery {
  /** What was recorded, for the messages: "the application", "the replay"… */
  what: string;
  /** Ends the recorded request as failed, so it does not wait forever for a workflow that never started. */
  markFailed: () => Promise<void>;
  log: Logger;
}

/**
 * Starts the workflow that carries a request just recorded. When Temporal cannot take it, the request is
 * marked failed and the caller answers 503: the request was recorded, its process was not started.
 */
export async function startWorkflowFor<W extends Workflow>(
  deps: Pick<RouteDeps, 'temporal' | 'taskQueue' | 'knex'>,
  workflowType: string,
  options: WorkflowStart<W>,
  recovery: StartRecovery,
): Promise<void> {
  // The code never changes (an enterprise's PATCH does not take it): read before the start, outside its 503.
  const { code } = await deps.knex('enterprises').where({ id: options.tags.enterpriseId }).first('code');
  try {
    await startWorkflow<W>(deps, workflowType, options, code as string);
  } catch (error) {
    recovery.log.error({ err: error, workflowId: options.workflowId }, `could not start the ${workflowType} workflow`);
    await recovery.markFailed();
    throw new AppError(
      'unavailable',
      'workflow_unavailable',
      `${recovery.what[0]!.toUpperCase()}${recovery.what.slice(1)} was recorded ` +
        `but its workflow could not be started: Temporal is unreachable. Try again.`,
    );
  }
}

/** A recorded request of a branch that its own workflow carries (an application, a withdrawal). */
interface NumberedRequest {
  workflowId: string;
  enterpriseId: string;
  branchId: string;
  number: string;
}

/** Starts a request's workflow, tagged with its enterprise, its branch and its number as the business id. */
export async function startWorkflowOfRequest<W extends Workflow>(
  deps: Pick<RouteDeps, 'temporal' | 'taskQueue' | 'knex'>,
  workflowType: string,
  request: NumberedRequest,
  args: Parameters<W>,
  recovery: StartRecovery,
): Promise<void> {
  const tags = { enterpriseId: request.enterpriseId, branchId: request.branchId, businessId: request.number };
  await startWorkflowFor<W>(deps, workflowType, { workflowId: request.workflowId, args, tags }, recovery);
}
