import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { HttpMetrics } from './metrics';

/** What the API needs from the outside world; the app factory receives it, tests pass their own. */
export interface ApiDeps {
  knex: Knex;
  temporal: Client;
  logger: Logger;
  bodyLimitBytes: number;
  /** Signs and verifies access and refresh tokens (the auth module). */
  jwtSecret: string;
  /** Node.js process metrics (memory, event loop) in /metrics; off in tests that build many apps. */
  processMetrics: boolean;
}

/** What route handlers receive: the app's dependencies plus what the app itself owns. */
export interface RouteDeps extends ApiDeps {
  metrics: HttpMetrics;
}
