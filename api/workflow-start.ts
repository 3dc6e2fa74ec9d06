import type { WorkflowStartOptions } from '@temporalio/client';
import type { RouteDeps } from './deps';

/** How long the API waits for Temporal to accept a new workflow before it answers 503. */
const startDeadlineMs = 5000;

/**
 * Starts a workflow on the API's task queue, bounded in time: with Temporal out of reach the client would
 * otherwise retry for some twenty seconds while the user waits. The caller turns a failure into its 503.
 */
export async function startWorkflow(deps: Pick<RouteDeps, 'temporal' | 'taskQueue'>, workflowType: string, options: { workflowId: string; args: unknown[] }): Promise<void> {
  const startOptions: WorkflowStartOptions = { taskQueue: deps.taskQueue, workflowId: options.workflowId, args: options.args };
  await deps.temporal.withDeadline(Date.now() + startDeadlineMs, () => deps.temporal.workflow.start(workflowType, startOptions));
}
