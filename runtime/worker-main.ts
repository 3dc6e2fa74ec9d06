import { CleanupStack, runMain, stopOnSignal } from './cleanup-stack';
import { loadConfig, requireExternalServices } from './config';
import { createLogger } from './logger';
import { connectDatabase } from './services';
import { exportWorkerProcessMetrics, startWorker } from './start-components';

/** `npm run worker`: one Temporal worker against an external PostgreSQL and Temporal (production; scale out). */
runMain('worker', async () => {
  const config = requireExternalServices(loadConfig(), 'npm run worker');
  const logger = createLogger(config, 'coopbank-worker');
  const cleanup = new CleanupStack(logger);
  stopOnSignal(cleanup, logger);
  try {
    // The worker never migrates: the API owns the schema, so a rolling deploy has one migrator.
    const knex = await connectDatabase(config.databaseUrl, 'coopbank-worker', config.databasePool, logger);
    cleanup.push('worker database pool', () => knex.destroy());
    await startWorker(config, knex, config.temporalAddress, logger, cleanup);
    exportWorkerProcessMetrics(config, knex, cleanup);
    logger.info({ taskQueue: config.temporalTaskQueue }, 'worker polling');
  } catch (error) {
    await cleanup.runAll();
    throw error;
  }
});
