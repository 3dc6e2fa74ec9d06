import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type Koa from 'koa';
import pg from 'pg';
import type { Logger } from 'pino';
import { createKnex, type Knex } from '../db/knex';
import type { Config } from './config';
import { startEmbeddedPostgres } from './embedded-postgres';
import { readOrCreateSecret } from './local-secret';
import { ensureTemporalCli, startTemporalDevServer } from './temporal-dev-server';
import type { CleanupStack } from './cleanup-stack';

const connectTimeoutMs = 10_000;
export const embeddedDatabaseName = 'coopbank';

/** `postgres://user:secret@host/db` without the secret, for messages. */
function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

/**
 * The database URL to use: DATABASE_URL, or else an embedded PostgreSQL (data in DATA_DIR/pg) with the
 * `coopbank` database created on first start.
 */
export async function provideDatabase(config: Config, logger: Logger, cleanup: CleanupStack): Promise<string> {
  if (config.databaseUrl !== undefined) return config.databaseUrl;
  const server = await startEmbeddedPostgres({
    dataDir: path.join(config.dataDir, 'pg'),
    port: config.embeddedPostgresPort,
    password: readOrCreateSecret(path.join(config.dataDir, 'pg-password')),
    onLine: (line) => logger.debug({ component: 'postgres' }, line),
  });
  cleanup.push('postgres', server.stop);
  server.onUnexpectedExit(stopProcessOnCrash('postgres', logger));
  await createDatabaseIfMissing(server.url, embeddedDatabaseName);
  const url = new URL(server.url);
  url.pathname = `/${embeddedDatabaseName}`;
  return url.toString();
}

async function createDatabaseIfMissing(maintenanceUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: maintenanceUrl });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (existing.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/** A local service we depend on died under us: shut the whole process down in order rather than limp on. */
function stopProcessOnCrash(component: string, logger: Logger): (code: number | null) => void {
  return (code) => {
    logger.fatal({ component, code }, 'exited unexpectedly; shutting down');
    process.kill(process.pid, 'SIGTERM');
  };
}

/** The Temporal address to use: TEMPORAL_ADDRESS, or else a local dev server (state in DATA_DIR, UI on). */
export async function provideTemporal(
  config: Config,
  logger: Logger,
  cleanup: CleanupStack,
): Promise<{ address: string; uiUrl?: string }> {
  if (config.temporalAddress !== undefined) return { address: config.temporalAddress };
  const server = await startTemporalDevServer({
    cliPath: ensureTemporalCli(),
    port: config.temporalDevPort,
    uiPort: config.temporalUiPort,
    databaseFile: path.join(config.dataDir, 'temporal.sqlite'),
    namespace: config.temporalNamespace,
    onLine: (line) => logger.debug({ component: 'temporal' }, line),
  });
  cleanup.push('temporal dev server', server.stop);
  server.onUnexpectedExit(stopProcessOnCrash('temporal dev server', logger));
  return { address: server.address, uiUrl: server.uiUrl };
}

/**
 * A knex pool that has proven it can run a query, or a clear error naming the server. Its settings bound every
 * wait on the database (a free connection, one statement), so a database down or saturated fails requests
 * quickly (503) instead of queueing them (docs/architecture.md §1).
 */
export async function connectDatabase(
  url: string,
  applicationName: string,
  pool: Config['databasePool'],
  logger: Logger,
): Promise<Knex> {
  // knex's warnings carry a stack trace: its first line is the news, as one log line (the log is JSON lines).
  const onWarning = (message: string) => logger.warn({ component: 'knex' }, message.split('\n')[0]);
  const knex = createKnex(url, { applicationName, ...pool, onWarning });
  try {
    await knex.raw('SELECT 1').timeout(connectTimeoutMs);
    return knex;
  } catch (error) {
    await knex.destroy();
    throw new Error(`Cannot use the database at ${redactUrl(url)}: ${(error as Error).message}`);
  }
}

export async function connectTemporalClient(address: string, namespace: string): Promise<Client> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: connectTimeoutMs });
    return new Client({ connection, namespace });
  } catch (error) {
    throw new Error(`Cannot reach Temporal at ${address}: ${(error as Error).message}`);
  }
}

export async function connectTemporalWorker(address: string): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect({ address });
  } catch (error) {
    throw new Error(`Cannot reach Temporal at ${address}: ${(error as Error).message}`);
  }
}

/** Listens on `host`:`port` (0: any free port); a port in use is a clear error, not a crash. */
export async function listen(app: Koa<never> | Koa, port: number, host = '127.0.0.1'): Promise<http.Server> {
  const server = http.createServer(app.callback());
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE' ? new Error(`Port ${port} is already in use: set PORT to a free port.`) : error,
      );
    });
    server.listen(port, host, resolve);
  });
  return server;
}

/**
 * A request Node refuses before the app sees it (headers too large, malformed HTTP) is answered as the app
 * answers every refusal: problem+json, then the connection is closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const [status, title, code, detail] = tooLarge
    ? [431, 'Request Header Fields Too Large', 'headers_too_large', 'The request headers are too large.']
    : [400, 'Bad Request', 'malformed_request', 'The request is not valid HTTP.'];
  const body = JSON.stringify({ type: `urn:coopbank:problem:${code}`, title, status, detail, code });
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function portOf(server: http.Server): number {
  return (server.address() as AddressInfo).port;
}

/** Stops accepting connections, lets requests in flight finish, then closes idle keep-alive sockets. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
  });
}
