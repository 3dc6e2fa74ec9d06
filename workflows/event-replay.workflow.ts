import { ApplicationFailure, continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { bookkeepingRetry, failureText, stepRetry } from './activity-calls';

const { markReplayFailed } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: bookkeepingRetry,
});

export interface EventReplayInput {
  requestId: string;
  /** Events per batch (one transaction each). */
  batchSize?: number;
  /** How long one batch may take before it is retried elsewhere (a worker lost mid-batch); default 2 minutes. */
  batchTimeoutSeconds?: number;
  /** Batches per run before continuing as new, which keeps each run's history short; default 50. */
  batchesPerRun?: number;
}

const batchSizeDefault = 200;
const batchesPerRunDefault = 50;

/**
 * Re-runs a range of business events through the current accounting rules (docs/architecture.md §4). The progress and
 * the cursor live in the database, written with each batch's postings, so this workflow carries only the request id: a
 * new run, or a retried batch after a worker died, resumes from the committed cursor.
 */
export async function eventReplay(
  input: EventReplayInput,
): Promise<{ status: string; eventsSeen: number; entriesPosted: number }> {
  const batchSize = input.batchSize ?? batchSizeDefault;
  // A batch is one DB transaction; a transient fault (a deadlock, a lost worker) is retried, bounded.
  const { replayEventBatch } = proxyActivities<Activities>({
    startToCloseTimeout: `${input.batchTimeoutSeconds ?? 120} seconds`,
    retry: stepRetry,
  });
  try {
    for (let batch = 0; batch < (input.batchesPerRun ?? batchesPerRunDefault); batch += 1) {
      const progress = await replayEventBatch({ requestId: input.requestId, batchSize });
      if (progress.status !== 'running')
        return { status: progress.status, eventsSeen: progress.eventsSeen, entriesPosted: progress.entriesPosted };
    }
  } catch (error) {
    await markReplayFailed({ requestId: input.requestId, failure: failureText(error) });
    throw ApplicationFailure.nonRetryable(`event replay ${input.requestId} failed`, 'EventReplayFailed');
  }
  return continueAsNew<typeof eventReplay>(input);
}
