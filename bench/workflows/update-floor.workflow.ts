import { condition, defineUpdate, proxyLocalActivities, setHandler } from '@temporalio/workflow';

/**
 * The bench's reference for an approval decision: a workflow whose Updates do nothing, so that an Update's round
 * trip (client, Temporal server, worker, back) is measured alone on the same server and the same kind of worker.
 * Bundled by bench/update-floor.ts for a worker of its own, never by the product's worker.
 */

/** What each Update sends: `last` ends the workflow once answered. */
interface FloorCall {
  last: boolean;
}

/** Answers at once: the floor of any Update. */
export const emptyUpdate = defineUpdate<number, [FloorCall]>('floorEmpty');
/** Runs one local activity that does nothing: the floor of a decision's shape (an Update persisting through one). */
export const localActivityUpdate = defineUpdate<number, [FloorCall]>('floorLocalActivity');

/** The bench worker's one activity. */
export interface FloorActivities {
  nothing(): Promise<number>;
}

const { nothing } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '30 seconds' });

export async function updateFloor(): Promise<number> {
  let answered = 0;
  let done = false;
  const answer = (call: FloorCall) => {
    answered += 1;
    done = call.last;
    return answered;
  };
  setHandler(emptyUpdate, (call) => answer(call));
  setHandler(localActivityUpdate, async (call) => {
    await nothing();
    return answer(call);
  });
  await condition(() => done);
  return answered;
}
