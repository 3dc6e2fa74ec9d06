import { ApplicationFailure } from '@temporalio/workflow';
import type { ErrorCode } from '../domain/error-catalogue';
import { failureOfRefusal, refusal } from '../domain/refusal';

/**
 * Refuses an Update (in its validator or its handler): the caller receives a non-retryable failure carrying the
 * refusal (domain/refusal.ts: the code, and the kind the API maps to its status). Only an ApplicationFailure
 * reaches the caller; any other error would fail the workflow task.
 */
export const refuse = (code: ErrorCode, message: string): never => {
  throw ApplicationFailure.create(failureOfRefusal(refusal(code, message)));
};
