import { WorkflowNotFoundError } from '@temporalio/common';
import { dryRunImport } from '../../../activities/imports/dry-run';
import { tieOutImport } from '../../../activities/imports/tie-out';
import { validateImport } from '../../../activities/imports/validation';
import { AppError } from '../../../domain/errors';
import type { importWorkflow } from '../../../workflows/import.workflow';
import { importWorkflowId } from '../../../workflows/identities';
import type { Principal } from '../../auth/principal';
import type { AppContext } from '../../context';
import type { RouteDeps } from '../../deps';
import { withinTemporalDeadline } from '../../temporal-deadline';
import { startWorkflowFor } from '../../workflow-start';

/** Apply's decision is read every 5 minutes of a workflow day (tests shorten the day). */
const decisionPollsPerDay = 288;

/**
 * Validates an import (docs/domain.md §15.1): every kind's rows, then, without a problem, the tie-out and the dry
 * run, each one transaction; then starts the import's workflow anew, which waits for apply's decision. One that
 * waited on an earlier validation is ended first: its dry run is stale.
 */
export async function validateThroughWorkflow(input: { deps: RouteDeps; principal: Principal; ctx: AppContext }, imported: { id: string; enterprise_id: string }): Promise<void> {
  const { deps, principal, ctx } = input;
  const { status } = await deps.knex('imports').where({ id: imported.id }).first('status');
  if (['applying', 'applied', 'cancelled'].includes(status as string)) throw new AppError('conflict', 'import_applied', `The import is ${status as string}: it is not validated again.`);
  const workflowId = importWorkflowId(imported.id);
  await withinTemporalDeadline(deps.temporal, () => deps.temporal.workflow.getHandle(workflowId).terminate('validated again')).catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) return; // none running: the usual case
    ctx.state.log.error({ err: error, workflowId }, 'could not end the import\'s earlier workflow');
    throw new AppError('unavailable', 'workflow_unavailable', 'Temporal is unreachable: the import\'s workflow could not be restarted. Try again.');
  });
  const validated = await validateImport(deps.activities, principal, imported.id);
  if (validated.status === 'rejected') return;
  await tieOutImport(deps.activities, imported.id);
  await dryRunImport(deps.activities, imported.id);
  const decisionPollSeconds = Math.max(1, Math.round(deps.workflowDayMs / decisionPollsPerDay / 1000));
  await startWorkflowFor<typeof importWorkflow>(deps, 'importWorkflow', {
    workflowId, args: [{ importId: imported.id, decisionPollSeconds }], tags: { enterpriseId: imported.enterprise_id, businessId: imported.id },
  }, { what: 'the validation', markFailed: async () => undefined, log: ctx.state.log });
}
