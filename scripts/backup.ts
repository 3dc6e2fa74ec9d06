import path from 'node:path';
import { runMain } from '../runtime/cleanup-stack';
import { loadConfig } from '../runtime/config';
import { backupInstallation } from '../runtime/installation-backup';

/**
 * `npm run backup -- <folder>`: a backup of the running embedded installation (`npm start`, DATA_DIR) into a
 * new folder `<folder>/coopbank-<time>`, taken without stopping it. A compose or other external PostgreSQL is
 * backed up with its own pg_dump (README, "Backup and restore").
 */
runMain('backup', async () => {
  const config = loadConfig();
  if (config.databaseUrl !== undefined) {
    throw new Error(
      'DATABASE_URL names an external PostgreSQL: back it up with its own pg_dump (README, "Backup and restore"); ' +
        'this command saves the embedded installation.',
    );
  }
  const folder = process.argv[2];
  if (folder === undefined)
    throw new Error('usage: npm run backup -- <folder>   (the backup goes into <folder>/coopbank-<time>)');
  const target = path.resolve(folder, `coopbank-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const manifest = await backupInstallation(config.dataDir, config.embeddedPostgresPort, target);
  const temporal = manifest.temporal ? 'Temporal state saved' : 'no Temporal state of its own (external Temporal)';
  process.stdout.write(
    `Backup of ${config.dataDir} written to ${target}: PostgreSQL ${manifest.postgres.serverVersion} up to WAL ` +
      `${manifest.postgres.stopLsn}, ${temporal}, secrets ${manifest.secrets.join(', ')}.\n`,
  );
});
