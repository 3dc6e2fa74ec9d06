import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { AppError } from '../domain/errors';
import { refusalOfFailure } from '../domain/refusal';
import type { RouteDeps } from './deps';
import { withinTemporalDeadline } from './temporal-deadline';

/**
 * Sends a human decision to a running workflow as an Update and waits for its answer. A refusal by the workflow (its
 * validator, or a business rule met by its activity) comes back with its catalogue code and kind (domain/refusal.ts); a
 * workflow that has ended answers `ended`; Temporal out of reach, or no worker answering within the deadline, is a 503.
 *
 * After such a 503 the Update may still be delivered (the server holds it until a worker takes it), so its id comes
 * from the client's Idempotency-Key (`operationKey`): a retry with the same key joins that Update and answers its
 * outcome instead of deciding twice or being refused as a second decision.
 */
export async function executeWorkflowUpdate<Result, Arg>(
  deps: Pick<RouteDeps, 'temporal' | 'logger'>,
  target: { workflowId: string; updateId: string },
  update: UpdateDefinition<Result, [Arg]>,
  arg: Arg,
  ended: AppError,
): Promise<Result> {
  const { workflowId, updateId } = target;
  try {
    return await withinTemporalDeadline(deps.temporal, () =>
      deps.temporal.workflow.getHandle(workflowId).executeUpdate(update, { args: [arg], updateId }),
    );
  } catch (error) {
    const refusal =
      error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure
        ? refusalOfFailure(error.cause)
        : undefined;
    if (refusal !== undefined) throw new AppError(refusal.kind, refusal.code, refusal.message);
    // The workflow answered with a failure that is no refusal: a fault (500), not a Temporal out of reach to retry.
    if (error instanceof WorkflowUpdateFailedError) throw error;
    if (error instanceof WorkflowNotFoundError) throw ended;
    deps.logger.error({ err: error, workflowId, update: update.name }, 'workflow update failed');
    throw new AppError(
      'unavailable',
      'workflow_unavailable',
      'The workflow did not answer in time: retry with the same Idempotency-Key (the request may still take effect).',
    );
  }
}
