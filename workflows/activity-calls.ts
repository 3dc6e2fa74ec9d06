import type { RetryPolicy } from '@temporalio/workflow';

// How the workflows call their activities: the retry policies by name, and the text a failed run records.
// The values are those the recorded histories were made with: a change alters the commands a workflow emits.

/** A step's transient faults (a deadlock, a lost worker): retried with backoff, bounded. */
export const stepRetry: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 10 };

/** A run's bookkeeping (its start, its failure): bounded, with the server's default backoff. */
export const bookkeepingRetry: RetryPolicy = { maximumAttempts: 10 };

/** A diagnostic answers soon or fails. */
export const diagnosticRetry: RetryPolicy = { maximumAttempts: 3 };

/** The failure a run records: the error's message. */
export const failureText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** An activity's failure wraps the refusal (its cause), whose message says what to do: that message first. */
export const refusalText = (error: unknown): string =>
  (error as { cause?: Error }).cause?.message ?? failureText(error);
