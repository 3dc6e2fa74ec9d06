import { patched, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ImportReconciliation } from '../activities/imports/reconciliation';
import { stepRetry } from './activity-calls';

// Each step is one transaction; a batch is at most a thousand rows.
const { importStatus, applyImportBatch, openImportBooks, reconcileImport }
  = proxyActivities<Activities>({ startToCloseTimeout: '30 minutes', retry: stepRetry });

export interface ImportWorkflowInput {
  importId: string;
  /** How often the import's status is read while apply waits for its four-eyes decision. */
  decisionPollSeconds: number;
  /** How long a batch may run before Temporal gives it to another worker: the time a lost worker's batch takes to come back. */
  batchTimeoutSeconds?: number;
}

/**
 * A batch's own timeout: a worker killed inside one is noticed only when it expires, so 30 minutes (the first
 * workflows') left a crashed apply stalled that long. Two minutes, as the provisioning run's batches.
 */
function batchActivities(input: ImportWorkflowInput) {
  if (!patched('import-batch-timeout')) return { applyImportBatch };
  return proxyActivities<Activities>({ startToCloseTimeout: `${input.batchTimeoutSeconds ?? 120} seconds`, retry: stepRetry });
}

export type ImportOutcome = { status: 'uploaded' } | { status: 'applied'; reconciliation: ImportReconciliation };

/**
 * One go-live import (docs/domain.md §15.1), workflow `import-{id}`, started by a validation that found no
 * problem (the validation, tie-out and dry run ran in the request, which answers with them): it waits for apply's
 * four-eyes decision (the import becomes `applying`), applies every kind in batches, posts the opening entry, and
 * ends with the reconciliation. Every step is an activity that finds what an earlier attempt left: a worker killed
 * mid-apply resumes after the last batch recorded. A new upload makes the import `uploaded`: the workflow ends, the
 * next validation starts it again.
 */
export async function importWorkflow(input: ImportWorkflowInput): Promise<ImportOutcome> {
  const { importId } = input;
  for (let status = await importStatus({ importId }); status !== 'applying'; status = await importStatus({ importId })) {
    if (status !== 'validated') return { status: status as 'uploaded' };
    await sleep(input.decisionPollSeconds * 1000);
  }
  // The activity picks the next kind and batch itself, so a new kind of file changes no command of this workflow.
  const batches = batchActivities(input);
  for (let done = false; !done;) done = (await batches.applyImportBatch({ importId })).done;
  await openImportBooks({ importId });
  return { status: 'applied', reconciliation: await reconcileImport({ importId }) };
}
