import { AppError } from '../domain/errors';
import type { Refusal } from '../domain/refusal';

/** A business refusal returned to a workflow's Update handler, which turns it into the Update's failure. */
export interface Refused extends Refusal {
  outcome: 'refused';
}

/**
 * Runs an activity whose refusal is an answer for the user, not a failure of the activity: a business rule
 * (wrong state, a credit cap, an account that is not the member's…) comes back as a value, nothing written;
 * anything else throws and is retried.
 */
export async function refusalAsOutcome<T>(work: () => Promise<T>): Promise<T | Refused> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError)
      return { outcome: 'refused', kind: error.kind, code: error.code, message: error.message };
    throw error;
  }
}
