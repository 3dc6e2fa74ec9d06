import { proxyActivities, sleep } from '@temporalio/workflow';
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
  for (let done = false; !done;) done = (await applyImportBatch({ importId })).done;
  await openImportBooks({ importId });
  return { status: 'applied', reconciliation: await reconcileImport({ importId }) };
}
