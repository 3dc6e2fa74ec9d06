import { CleanupStack, runMain, stopOnSignal } from './cleanup-stack';
import { loadConfig, requireExternalServices } from './config';
import { createLogger } from './logger';
import { openMigratedDatabase, startApi } from './start-components';

/** `npm run api`: the HTTP API alone, against an external PostgreSQL and Temporal (production). */
runMain('api', async () => {
  const config = requireExternalServices(loadConfig(), 'npm run api');
  const logger = createLogger(config, 'coopbank-api');
  const cleanup = new CleanupStack(logger);
  stopOnSignal(cleanup, logger);
  try {
    const knex = await openMigratedDatabase(config, config.databaseUrl, 'api', logger, cleanup);
    const { port } = await startApi(config, knex, config.temporalAddress, logger, cleanup);
    logger.info({ port }, 'api listening');
  } catch (error) {
    await cleanup.runAll();
    throw error;
  }
});
