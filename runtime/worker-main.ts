import { CleanupStack, runMain, stopOnSignal } from './cleanup-stack';
import { ConfigError, loadConfig } from './config';
import { createLogger } from './logger';
import { connectDatabase } from './services';
import { startWorker } from './start-components';

/** `npm run worker`: one Temporal worker against an external PostgreSQL and Temporal (production; scale out). */
runMain('worker', async () => {
  const config = loadConfig();
  if (config.databaseUrl === undefined) throw new ConfigError('DATABASE_URL', 'is required by npm run worker');
  if (config.temporalAddress === undefined) throw new ConfigError('TEMPORAL_ADDRESS', 'is required by npm run worker');
  const logger = createLogger(config, 'coopbank-worker');
  const cleanup = new CleanupStack(logger);
  stopOnSignal(cleanup, logger);
  try {
    // The worker never migrates: the API owns the schema, so a rolling deploy has one migrator.
    const knex = await connectDatabase(config.databaseUrl, 'coopbank-worker');
    cleanup.push('worker database pool', () => knex.destroy());
    await startWorker(config, knex, config.temporalAddress, logger, cleanup);
    logger.info({ taskQueue: config.temporalTaskQueue }, 'worker polling');
  } catch (error) {
    await cleanup.runAll();
    throw error;
  }
});
