import { runMain } from '../runtime/cleanup-stack';
import { loadConfig } from '../runtime/config';
import { restoreInstallation } from '../runtime/installation-backup';

/**
 * `npm run restore -- <backup>`: restores a backup written by `npm run backup` into DATA_DIR, which must be
 * new or empty (a restore never overwrites an installation), checks the restored books, and leaves the
 * installation stopped: `npm start` then runs it.
 */
runMain('restore', async () => {
  const config = loadConfig();
  const backup = process.argv[2];
  if (backup === undefined)
    throw new Error('usage: npm run restore -- <backup folder>   (restores into DATA_DIR, which must be empty)');
  const check = await restoreInstallation(backup, config.dataDir);
  if (check.unbalancedEntries > 0)
    throw new Error(
      `restored into ${config.dataDir}, but ${check.unbalancedEntries} journal entries do not balance: do not use it.`,
    );
  process.stdout.write(
    `Restored ${backup} (taken ${check.manifest.createdAt}) into ${config.dataDir}: ${check.journalEntries} ` +
      `journal entries, all balanced. Start it with npm start.\n`,
  );
});
