import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { searchAttributeKeys } from '../workflows/identities';
import { startChildService, waitUntilReady } from './child-service';

/** The Temporal CLI's development server: a whole Temporal cluster in one process, state in SQLite. */
export interface TemporalDevServer {
  readonly address: string;
  /** The server's process id (the benchmarks read its CPU time). */
  readonly pid: number;
  /** Web UI address, undefined when started headless. */
  readonly uiUrl: string | undefined;
  stop(): Promise<void>;
  /** See ChildService.onUnexpectedExit. */
  onUnexpectedExit(handler: (code: number | null) => void): void;
}

export interface TemporalDevServerOptions {
  cliPath: string;
  port: number;
  /** Omit to run without the Web UI (tests). */
  uiPort?: number;
  /** Omit to keep state in memory only (tests). */
  databaseFile?: string;
  namespace: string;
  onLine?: (line: string) => void;
}

const readyTimeoutMs = 60_000;

/**
 * Returns the path of the `temporal` binary through scripts/ensure-temporal, which reuses TEMPORAL_CLI_PATH,
 * PATH or the user cache and otherwise builds the pinned release with Go (once per machine).
 */
export function ensureTemporalCli(): string {
  const script = path.resolve(__dirname, '..', 'scripts', 'ensure-temporal');
  try {
    return execFileSync('bash', [script], { stdio: ['ignore', 'pipe', 'inherit'] })
      .toString()
      .trim();
  } catch {
    throw new Error('No Temporal CLI is available (scripts/ensure-temporal failed: see its message above).');
  }
}

export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--log-level', 'warn'];
  if (options.namespace !== 'default') args.push('--namespace', options.namespace);
  if (options.uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort));
  if (options.databaseFile !== undefined) args.push('--db-filename', options.databaseFile);
  // A new server knows the search attributes before any start sets them (on an existing database, the worker adds what
  // is missing).
  for (const key of searchAttributeKeys) args.push('--search-attribute', `${key.name}=Keyword`);

  const server = startChildService({
    name: 'Temporal dev server',
    command: options.cliPath,
    args,
    onLine: options.onLine,
  });
  const address = `127.0.0.1:${options.port}`;
  await waitUntilReady(server, () => canConnect(address), readyTimeoutMs);
  return {
    address,
    pid: server.pid,
    uiUrl: options.uiPort === undefined ? undefined : `http://localhost:${options.uiPort}`,
    stop: () => server.stop('SIGTERM', 20_000),
    onUnexpectedExit: (handler) => server.onUnexpectedExit(handler),
  };
}

async function canConnect(address: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 1000 });
  try {
    await connection.workflowService.getSystemInfo({});
    return true;
  } finally {
    await connection.close();
  }
}
