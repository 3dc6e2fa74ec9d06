import { asyncLocalStorage } from '@temporalio/activity';

/**
 * Tells Temporal that the activity running is alive, with how far it got: a long step (a month end's savings
 * interest, batch after batch) heartbeats after each batch, so a lost worker is noticed within its heartbeat timeout
 * rather than at the end of the step's time. Nothing outside an activity (a test calling the work directly).
 */
export function heartbeat(progress: Record<string, unknown>): void {
  asyncLocalStorage.getStore()?.heartbeat(progress);
}
