import { NativeConnection } from '@temporalio/worker';
import pino from 'pino';
import { createKnex } from '../../db/knex';
import { createWorker, installTemporalRuntime } from '../../runtime/worker';
import { reportReady } from './loopback';

/**
 * A worker of the project's workflows and activities (runtime/worker.ts, as `npm run worker` creates it) in
 * a process of its own, so that the soak can watch its memory apart from the API's and the load's.
 * BENCH_DATABASE_URL, BENCH_TEMPORAL_ADDRESS and BENCH_TASK_QUEUE say where it works.
 */
async function main(): Promise<void> {
  const setting = (name: string): string => {
    const value = process.env[name];
    if (value === undefined) throw new Error(`${name} is not set`);
    return value;
  };
  installTemporalRuntime(pino({ level: 'warn' }));
  const knex = createKnex(setting('BENCH_DATABASE_URL'), { poolMax: 10 });
  const connection = await NativeConnection.connect({ address: setting('BENCH_TEMPORAL_ADDRESS') });
  const worker = await createWorker({ connection, namespace: 'default', taskQueue: setting('BENCH_TASK_QUEUE'), knex });
  reportReady(0);
  await worker.run();
}

main().catch((error: unknown) => {
  process.stderr.write(`bench worker: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
