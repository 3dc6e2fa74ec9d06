import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ActivityContext, AuthSettings } from '../activities/context';
import type { Scope } from '../domain/access';
import type { BoundedMemo } from './bounded-memo';
import type { HttpMetrics } from './metrics';

/** What the API needs from the outside world; the app factory receives it, tests pass their own. */
export interface ApiDeps {
  knex: Knex;
  temporal: Client;
  /** Where workflows started by the API run (the workers poll it). */
  taskQueue: string;
  logger: Logger;
  /** "Now": injected so tests can move time (token expiry). */
  clock: () => Date;
  auth: AuthSettings;
  /** Mark cookies Secure, with __Host-/__Secure- names: everywhere but local development over plain HTTP. */
  secureCookies: boolean;
  /** Trust X-Forwarded-For / -Proto from a proxy in front (client address used by the login throttle). */
  trustProxy: boolean;
  /** Proxies in front that append to X-Forwarded-For: the client address is the one the outermost saw. */
  trustedProxyHops: number;
  bodyLimitBytes: number;
  /**
   * The size limit of one uploaded import file (IMPORT_FILE_LIMIT_BYTES); absent: domain/imports/files.ts's default.
   */
  importFileLimitBytes?: number;
  /** Length of a day for the timers of the workflows the API starts, in ms (a real day but in tests and demos). */
  workflowDayMs: number;
  /** The Bearer token /metrics requires; null: /metrics is off. */
  metricsToken: string | null;
  /** Node.js process metrics (memory, event loop) in /metrics; off in tests that build many apps. */
  processMetrics: boolean;
  /** The commit the code was built from (GIT_COMMIT), for coopbank_build_info. */
  gitCommit?: string;
}

/** What route handlers receive: the app's dependencies plus what the app itself owns. */
export interface RouteDeps extends ApiDeps {
  metrics: HttpMetrics;
  /** The same context the worker gives activities. */
  activities: ActivityContext;
  /** Where each member account lies (enterprise, branch), read once per process: the database keeps it fixed. */
  accountScopes: BoundedMemo<Scope>;
  /** Where each loan lies (enterprise, branch), read once per process: the database keeps it fixed too. */
  loanScopes: BoundedMemo<Scope>;
}
