import type { MetricMeter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Knex } from 'knex';
import { createActivities } from '../activities';
import { instrumentProcess, type MetricsSink } from '../api/metrics';
import { searchAttributeKeys } from '../workflows/identities';

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  knex: Knex;
  /** A prebuilt workflow bundle (tests build it once per run); otherwise the workflows are bundled here. */
  workflowBundlePath?: string;
  /** The activities' "now": the real clock unless a test pins it (test/helpers/clock.ts). */
  clock?: () => Date;
}

/**
 * Registers the workflows' search attributes (enterprise id and code, branch, business id) in the namespace when
 * missing: a workflow upserting an unknown attribute would fail its task. Idempotent; one call per worker start.
 */
async function ensureSearchAttributes(connection: NativeConnection, namespace: string): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = searchAttributeKeys.filter((key) => customAttributes?.[key.name] === undefined);
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.map((key) => [key.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
    ),
  });
}

/** A Temporal worker running the project's workflows and its activities bound to `knex`. */
export async function createWorker(options: WorkerOptions): Promise<Worker> {
  await ensureSearchAttributes(options.connection, options.namespace);
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: createActivities({ knex: options.knex, clock: options.clock ?? (() => new Date()) }),
    ...(options.workflowBundlePath === undefined
      ? { workflowsPath: require.resolve('../workflows') }
      : { workflowBundle: { codePath: options.workflowBundlePath } }),
  });
}

const temporalLevels = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * Installs the process's Temporal Runtime, which can be done once, before the first worker. The SDK's own logs
 * (worker state, bundling, core) go through our JSON logger from WARN up, instead of its multi-line console output;
 * with `metricsAddress`, the SDK's Prometheus exporter serves `/metrics` there: task slots, poll and
 * schedule-to-start latencies, sticky cache, activity and workflow outcomes (the `temporal_` series).
 */
export function installTemporalRuntime(logger: Logger, metricsAddress?: string): void {
  const sdkLogger = new DefaultLogger('WARN', (entry) => {
    logger[temporalLevels[entry.level]]({ component: 'temporal-sdk', ...entry.meta }, entry.message);
  });
  try {
    Runtime.install({
      logger: sdkLogger,
      ...(metricsAddress === undefined
        ? {}
        : { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress } } } }),
    });
  } catch (error) {
    if (metricsAddress === undefined) throw error;
    // The usual cause is an address in use: name the variable that chose it.
    throw new Error(
      `Cannot serve the worker metrics at WORKER_METRICS_ADDRESS ${metricsAddress}: ${(error as Error).message}`,
    );
  }
}

// How often the worker's gauges are read into the Temporal meter, which has no callback at scrape time.
const gaugeSampleMs = 5_000;

/**
 * Sends the process's own metrics (build, database pool, business work: api/metrics.ts) through the Temporal SDK's
 * meter, so that the exporter of a worker process serves them beside the SDK's. Call after installTemporalRuntime
 * with a metrics address; returns what stops it, to run before the Runtime shuts down.
 */
export function exportProcessMetrics(knex: Knex, gitCommit?: string): () => void {
  const samples: (() => void)[] = [];
  const stopCounting = instrumentProcess(meterSink(Runtime.instance().metricMeter, samples), knex, gitCommit);
  const sampleAll = () => samples.forEach((sample) => sample());
  sampleAll();
  const timer = setInterval(sampleAll, gaugeSampleMs).unref();
  return () => {
    clearInterval(timer);
    stopCounting();
  };
}

/**
 * The Temporal SDK's meter as a MetricsSink; its gauges are set when the caller runs the `samples`. (The SDK's
 * Metric API is experimental in 1.24: a change there stays in this function.)
 */
function meterSink(meter: MetricMeter, samples: (() => void)[]): MetricsSink {
  return {
    counter(name, help, series) {
      const counter = meter.createCounter(name, '', help);
      for (const labels of series) counter.add(0, labels);
      return (labels) => counter.add(1, labels);
    },
    gauge(name, help, labels, read) {
      const gauge = meter.createGauge(name, 'int', '', help);
      samples.push(() => gauge.set(read(), labels));
    },
  };
}
