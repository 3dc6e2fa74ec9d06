import { ApplicationFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ImportReconciliation } from '../activities/imports/reconciliation';
import { bookkeepingRetry, refusalText, stepRetry } from './activity-calls';
import { requestApprovedSignal } from './definitions';

// Validation, tie-out and dry run are one transaction each over the whole files: sized for 50 000 members.
const { validateImport, tieOutImport, dryRunImport, openImportBooks, reconcileImport } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  retry: stepRetry,
});
const { importStatus, markImportFailed } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: bookkeepingRetry,
});

export interface ImportWorkflowInput {
  importId: string;
  /** Who asked for the validation, and their request: the author of its audit rows. */
  requestedBy: string;
  requestId: string | null;
  /**
   * How long apply's approval is awaited before the import's status is read anyway (a workflow day): the signal may be
   * lost.
   */
  lookSeconds: number;
  /**
   * How long a batch may run before Temporal gives it to another worker: the time a lost worker's batch takes to
   * come back. Default 120 (a batch of 1 000 rows takes seconds); the worker-kill test shortens it.
   */
  batchTimeoutSeconds?: number;
}

export type ImportOutcome = { status: string } | { status: 'applied'; reconciliation: ImportReconciliation };

/**
 * Validation, then the tie-out and the dry run, each an activity of one transaction. The import ends `validated`
 * or `rejected` (or whatever a new upload made it meanwhile: each step then does nothing). A step that fails for
 * a reason of the system leaves the import `failed`, never `validating`.
 */
async function validate(input: ImportWorkflowInput): Promise<string> {
  const asked = { importId: input.importId, requestedBy: input.requestedBy, requestId: input.requestId };
  try {
    const { status } = await validateImport(asked);
    if (status !== 'validating') return status;
    await tieOutImport({ importId: input.importId });
    return (await dryRunImport({ importId: input.importId })).status;
  } catch (error) {
    await markImportFailed({ ...asked, failure: refusalText(error) });
    throw ApplicationFailure.nonRetryable(
      `the validation of import ${input.importId} failed`,
      'ImportValidationFailed',
    );
  }
}

/**
 * Waits while the import is `validated`: woken by apply's approval (a signal), and reading the status once a workflow
 * day anyway.
 */
async function awaitApproval(importId: string, lookSeconds: number): Promise<string> {
  let woken = false;
  setHandler(requestApprovedSignal, () => {
    woken = true;
  });
  for (;;) {
    // Cleared before the read: an approval signalled while the status is being read is not lost.
    woken = false;
    const status = await importStatus({ importId });
    if (status !== 'validated') return status;
    await condition(() => woken, lookSeconds * 1000);
  }
}

/**
 * One go-live import (docs/domain.md §15.1), workflow `import-{id}`, started by each request of a validation
 * (which ends the one before): it validates, ties out and runs the dry run; validated, it waits for apply's
 * four-eyes approval, applies every kind in batches, posts the opening entry, and ends with the reconciliation.
 * Every step is an activity that finds what an earlier attempt left: a worker killed mid-apply resumes after the
 * last batch recorded. A new upload makes the import `uploaded`: the workflow ends at its next look.
 */
export async function importWorkflow(input: ImportWorkflowInput): Promise<ImportOutcome> {
  const { importId } = input;
  const validated = await validate(input);
  if (validated !== 'validated') return { status: validated };
  const status = await awaitApproval(importId, input.lookSeconds);
  if (status !== 'applying') return { status };
  // The activity picks the next kind and batch itself, so a new kind of file changes no command of this workflow.
  const { applyImportBatch } = proxyActivities<Activities>({
    startToCloseTimeout: `${input.batchTimeoutSeconds ?? 120} seconds`,
    retry: stepRetry,
  });
  for (let done = false; !done;) done = (await applyImportBatch({ importId })).done;
  await openImportBooks({ importId });
  return { status: 'applied', reconciliation: await reconcileImport({ importId }) };
}
