import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { embeddedPostgresUrl, postgresOsUser, startEmbeddedPostgres } from './embedded-postgres';
import { freePort } from './free-port';
import { backupCluster, type ClusterBackup } from './postgres-backup';
import { embeddedDatabaseName } from './services';

/**
 * Backup and restore of the embedded installation (`npm start`): everything it keeps in DATA_DIR.
 *
 *   pg/ a hot physical backup of the PostgreSQL cluster (postgres-backup.ts): the books, members, loans, users
 *   temporal.sqlite the Temporal dev server's state: workflows in flight (approvals, notice periods, runs) pg-password,
 *   jwt-secret, metrics-token the local secrets: the restored cluster's roles keep the saved password, and tokens
 *   signed before the backup stay valid backup.json written last: a folder without it is not a complete backup
 *
 * The Temporal Schedules need nothing: the start reconciles them with the enterprises in the database.
 */
export interface BackupManifest {
  format: 1;
  createdAt: string;
  postgres: ClusterBackup;
  /** False when the installation had no Temporal state of its own (TEMPORAL_ADDRESS names an external server). */
  temporal: boolean;
  secrets: string[];
}

const manifestFile = 'backup.json';
const temporalFile = 'temporal.sqlite';
const passwordFile = 'pg-password';
const secretFiles = [passwordFile, 'jwt-secret', 'metrics-token'];
const run = promisify(execFile);

/** Backs up the installation in `dataDir`, whose PostgreSQL listens on `postgresPort`, into `target` (created). */
export async function backupInstallation(
  dataDir: string,
  postgresPort: number,
  target: string,
): Promise<BackupManifest> {
  const password = await readSecret(dataDir, passwordFile);
  await fs.mkdir(path.dirname(target), { recursive: true });
  await fs.mkdir(target, { mode: 0o700 });
  try {
    // Temporal first, PostgreSQL's backup ending after: the restored books are then never older than the
    // restored workflows, which at worst repeat a step the books already hold (their idempotency keys make the
    // repeat a no-op) rather than count on a step the books lack.
    const temporal = await saveTemporal(dataDir, target);
    const postgres = await backupCluster(
      embeddedPostgresUrl(postgresPort, password),
      path.join(dataDir, 'pg'),
      path.join(target, 'pg'),
    );
    const secrets: string[] = [];
    for (const name of secretFiles) {
      if (await copyIfPresent(path.join(dataDir, name), path.join(target, name))) secrets.push(name);
    }
    const manifest: BackupManifest = { format: 1, createdAt: new Date().toISOString(), postgres, temporal, secrets };
    await fs.writeFile(path.join(target, manifestFile), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    return manifest;
  } catch (error) {
    await fs.rm(target, { recursive: true, force: true }); // no half backup left to be mistaken for one
    throw error;
  }
}

/**
 * A consistent copy of the dev server's SQLite database while the server writes it: SQLite's online backup,
 * through the sqlite3 command-line shell (Node 20 has no SQLite of its own).
 */
async function saveTemporal(dataDir: string, target: string): Promise<boolean> {
  const source = path.join(dataDir, temporalFile);
  if (!(await exists(source))) return false;
  const copy = path.join(target, temporalFile);
  if (copy.includes('"')) throw new Error(`The backup folder's path may not contain a double quote: ${target}`);
  try {
    await run('sqlite3', [source, `.backup "${copy}"`]);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(
      missing
        ? 'Saving the Temporal state needs the sqlite3 shell (e.g. apt-get install sqlite3), ' +
            'or stop npm start and copy DATA_DIR.'
        : `sqlite3 could not copy ${source}: ${(error as Error).message}`,
    );
  }
  return true;
}

/** What the restore's check found on the restored cluster once PostgreSQL had replayed its WAL. */
export interface RestoreCheck {
  manifest: BackupManifest;
  journalEntries: number;
  unbalancedEntries: number;
}

/**
 * Restores `backup` into `dataDir`, which must be new or empty: a restore never overwrites an installation.
 * Then starts PostgreSQL on the copy once, on a free port: it replays the saved WAL up to the backup's end
 * (so the next `npm start` finds a cluster ready) and the books are checked, before it stops again.
 */
export async function restoreInstallation(backup: string, dataDir: string): Promise<RestoreCheck> {
  const manifest = await readManifest(backup);
  await assertFresh(dataDir);
  await fs.mkdir(dataDir, { recursive: true }); // as npm start makes it: PostgreSQL's own folder inside is private
  const pgDir = path.join(dataDir, 'pg');
  await fs.cp(path.join(backup, 'pg'), pgDir, { recursive: true });
  await fs.chmod(pgDir, 0o700);
  if (process.getuid?.() === 0) await chownTree(pgDir, postgresOsUser()); // PostgreSQL runs as `postgres` under root
  if (manifest.temporal) await fs.copyFile(path.join(backup, temporalFile), path.join(dataDir, temporalFile));
  for (const name of manifest.secrets) await fs.copyFile(path.join(backup, name), path.join(dataDir, name));
  return { manifest, ...(await checkRestoredBooks(dataDir)) };
}

async function readManifest(backup: string): Promise<BackupManifest> {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await fs.readFile(path.join(backup, manifestFile), 'utf8')) as BackupManifest;
  } catch {
    throw new Error(`${backup} is not a complete backup (no readable ${manifestFile}).`);
  }
  if (manifest.format !== 1)
    throw new Error(`${backup} is a backup of an unknown format (${String(manifest.format)}).`);
  return manifest;
}

async function assertFresh(dataDir: string): Promise<void> {
  const entries = await fs.readdir(dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (entries.length > 0) {
    throw new Error(
      `${dataDir} is not empty: a restore goes into a new data directory only (move the old one aside, ` +
        `or set DATA_DIR).`,
    );
  }
}

async function checkRestoredBooks(dataDir: string): Promise<Omit<RestoreCheck, 'manifest'>> {
  const password = await readSecret(dataDir, passwordFile);
  const server = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port: await freePort(), password });
  try {
    const url = new URL(server.url);
    url.pathname = `/${embeddedDatabaseName}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      const { rows } = await client.query<{ entries: number; unbalanced: number }>(`
        SELECT (SELECT count(*) FROM journal_entries)::int AS entries,
               (SELECT count(*) FROM (SELECT 1 FROM journal_lines GROUP BY entry_id
                 HAVING sum(debit) <> sum(credit)) u)::int AS unbalanced`);
      return { journalEntries: rows[0]!.entries, unbalancedEntries: rows[0]!.unbalanced };
    } finally {
      await client.end();
    }
  } finally {
    await server.stop();
  }
}

async function readSecret(dataDir: string, name: string): Promise<string> {
  try {
    return (await fs.readFile(path.join(dataDir, name), 'utf8')).trim();
  } catch {
    throw new Error(`No ${name} in ${dataDir}: is it the DATA_DIR of an embedded installation?`);
  }
}

async function copyIfPresent(from: string, to: string): Promise<boolean> {
  if (!(await exists(from))) return false;
  await fs.copyFile(from, to);
  return true;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

async function chownTree(dir: string, owner: { uid: number; gid: number }): Promise<void> {
  await fs.chown(dir, owner.uid, owner.gid);
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const child = path.join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(child, owner);
    else await fs.chown(child, owner.uid, owner.gid);
  }
}
