import type { Client } from '@temporalio/client';

/**
 * How long a request waits on Temporal (starting a workflow, creating or changing a Schedule) before the API
 * answers without it. Unbounded, the client would retry for some twenty seconds while the user waits.
 */
const temporalDeadlineMs = 5000;

export function withinTemporalDeadline<T>(client: Client, work: () => Promise<T>): Promise<T> {
  return client.withDeadline(Date.now() + temporalDeadlineMs, work);
}
