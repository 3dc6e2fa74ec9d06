import { CleanupStack, runMain, stopOnSignal } from './cleanup-stack';
import { ConfigError, loadConfig } from './config';
import { createLogger } from './logger';
import { openMigratedDatabase, startApi } from './start-components';

/** `npm run api`: the HTTP API alone, against an external PostgreSQL and Temporal (production). */
runMain('api', async () => {
  const config = loadConfig();
  if (config.databaseUrl === undefined) throw new ConfigError('DATABASE_URL', 'is required by npm run api (npm start embeds one)');
  if (config.temporalAddress === undefined) throw new ConfigError('TEMPORAL_ADDRESS', 'is required by npm run api (npm start embeds one)');
  const logger = createLogger(config, 'coopbank-api');
  const cleanup = new CleanupStack(logger);
  stopOnSignal(cleanup, logger);
  try {
    const knex = await openMigratedDatabase(config.databaseUrl, 'api', logger, cleanup);
    const { port } = await startApi(config, knex, config.temporalAddress, logger, cleanup);
    logger.info({ port }, 'api listening');
  } catch (error) {
    await cleanup.runAll();
    throw error;
  }
});
