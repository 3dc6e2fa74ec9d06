import { ApplicationFailure, continueAsNew, patched, proxyActivities } from '@temporalio/workflow';
import { tagWorkflow } from './tags';
import type { Activities } from '../activities';
import { bookkeepingRetry, failureText, stepRetry } from './activity-calls';

const { startProvisioningRun, markProvisioningRunFailed } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: bookkeepingRetry,
});
// Account by account, each its own transaction: a day's maturities of a large cooperative take minutes.
const { matureDueTermDeposits } = proxyActivities<Activities>({ startToCloseTimeout: '15 minutes', retry: stepRetry });

const defaultBatchSize = 10_000;

export interface ProvisioningRunInput {
  enterpriseId: string;
  /** Absent when the Schedule starts the run: the first activity creates it for the business date. */
  runId?: string;
  /**
   * About this many loans per batch (one transaction each; a borrower's loans are never split); default 10 000,
   * a few megabytes of the worker's memory, and few enough batches that their round trips through Temporal
   * do not outweigh the work.
   */
  batchSize?: number;
  /** How long one batch may take before it is retried elsewhere (a worker lost mid-batch); default 2 minutes. */
  batchTimeoutSeconds?: number;
  /** Batches per run before continuing as new, which keeps each run's history short; default 100. */
  batchesPerRun?: number;
}

/**
 * The provisioning run of one enterprise (docs/architecture.md §5): started daily by the Schedule
 * `provisioning-{enterpriseId}` or by the API for a date. The cursor and the figures live in the database, written with
 * each batch's postings: a retried batch or a new run after continue-as-new resumes where the last commit left off.
 */
export async function provisioningRun(
  input: ProvisioningRunInput,
): Promise<{ runId: string; status: string; loansProcessed: number }> {
  // The daily run also matures the term deposits due by the business date, on their day (docs/domain.md §9).
  if (input.runId === undefined && patched('daily-term-deposit-maturities'))
    await matureDueTermDeposits({ enterpriseId: input.enterpriseId });
  const runId =
    input.runId ??
    (
      await startProvisioningRun({
        enterpriseId: input.enterpriseId,
        asOf: null,
        trigger: 'schedule',
        requestedBy: null,
      })
    ).id;
  tagWorkflow({ enterpriseId: input.enterpriseId, businessId: runId });
  const { provisionBatch } = proxyActivities<Activities>({
    startToCloseTimeout: `${input.batchTimeoutSeconds ?? 120} seconds`,
    retry: stepRetry,
  });
  try {
    for (let batch = 0; batch < (input.batchesPerRun ?? 100); batch += 1) {
      const progress = await provisionBatch({ runId, batchSize: input.batchSize ?? defaultBatchSize });
      if (progress.status !== 'running')
        return { runId, status: progress.status, loansProcessed: progress.loansProcessed };
    }
  } catch (error) {
    await markProvisioningRunFailed({ runId, failure: failureText(error) });
    throw ApplicationFailure.nonRetryable(`provisioning run ${runId} failed`, 'ProvisioningRunFailed');
  }
  return continueAsNew<typeof provisioningRun>({ ...input, runId });
}
