import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { round } from './benchmark';
import { percentile } from './load';
import { processCpuMicros } from './process-cpu';
import {
  emptyUpdate,
  localActivityUpdate,
  type FloorActivities,
  type updateFloor,
} from './workflows/update-floor.workflow';

/** p50 and p99 of latencies in milliseconds, to a tenth. */
export function latencyStats(values: readonly number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50Ms: round(percentile(sorted, 0.5), 1), p99Ms: round(percentile(sorted, 0.99), 1) };
}

/** CPU milliseconds per floor circuit, from two readings of microseconds. */
function perCircuit(before: Record<'workerAndClient' | 'temporal', number>, after: typeof before, circuits: number) {
  const per = (key: keyof typeof before) => round((after[key] - before[key]) / 1000 / circuits, 1);
  return { workerAndClient: per('workerAndClient'), temporal: per('temporal') };
}

/**
 * The circuit the floor mimics: as many workflows, each sent as many Updates one after the other, as many in flight.
 */
interface FloorShape {
  workflows: number;
  updatesPerWorkflow: number;
  concurrency: number;
}

const activities: FloorActivities = { nothing: async () => 0 };

/**
 * The floor of an approval decision with Temporal in the loop, on the benchmark's own dev server: workflows of
 * bench/workflows/update-floor.workflow.ts on a task queue of their own, polled by a worker created as the
 * product's is (runtime/worker.ts: the SDK's defaults, the same connection), and sent Updates by a client as the
 * API's (@temporalio/client, one connection). Each workflow gets the Updates a circuit's workflow gets, alternately
 * empty and running one empty local activity, so both floors are measured under the same load.
 */
export async function measureUpdateFloor(
  connection: NativeConnection,
  temporal: { address: string; pid: number; taskQueue: string },
  shape: FloorShape,
) {
  const { address, taskQueue } = temporal;
  const floorQueue = `${taskQueue}-floor`;
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: floorQueue,
    workflowsPath: require.resolve('./workflows/update-floor.workflow'),
    activities,
  });
  const clientConnection = await Connection.connect({ address });
  const client = new Client({ connection: clientConnection });
  const latencies = {
    start: [] as number[],
    empty: [] as number[],
    localActivity: [] as number[],
    circuit: [] as number[],
  };
  const oneWorkflow = async (index: number) => {
    const began = performance.now();
    const handle = await timed(latencies.start, () =>
      client.workflow.start<typeof updateFloor>('updateFloor', {
        taskQueue: floorQueue,
        workflowId: `update-floor-${floorQueue}-${index}`,
      }),
    );
    for (let update = 0; update < shape.updatesPerWorkflow; update += 1) {
      const call = { last: update === shape.updatesPerWorkflow - 1 };
      if (update % 2 === 0) await timed(latencies.empty, () => handle.executeUpdate(emptyUpdate, { args: [call] }));
      else await timed(latencies.localActivity, () => handle.executeUpdate(localActivityUpdate, { args: [call] }));
    }
    latencies.circuit.push(performance.now() - began);
    await handle.result();
  };
  // This process (the worker and the client) and the Temporal server, as a circuit's CPU is counted.
  const cpu = () => {
    const own = process.cpuUsage();
    return { workerAndClient: own.user + own.system, temporal: processCpuMicros(temporal.pid) ?? Number.NaN };
  };
  let cpuBefore = cpu();
  try {
    await worker.runUntil(async () => {
      cpuBefore = cpu();
      await inFlight(shape.workflows, shape.concurrency, oneWorkflow);
    });
  } finally {
    await clientConnection.close();
  }
  // circuit: the start and every Update of one workflow, as a circuit's submission and decisions.
  return {
    start: latencyStats(latencies.start),
    emptyUpdate: latencyStats(latencies.empty),
    localActivityUpdate: latencyStats(latencies.localActivity),
    circuit: latencyStats(latencies.circuit),
    cpuMsPerCircuit: perCircuit(cpuBefore, cpu(), shape.workflows),
  };
}

/** `call`'s answer, its time pushed into `into`. */
async function timed<T>(into: number[], call: () => Promise<T>): Promise<T> {
  const began = performance.now();
  const answer = await call();
  into.push(performance.now() - began);
  return answer;
}

/** `run` for every index below `count`, `concurrency` of them at a time. */
async function inFlight(count: number, concurrency: number, run: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let index = next++; index < count; index = next++) await run(index);
    }),
  );
}
