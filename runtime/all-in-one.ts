import { CleanupStack, runMain, stopOnSignal } from './cleanup-stack';
import { loadConfig } from './config';
import { createLogger } from './logger';
import { provideDatabase, provideTemporal } from './services';
import { openMigratedDatabase, startApi, startWorker } from './start-components';

/**
 * `npm start`: everything on one machine in one command. PostgreSQL and Temporal are embedded unless
 * DATABASE_URL / TEMPORAL_ADDRESS point elsewhere; migrations run; then the API and a worker.
 */
runMain('start', async () => {
  const config = loadConfig();
  const logger = createLogger(config);
  const cleanup = new CleanupStack(logger);
  stopOnSignal(cleanup, logger, { watchParent: true });
  try {
    const databaseUrl = await provideDatabase(config, logger, cleanup);
    const temporal = await provideTemporal(config, logger, cleanup);
    const knex = await openMigratedDatabase(config, databaseUrl, 'all-in-one', logger, cleanup);
    await startWorker(config, knex, temporal.address, logger, cleanup);
    const { port } = await startApi(config, knex, temporal.address, logger, cleanup);
    const base = `http://localhost:${port}`;
    const metricsTokenPlace = config.metricsToken === undefined ? `${config.dataDir}/metrics-token` : 'METRICS_TOKEN';
    process.stdout.write(
      [
        '',
        'Coopbank is running. Ctrl-C stops everything.',
        `  API            ${base}/api/v1/`,
        `  API docs       ${base}/api/v1/docs/`,
        `  Readiness      ${base}/readyz`,
        `  Metrics        ${base}/metrics (Authorization: Bearer <the token in ${metricsTokenPlace}>)`,
        `  Temporal UI    ${temporal.uiUrl ?? `(external Temporal at ${temporal.address})`}`,
        '',
      ].join('\n') + '\n',
    );
  } catch (error) {
    await cleanup.runAll();
    throw error;
  }
});
