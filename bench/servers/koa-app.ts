import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../api/app';
import { createKnex } from '../../db/knex';
import { createLogger } from '../../runtime/logger';
import { serveOnLoopback } from './loopback';

/**
 * The app under test: createApp with its whole middleware chain (request id, child logger, log line,
 * metrics, error handler, router), configured as in production (runtime/start-components.ts).
 *
 * GET /healthz touches neither the database nor Temporal, so neither is started: knex opens no
 * connection before its first query and a lazy Temporal connection none before its first call; the
 * unreachable addresses (port 1) make any accidental use fail loudly instead of hitting a real server.
 * The logger is the production one at level info writing to stdout, which the parent points at /dev/null.
 */
// BENCH_DATABASE_URL: a real database, for benchmarks of routes that use one (deposits).
const knex = createKnex(process.env.BENCH_DATABASE_URL ?? 'postgres://bench:bench@127.0.0.1:1/none', { poolMax: 20 });
// BENCH_TEMPORAL_ADDRESS / BENCH_TASK_QUEUE: a real Temporal and the queue of the bench's worker (loan approval).
const temporal = new Client({
  connection: Connection.lazy({ address: process.env.BENCH_TEMPORAL_ADDRESS ?? '127.0.0.1:1' }),
});
const logger = createLogger({ logLevel: 'info' });
const app = createApp({
  knex,
  temporal,
  taskQueue: process.env.BENCH_TASK_QUEUE ?? 'bench',
  logger,
  bodyLimitBytes: 1024 * 1024, // the BODY_LIMIT_BYTES default (runtime/config.ts); /healthz reads no body anyway
  // BENCH_WORKFLOW_DAY_MS: a shorter workflow day, so that workflows reading a status now and then (the import's) read
  // it often.
  workflowDayMs: Number(process.env.BENCH_WORKFLOW_DAY_MS ?? 86_400_000),
  metricsToken: null,
  clock: () => new Date(),
  // /healthz is public: no token is ever signed or checked.
  auth: {
    jwtSecret: process.env.BENCH_JWT_SECRET ?? randomBytes(32).toString('hex'),
    accessTokenTtlSeconds: 3600,
    refreshTokenTtlSeconds: 86400,
    sessionTtlSeconds: 7 * 86400,
  },
  secureCookies: false,
  trustProxy: false,
  trustedProxyHops: 1,
  processMetrics: true,
});

void serveOnLoopback(app.callback());
