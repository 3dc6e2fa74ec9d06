import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

/**
 * A hot physical backup of a running PostgreSQL cluster with the server's low-level backup API, for the
 * embedded installation, whose npm binaries ship neither pg_dump nor pg_basebackup (and the machine's own,
 * of an older major version, refuse a PostgreSQL 17 server).
 *
 * The data directory is copied while the server writes; the copy is made consistent by the WAL written from
 * `pg_backup_start` to `pg_backup_stop`, which is copied too, with the `backup_label` that tells the server
 * restarted on the copy where to begin replaying. So the restored cluster holds exactly the transactions
 * committed when `pg_backup_stop` ran (the backup's end): none of them lost, none half there.
 */
export interface ClusterBackup {
  /** Where the WAL replay begins and the point it must reach for the copy to be consistent. */
  startLsn: string;
  stopLsn: string;
  walSegments: number;
  serverVersion: string;
}

// What pg_basebackup leaves out too: files the server rewrites at start or that only a running server means.
const skippedFiles = new Set([
  'postmaster.pid',
  'postmaster.opts',
  'pg_internal.init',
  'backup_label',
  'tablespace_map',
  'backup_label.old',
]);
const emptiedFolders = new Set([
  'pg_wal',
  'pg_dynshmem',
  'pg_notify',
  'pg_serial',
  'pg_snapshots',
  'pg_stat_tmp',
  'pg_subtrans',
  'pg_replslot',
]);
const walSegmentName = /^[0-9A-F]{24}$/;

/**
 * Copies the cluster serving `url` (a superuser's connection; its data directory is `dataDir`) into `target`,
 * a folder that must not exist yet. One session runs the whole backup: the server ties the backup to it.
 */
export async function backupCluster(url: string, dataDir: string, target: string): Promise<ClusterBackup> {
  const client = new pg.Client({ connectionString: url, application_name: 'coopbank-backup' });
  await client.connect().catch((error: Error) => {
    throw new Error(
      `No PostgreSQL to back up answers at ${new URL(url).host} (${error.message}): ` +
        `the backup is taken from the running server. A stopped installation is saved by copying its data directory.`,
    );
  });
  try {
    await assertServes(client, dataDir);
    await fs.mkdir(target, { mode: 0o700 });
    // A temporary slot keeps every WAL segment from here on until this session ends: a checkpoint during a
    // long copy cannot recycle a segment the restore will need.
    await client.query('SELECT pg_create_physical_replication_slot($1, true, true)', [
      `coopbank_backup_${process.pid}`,
    ]);
    const started = await client.query<{ lsn: string; version: string }>(
      `SELECT pg_backup_start($1, true)::text AS lsn, current_setting('server_version') AS version`,
      [`coopbank ${new Date().toISOString()}`],
    );
    await copyDataDirectory(dataDir, target);
    const stopped = await client.query<{ lsn: string; labelfile: string; spcmapfile: string }>(
      'SELECT lsn::text, labelfile, spcmapfile FROM pg_backup_stop(false)',
    );
    const { lsn: stopLsn, labelfile, spcmapfile } = stopped.rows[0]!;
    await fs.writeFile(path.join(target, 'backup_label'), labelfile, { mode: 0o600 });
    if (spcmapfile !== '') await fs.writeFile(path.join(target, 'tablespace_map'), spcmapfile, { mode: 0o600 });
    const startLsn = started.rows[0]!.lsn;
    const walSegments = await copyWal(client, dataDir, target, startLsn, stopLsn);
    return { startLsn, stopLsn, walSegments, serverVersion: started.rows[0]!.version };
  } finally {
    await client.end(); // ends the session, and with it the temporary slot
  }
}

async function assertServes(client: pg.Client, dataDir: string): Promise<void> {
  const { rows } = await client.query<{ data_directory: string }>(
    `SELECT current_setting('data_directory') AS data_directory`,
  );
  if (path.resolve(rows[0]!.data_directory) !== path.resolve(dataDir)) {
    throw new Error(`The PostgreSQL server reached serves ${rows[0]!.data_directory}, not ${dataDir}.`);
  }
}

/**
 * The data directory file by file. Files change under the copy, and some vanish (a relation dropped or
 * rewritten): the WAL replay repairs the first, and a vanished file is one the replay does not need. The
 * folders of runtime state are created empty, as the server expects them.
 */
async function copyDataDirectory(from: string, to: string, topLevel = true): Promise<void> {
  for (const entry of await fs.readdir(from, { withFileTypes: true })) {
    const [source, destination] = [path.join(from, entry.name), path.join(to, entry.name)];
    if (entry.isDirectory()) {
      await fs.mkdir(destination, { mode: 0o700 });
      if (!topLevel || !emptiedFolders.has(entry.name))
        await copyDataDirectory(source, destination, false).catch(ignoreVanished);
      else if (entry.name === 'pg_wal') await fs.mkdir(path.join(destination, 'archive_status'), { mode: 0o700 });
    } else if (entry.isFile() && !skippedFiles.has(entry.name) && !entry.name.startsWith('pgsql_tmp')) {
      await fs.copyFile(source, destination).catch(ignoreVanished);
    }
  }
}

function ignoreVanished(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}

/**
 * The WAL segments from the backup's start to its end (pg_backup_stop switched to a new segment, so the last
 * one is complete), and the timeline history files: what the replay on the copy reads.
 */
async function copyWal(
  client: pg.Client,
  dataDir: string,
  target: string,
  startLsn: string,
  stopLsn: string,
): Promise<number> {
  const { rows } = await client.query<{ first: string; last: string }>(
    'SELECT pg_walfile_name($1::pg_lsn) AS first, pg_walfile_name($2::pg_lsn) AS last',
    [startLsn, stopLsn],
  );
  const { first, last } = rows[0]!;
  const needed = (await fs.readdir(path.join(dataDir, 'pg_wal'))).filter(
    (name) => name.endsWith('.history') || (walSegmentName.test(name) && name >= first && name <= last),
  );
  const segments = needed.filter((name) => walSegmentName.test(name));
  // The slot guarantees it: a gap would be a bug here, and a backup that cannot be restored.
  if (!segments.includes(first) || !segments.includes(last))
    throw new Error(`WAL segments ${first} to ${last} are not all in ${dataDir}/pg_wal.`);
  for (const name of needed) await fs.copyFile(path.join(dataDir, 'pg_wal', name), path.join(target, 'pg_wal', name));
  return segments.length;
}
