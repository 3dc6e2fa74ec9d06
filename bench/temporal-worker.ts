import { randomBytes } from 'node:crypto';
import { NativeConnection } from '@temporalio/worker';
import type { Knex } from 'knex';
import pino from 'pino';
import { ensureTemporalCli, startTemporalDevServer } from '../runtime/temporal-dev-server';
import { createWorker, installTemporalRuntime } from '../runtime/worker';
import { freePort } from '../test/helpers/ports';

let logsRouted = false;

interface TemporalOfBench {
  address: string;
  pid: number;
  taskQueue: string;
  /** The worker's connection, for a bench-only worker beside it (bench/update-floor.ts). */
  connection: NativeConnection;
}

/**
 * A Temporal dev server of the benchmark's own and a worker of the project's workflows and activities on
 * `knex`, for as long as `work` runs. `work` gets the server address, its process id, the task queue and the
 * worker's connection.
 */
export async function withTemporalWorker<T>(knex: Knex, work: (temporal: TemporalOfBench) => Promise<T>): Promise<T> {
  // Once per process, before the first native connection: the SDK's info lines would bury the results.
  if (!logsRouted) installTemporalRuntime(pino({ level: 'warn' }));
  logsRouted = true;
  const server = await startTemporalDevServer({
    cliPath: ensureTemporalCli(),
    port: await freePort(),
    namespace: 'default',
  });
  const taskQueue = `bench-${randomBytes(4).toString('hex')}`;
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    const worker = await createWorker({ connection, namespace: 'default', taskQueue, knex });
    return await worker.runUntil(work({ address: server.address, pid: server.pid, taskQueue, connection }));
  } finally {
    await connection.close();
    await server.stop();
  }
}
