import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import { tagWorkflow } from './tags';
import type { Activities } from '../activities';
import { refusalText, stepRetry } from './activity-calls';

const { markExerciceClosingFailed } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: stepRetry,
});

export interface YearEndClosingInput {
  closingId: string;
  enterpriseId: string;
  exerciceCode: string;
  /**
   * How long a step may run before Temporal gives it to another worker (default 120): the time a step lost with its
   * worker takes to come back.
   */
  stepTimeoutSeconds?: number;
}

/**
 * The closing of an accounting year (docs/architecture.md §9), one activity per step so that each shows in the
 * workflow's history: the closing entries and the lock of the year, then the opening entries of the next year.
 * The progress lives in the database with each step's entries: a retried step, or the workflow started again
 * after a failure, skips what is done.
 */
export async function yearEndClosing(
  input: YearEndClosingInput,
): Promise<{ result: string | null; closingEntries: number; openingEntries: number }> {
  tagWorkflow({ enterpriseId: input.enterpriseId, businessId: input.exerciceCode });
  const { closeIncomeAndExpenses, carryForwardBalances } = proxyActivities<Activities>({
    startToCloseTimeout: `${input.stepTimeoutSeconds ?? 120} seconds`,
    retry: stepRetry,
  });
  try {
    const closed = await closeIncomeAndExpenses({ closingId: input.closingId });
    const opened = await carryForwardBalances({ closingId: input.closingId });
    return { result: closed.result, closingEntries: closed.entries, openingEntries: opened.entries };
  } catch (error) {
    const failure = refusalText(error);
    await markExerciceClosingFailed({ closingId: input.closingId, failure });
    throw ApplicationFailure.nonRetryable(`closing ${input.closingId} failed`, 'ExerciceClosingFailed');
  }
}
