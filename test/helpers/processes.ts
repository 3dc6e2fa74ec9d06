import os from 'node:os';
import path from 'node:path';
import { startChildService, waitUntilReady } from '../../runtime/child-service';
import { apiClient, testJwtSecret, testMetricsToken, type TestApp } from './app';
import { testClock } from './clock';
import { testEnvironment } from './environment';
import { freePort } from './ports';
import type { Teardown } from './teardown';
import { testPassword } from './users';

const root = path.join(__dirname, '..', '..');
// A tsx start compiles the sources it loads: seconds, more on a loaded machine.
const readyTimeoutMs = 90_000;

/** A process entry point (`npm run api`, `npm run worker`) run as its own OS process, as in production. */
export interface ServiceProcess {
  readonly pid: number;
  /** Resolves when the process has exited, with its exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** SIGKILL: the process dies at once, its connections dropped, nothing drained. Resolves once it is gone. */
  kill(): Promise<void>;
}

export interface ServiceProcessOptions {
  databaseUrl: string;
  taskQueue: string;
  /**
   * The Temporal frontend it connects to: the run's, unless a test puts a relay between them
   * (test/helpers/tcp-relay.ts).
   */
  temporalAddress?: string;
  /** Further variables (WORKFLOW_DAY_MS…). */
  env?: Record<string, string>;
}

/**
 * Starts `runtime/{entry}` under tsx with the configuration of a test (runtime/config.ts): the test's database,
 * Temporal and task queue, the test apps' secrets, the run's prebuilt workflow bundle, and logs at info level,
 * whose `ready` line says it is up. Killed when the test (file) ends, if still running.
 */
async function startService(
  scope: Teardown,
  entry: 'api-main.ts' | 'worker-main.ts',
  ready: string,
  options: ServiceProcessOptions,
  port?: number,
): Promise<ServiceProcess> {
  const { temporalAddress, bundlePath } = testEnvironment();
  let up = false;
  const service = startChildService({
    name: entry,
    command: process.execPath,
    args: ['--import', 'tsx', path.join(root, 'runtime', entry)],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: os.tmpdir(),
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_ADDRESS: options.temporalAddress ?? temporalAddress,
      TEMPORAL_TASK_QUEUE: options.taskQueue,
      WORKFLOW_BUNDLE_PATH: bundlePath,
      JWT_SECRET: testJwtSecret,
      METRICS_TOKEN: testMetricsToken,
      INITIAL_ADMIN_PASSWORD: testPassword,
      CLOCK_START: testClock().toISOString(), // the test's "now", not the calendar's
      ...(port === undefined ? {} : { PORT: String(port) }),
      ...options.env,
    },
    onLine: (line) => {
      if (line.includes(`"msg":"${ready}"`)) up = true;
    },
  });
  const kill = () => service.stop('SIGKILL', 0);
  scope.teardown(kill);
  await waitUntilReady(service, async () => up, readyTimeoutMs);
  return { pid: service.pid, exited: service.exited, kill };
}

/** `npm run worker`: polls `options.taskQueue` once this resolves. */
export const startWorkerProcess = (scope: Teardown, options: ServiceProcessOptions): Promise<ServiceProcess> =>
  startService(scope, 'worker-main.ts', 'worker polling', options);

/** `npm run api` on `port` (a free one by default: give the port of a killed API to restart it where clients look). */
export async function startApiProcess(
  scope: Teardown,
  options: ServiceProcessOptions & { port?: number },
): Promise<ServiceProcess & { port: number; client: TestApp }> {
  const port = options.port ?? (await freePort());
  const service = await startService(scope, 'api-main.ts', 'api listening', options, port);
  return { ...service, port, client: apiClient(`http://127.0.0.1:${port}`) };
}
