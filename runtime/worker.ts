import { temporal } from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Knex } from 'knex';
import { createActivities } from '../activities';
import { searchAttributeKeys } from '../workflows/search-attributes';

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  knex: Knex;
  /** A prebuilt workflow bundle (tests build it once per run); otherwise the workflows are bundled here. */
  workflowBundlePath?: string;
}

/**
 * Registers the workflows' search attributes (enterprise, branch, business id) in the namespace when missing:
 * a workflow upserting an unknown attribute would fail its task. Idempotent; one call per worker start.
 */
async function ensureSearchAttributes(connection: NativeConnection, namespace: string): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = searchAttributeKeys.filter((key) => customAttributes?.[key.name] === undefined);
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((key) => [key.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD])),
  });
}

/** A Temporal worker running the project's workflows and its activities bound to `knex`. */
export async function createWorker(options: WorkerOptions): Promise<Worker> {
  await ensureSearchAttributes(options.connection, options.namespace);
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: createActivities({ knex: options.knex, clock: () => new Date() }),
    ...(options.workflowBundlePath === undefined
      ? { workflowsPath: require.resolve('../workflows') }
      : { workflowBundle: { codePath: options.workflowBundlePath } }),
  });
}

const temporalLevels = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * Sends the Temporal SDK's own logs (worker state, bundling, core) through our JSON logger at `level` or
 * above, instead of its multi-line console output. Must run once, before the first worker is created.
 */
export function routeTemporalLogs(logger: Logger, level: LogLevel = 'WARN'): void {
  Runtime.install({
    logger: new DefaultLogger(level, (entry) => {
      logger[temporalLevels[entry.level]]({ component: 'temporal-sdk', ...entry.meta }, entry.message);
    }),
  });
}
