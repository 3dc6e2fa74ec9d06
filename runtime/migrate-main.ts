import { CleanupStack, runMain } from './cleanup-stack';
import { loadConfig } from './config';
import { createLogger } from './logger';
import { provideDatabase } from './services';
import { openMigratedDatabase } from './start-components';

/** `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded database), then exits. */
runMain('migrate', async () => {
  const config = loadConfig();
  const logger = createLogger(config, 'coopbank-migrate');
  const cleanup = new CleanupStack(logger);
  try {
    const url = await provideDatabase(config, logger, cleanup);
    await openMigratedDatabase(config, url, 'migrate', logger, cleanup);
  } finally {
    await cleanup.runAll();
  }
});
