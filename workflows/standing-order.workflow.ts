import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { stepRetry } from './activity-calls';

// One transaction: the order locked, its due run and any run waiting for funds.
const { runStandingOrder } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: stepRetry });

export interface StandingOrderInput {
  standingOrderId: string;
}

/**
 * The daily pass of one standing order (docs/domain.md §13.5), started by its Schedule `standing-order-{id}`. A
 * second start the same day (the Schedule firing twice, a retry) finds the run recorded and moves nothing more.
 */
export async function standingOrder(input: StandingOrderInput) {
  return runStandingOrder({ standingOrderId: input.standingOrderId });
}
