import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { ensureInitialAdmin } from '../activities/auth/register.activity';
import { createApp } from '../api/app';
import type { ApiDeps } from '../api/deps';
import { reconcileEnterpriseSchedules } from '../api/modules/enterprise/schedules.temporal';
import { migrateToLatest, type Knex } from '../db/knex';
import type { CleanupStack } from './cleanup-stack';
import { clockStartingAt } from './clock';
import type { Config } from './config';
import { resolveJwtSecret, resolveMetricsToken } from './local-secret';
import { closeServer, connectDatabase, connectTemporalClient, connectTemporalWorker, listen, portOf } from './services';
import { createWorker, exportProcessMetrics, installTemporalRuntime } from './worker';

/** Opens the database pool and applies pending migrations (processes starting at once take turns: db/knex.ts). */
export async function openMigratedDatabase(
  config: Config,
  url: string,
  name: string,
  logger: Logger,
  cleanup: CleanupStack,
): Promise<Knex> {
  const knex = await connectDatabase(url, `coopbank-${name}`, config.databasePool, logger);
  cleanup.push(`${name} database pool`, () => knex.destroy());
  const applied = await migrateToLatest(knex);
  logger.info({ applied }, applied.length > 0 ? 'migrations applied' : 'schema up to date');
  return knex;
}

/** The HTTP API on `config.host`:`config.port`; returns the port actually bound (PORT=0 picks a free one). */
export async function startApi(
  config: Config,
  knex: Knex,
  temporalAddress: string,
  logger: Logger,
  cleanup: CleanupStack,
): Promise<{ port: number; temporal: Client }> {
  const temporal = await connectTemporalClient(temporalAddress, config.temporalNamespace);
  cleanup.push('temporal client', () => temporal.connection.close());
  const deps: ApiDeps = {
    knex,
    temporal,
    taskQueue: config.temporalTaskQueue,
    logger,
    clock: clockStartingAt(config.clockStart),
    auth: {
      jwtSecret: resolveJwtSecret(config),
      accessTokenTtlSeconds: config.accessTokenTtlSeconds,
      refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
      sessionTtlSeconds: config.sessionTtlSeconds,
    },
    secureCookies: !config.insecureCookies,
    trustProxy: config.trustProxy,
    trustedProxyHops: config.trustedProxyHops,
    bodyLimitBytes: config.bodyLimitBytes,
    importFileLimitBytes: config.importFileLimitBytes,
    workflowDayMs: config.workflowDayMs,
    metricsToken: resolveMetricsToken(config),
    processMetrics: true,
    gitCommit: config.gitCommit,
  };
  const admin = await ensureInitialAdmin(
    { knex, clock: deps.clock, auth: deps.auth },
    {
      username: config.initialAdminUsername,
      password: config.initialAdminPassword,
    },
  );
  if (admin.created) {
    logger.info({ username: admin.username }, 'initial administrator created');
    // Printed once, never logged: the only place this password ever appears.
    if (admin.generatedPassword !== undefined) {
      process.stdout.write(
        `\nInitial administrator: ${admin.username} / ${admin.generatedPassword}  (shown once: change it)\n\n`,
      );
    }
  }
  // Schedules of enterprises created while Temporal was out of reach, or before this version: in the background,
  // so that a Temporal slow to describe some of them does not keep the API from starting.
  const schedules = reconcileEnterpriseSchedules(temporal, knex, config.temporalTaskQueue, logger);
  cleanup.push('schedule reconciliation', schedules.stop);
  const server = await listen(createApp(deps), config.port, config.host);
  cleanup.push('http server', () => closeServer(server));
  return { port: portOf(server), temporal };
}

/** A worker polling `config.temporalTaskQueue`; a fatal worker error stops the whole process cleanly. */
export async function startWorker(
  config: Config,
  knex: Knex,
  temporalAddress: string,
  logger: Logger,
  cleanup: CleanupStack,
): Promise<void> {
  installTemporalRuntime(logger, config.workerMetricsAddress);
  const connection = await connectTemporalWorker(temporalAddress);
  cleanup.push('worker connection', () => connection.close());
  const { temporalNamespace: namespace, temporalTaskQueue: taskQueue, workflowBundlePath } = config;
  const worker = await createWorker({
    connection,
    namespace,
    taskQueue,
    knex,
    workflowBundlePath,
    clock: clockStartingAt(config.clockStart),
  });
  const running = worker.run();
  cleanup.push('worker', async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  });
  running.catch((error: unknown) => {
    logger.fatal({ err: error }, 'worker failed');
    process.kill(process.pid, 'SIGTERM');
  });
}

/**
 * A worker process (`npm run worker`) has one metrics endpoint, the Temporal exporter at WORKER_METRICS_ADDRESS: the
 * process's own metrics go there too. All-in-one, the API's /metrics has them (counting them twice would double sums).
 */
export function exportWorkerProcessMetrics(config: Config, knex: Knex, cleanup: CleanupStack): void {
  if (config.workerMetricsAddress === undefined) return;
  const stop = exportProcessMetrics(knex, config.gitCommit);
  cleanup.push('worker metrics', async () => stop());
}
