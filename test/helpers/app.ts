import type { Client } from '@temporalio/client';
import pino from 'pino';
import type { ActivityContext } from '../../activities/context';
import { createApp } from '../../api/app';
import type { AnyRoute } from '../../api/route';
import { apiRoutes } from '../../api/routes';
import type { Knex } from '../../db/knex';
import { closeServer, connectTemporalClient, listen, portOf } from '../../runtime/services';
import type { Teardown } from './teardown';
import { testClock } from './clock';
import { contractBreach } from './contract';
import { testEnvironment } from './environment';

export interface TestResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON when the answer is JSON, the text otherwise. */
  body: any; // tests inspect arbitrary shapes
  text: string;
}

export interface TestApp {
  baseUrl: string;
  request(
    method: string,
    path: string,
    options?: { json?: unknown; body?: string | Uint8Array; headers?: Record<string, string> },
  ): Promise<TestResponse>;
}

export interface TestAppOptions {
  knex: Knex;
  routes?: readonly AnyRoute[];
  bodyLimitBytes?: number;
  importFileLimitBytes?: number;
  /** "Now" of the app, for tests that move time; the tests' clock otherwise (test/helpers/clock.ts). */
  clock?: () => Date;
  secureCookies?: boolean;
  /** The task queue of a test worker (see withWorker), for routes that start workflows. */
  taskQueue?: string;
  /** A Temporal client of the test's own (e.g. an unreachable one); the run's server otherwise. */
  temporal?: Client;
  /** Proxies trusted in front (X-Forwarded-For entries): 1 unless a test says otherwise. */
  trustedProxyHops?: number;
  /** Length of a workflow day in ms: tests of notice periods shorten it (a real day otherwise). */
  workflowDayMs?: number;
}

export const testJwtSecret = 'test-secret-test-secret-test-secret';
export const testMetricsToken = 'test-metrics-token-test-metrics';
/** The token settings of test apps: the production defaults (60 min, 24 h, a 7-day sign-in). */
export const testAuthSettings = {
  jwtSecret: testJwtSecret,
  accessTokenTtlSeconds: 3600,
  refreshTokenTtlSeconds: 86400,
  sessionTtlSeconds: 7 * 86400,
};

/** What activities called directly by a test receive. */
export const testActivityContext = (knex: Knex, clock: () => Date = testClock): ActivityContext => ({
  knex,
  clock,
  auth: testAuthSettings,
});

/** The real app on an ephemeral port, called over real HTTP; closed when the test file ends. */
export async function startTestApp(scope: Teardown, options: TestAppOptions): Promise<TestApp> {
  const temporal = options.temporal ?? (await connectTemporalClient(testEnvironment().temporalAddress, 'default'));
  const app = createApp(
    {
      knex: options.knex,
      temporal,
      taskQueue: options.taskQueue ?? 'test-no-worker',
      logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), // TEST_LOG_LEVEL=error shows 500s' causes
      clock: options.clock ?? testClock,
      auth: testAuthSettings,
      secureCookies: options.secureCookies ?? false,
      trustProxy: true, // tests play several client addresses through X-Forwarded-For
      trustedProxyHops: options.trustedProxyHops ?? 1,
      bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
      importFileLimitBytes: options.importFileLimitBytes,
      workflowDayMs: options.workflowDayMs ?? 86_400_000,
      metricsToken: testMetricsToken,
      processMetrics: false,
    },
    options.routes ?? apiRoutes,
  );
  const server = await listen(app, 0);
  scope.teardown(async () => {
    await closeServer(server);
    await temporal.connection.close();
  });
  return apiClient(`http://127.0.0.1:${portOf(server)}`, options.routes === undefined);
}

/**
 * A client of the API at `baseUrl` (this process's test app or an API process), over real HTTP. With
 * `checkContract`, every JSON answer is held to the OpenAPI document (test/helpers/contract.ts).
 */
export function apiClient(baseUrl: string, checkContract = true): TestApp {
  return {
    baseUrl,
    async request(method, path, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers };
      let body = requestOptions.body;
      if (requestOptions.json !== undefined) {
        body = JSON.stringify(requestOptions.json);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
      const text = await response.text();
      const isJson = /json/.test(response.headers.get('content-type') ?? '');
      const parsed: unknown = isJson ? JSON.parse(text) : text;
      const breach = checkContract
        ? contractBreach(method, path, response.status, parsed, response.headers)
        : undefined;
      if (breach !== undefined) throw new Error(`${method} ${path}: ${breach}`);
      return { status: response.status, headers: response.headers, text, body: parsed };
    },
  };
}
