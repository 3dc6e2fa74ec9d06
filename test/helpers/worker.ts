import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Knex } from '../../db/knex';
import pino from 'pino';
import { createWorker, installTemporalRuntime } from '../../runtime/worker';
import { testEnvironment } from './environment';

// Worker logs of WARN and above reach the test output; the rest would drown it.
installTemporalRuntime(pino({ level: 'warn' }));

export const newTaskQueue = () => `test-${randomBytes(6).toString('hex')}`;

export interface WorkerContext {
  client: Client;
  taskQueue: string;
}

/**
 * Runs the project's real workflows and activities (against `knex`) on a task queue of their own, for as long
 * as `work` runs, then shuts the worker down. Pass a task queue to run several workers, one after another, on it. The workflow code was bundled once by the test runner.
 */
export async function withWorker<T>(knex: Knex, work: (context: WorkerContext) => Promise<T>, taskQueue = newTaskQueue()): Promise<T> {
  const { temporalAddress, bundlePath } = testEnvironment();
  const workerConnection = await NativeConnection.connect({ address: temporalAddress });
  const clientConnection = await Connection.connect({ address: temporalAddress });
  try {
    const worker = await createWorker({ connection: workerConnection, namespace: 'default', taskQueue, knex, workflowBundlePath: bundlePath });
    const client = new Client({ connection: clientConnection, namespace: 'default' });
    return await worker.runUntil(work({ client, taskQueue }));
  } finally {
    await clientConnection.close();
    await workerConnection.close();
  }
}
