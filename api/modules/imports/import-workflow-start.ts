import { WorkflowNotFoundError } from '@temporalio/common';
import { markImportFailed, markImportValidating, refuseSettled } from '../../../activities/imports/validation';
import { AppError } from '../../../domain/errors';
import type { importWorkflow } from '../../../workflows/import.workflow';
import { importWorkflowId } from '../../../workflows/identities';
import type { Principal } from '../../auth/principal';
import type { AppContext } from '../../context';
import type { RouteDeps } from '../../deps';
import { withinTemporalDeadline } from '../../temporal-deadline';
import { startWorkflowFor } from '../../workflow-start';

/**
 * Asks for an import's validation (docs/domain.md §15.1): the import's workflow of an earlier request is ended (its
 * dry run would be stale), the import becomes `validating`, and its workflow is started anew; it validates, ties
 * out, runs the dry run, then waits for apply's approval. A refused or applied import is refused here.
 */
export async function validateThroughWorkflow(
  input: { deps: RouteDeps; principal: Principal; ctx: AppContext },
  imported: { id: string; enterprise_id: string },
): Promise<void> {
  const { deps, principal, ctx } = input;
  const { status } = await deps.knex('imports').where({ id: imported.id }).first('status');
  refuseSettled(status as string); // before its workflow is ended: an applying import's must go on
  const workflowId = importWorkflowId(imported.id);
  await withinTemporalDeadline(deps.temporal, () =>
    deps.temporal.workflow.getHandle(workflowId).terminate('validated again'),
  ).catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) return; // none running: the usual case
    ctx.state.log.error({ err: error, workflowId }, "could not end the import's earlier workflow");
    throw new AppError(
      'unavailable',
      'workflow_unavailable',
      "Temporal is unreachable: the import's workflow could not be restarted. Try again.",
    );
  });
  await markImportValidating(deps.activities, principal, imported.id);
  const asked = { importId: imported.id, requestedBy: principal.userId, requestId: principal.requestId };
  // Apply's approval wakes the workflow; it reads the status once a workflow day anyway.
  const lookSeconds = Math.max(1, Math.round(deps.workflowDayMs / 1000));
  await startWorkflowFor<typeof importWorkflow>(
    deps,
    'importWorkflow',
    {
      workflowId,
      args: [{ ...asked, lookSeconds }],
      tags: { enterpriseId: imported.enterprise_id, businessId: imported.id },
    },
    {
      what: 'the validation',
      markFailed: () =>
        markImportFailed(deps.activities, {
          ...asked,
          failure: "The import's workflow could not be started (Temporal unreachable): ask for the validation again.",
        }),
      log: ctx.state.log,
    },
  );
}
