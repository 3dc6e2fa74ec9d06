import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Knex } from '../../db/knex';
import pino from 'pino';
import { createWorker, installTemporalRuntime } from '../../runtime/worker';
import { testClock } from './clock';
import { testEnvironment } from './environment';

// Worker logs of WARN and above reach the test output; the rest would drown it.
installTemporalRuntime(pino({ level: 'warn' }));

export const newTaskQueue = () => `test-${randomBytes(6).toString('hex')}`;

export interface WorkerContext {
  client: Client;
  taskQueue: string;
}

/** The one worker of a task queue in this process, and how many `withWorker` calls use it now. */
interface SharedWorker {
  knex: Knex;
  users: number;
  started: Promise<{ worker: Worker; client: Client; stopped: Promise<void> }>;
}

const running = new Map<string, SharedWorker>();
/** Workers shutting down, by task queue: the next worker of the queue waits until they are gone. */
const stopping = new Map<string, Promise<void>>();

async function startShared(
  knex: Knex,
  taskQueue: string,
): Promise<{ worker: Worker; client: Client; stopped: Promise<void> }> {
  await stopping.get(taskQueue);
  const { temporalAddress, bundlePath } = testEnvironment();
  const workerConnection = await NativeConnection.connect({ address: temporalAddress });
  const clientConnection = await Connection.connect({ address: temporalAddress });
  const worker = await createWorker({
    connection: workerConnection,
    namespace: 'default',
    taskQueue,
    knex,
    workflowBundlePath: bundlePath,
    clock: testClock,
  });
  const stopped = worker.run().finally(async () => {
    await clientConnection.close();
    await workerConnection.close();
  });
  stopped.catch(() => undefined); // reported to the users through `failure` below
  return { worker, client: new Client({ connection: clientConnection, namespace: 'default' }), stopped };
}

/**
 * Runs the project's real workflows and activities (against `knex`) on a task queue, for as long as `work`
 * runs. The workflow code was bundled once by the test runner.
 *
 * Concurrent calls on one task queue share ONE worker, which stops when the last of them ends. Separate workers
 * on one queue made the suite fail by chance: a worker shutting down still took the next workflow task of a
 * workflow it had cached (its sticky queue) and dropped it, and the sibling test's workflow waited for the
 * task's 10 s timeout (test/workflows/test-workers.test.ts). A test that stops a worker on purpose (a lost
 * worker) uses a task queue of its own; calls one after another on a queue run one worker after another.
 */
export async function withWorker<T>(
  knex: Knex,
  work: (context: WorkerContext) => Promise<T>,
  taskQueue = newTaskQueue(),
): Promise<T> {
  let shared = running.get(taskQueue);
  if (shared === undefined) {
    shared = { knex, users: 0, started: startShared(knex, taskQueue) };
    running.set(taskQueue, shared);
  }
  if (shared.knex !== knex) throw new Error(`task queue ${taskQueue} already has a worker on another database`);
  shared.users += 1; // counted before any await, so that no other call stops the worker meanwhile
  try {
    const { client, stopped } = await shared.started;
    const failure = stopped.then(
      () => new Promise<never>(() => undefined),
      (error: unknown) => Promise.reject(error),
    );
    return await Promise.race([work({ client, taskQueue }), failure]);
  } finally {
    shared.users -= 1;
    if (shared.users === 0) await stopShared(taskQueue, shared);
  }
}

async function stopShared(taskQueue: string, shared: SharedWorker): Promise<void> {
  running.delete(taskQueue);
  const done = (async () => {
    const started = await shared.started.catch(() => undefined); // a worker that failed to start has nothing to stop
    if (started === undefined) return;
    if (started.worker.getState() === 'RUNNING') started.worker.shutdown();
    await started.stopped;
  })();
  const gone = done.catch(() => undefined);
  stopping.set(taskQueue, gone);
  try {
    await done;
  } finally {
    if (stopping.get(taskQueue) === gone) stopping.delete(taskQueue);
  }
}
