import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { stepRetry } from './activity-calls';

// One transaction per model proposed; a large cooperative's models take seconds, not minutes.
const { proposeDueRecurringEntries } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: stepRetry,
});

export interface RecurringEntriesInput {
  enterpriseId: string;
}

/**
 * The daily pass of an enterprise's recurring entries (docs/domain.md §12.7), started by the Schedule
 * `recurring-entries-{enterpriseId}`: the draft of each model due by the business date, proposed once. A retry or a
 * second run the same day finds them proposed (one per model and period, unique) and proposes nothing more.
 */
export async function recurringEntries(input: RecurringEntriesInput) {
  return proposeDueRecurringEntries({ enterpriseId: input.enterpriseId });
}
