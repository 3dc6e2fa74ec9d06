import { ApplicationFailure } from '@temporalio/workflow';

/**
 * Refuses an Update (in its validator or its handler): the caller receives a non-retryable failure whose type
 * is the stable code and whose first detail is the error kind (conflict, validation…), which the API maps to
 * its status. Only an ApplicationFailure reaches the caller; any other error would fail the workflow task.
 */
export const refuse = (code: string, message: string, kind = 'conflict'): never => {
  throw ApplicationFailure.create({ type: code, message, nonRetryable: true, details: [kind] });
};
