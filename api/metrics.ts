import type { Knex } from 'knex';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { onCommittedWork, type CommittedWork } from '../activities/metrics-channel';
import { eventKinds } from '../domain/events/rules';
import { decisions } from '../domain/loans/approval';
import { version } from '../package.json';

/**
 * What /metrics serves: this app's HTTP requests and its process's metrics, in a registry of its own (tests build
 * several apps).
 */
export interface HttpMetrics {
  observe(method: string, route: string, status: number, seconds: number): void;
  contentType: string;
  render(): Promise<string>;
}

type Labels = Record<string, string>;

/**
 * Where the metrics of a process go: the API's prom-client registry (`/metrics`), or a worker's Temporal SDK meter,
 * which its Prometheus exporter serves beside the SDK's own metrics (runtime/worker.ts).
 */
export interface MetricsSink {
  /**
   * A counter whose known `series` start at 0 (a series born at its first increment hides that increment from
   * increase()); the function adds 1 to the series of `labels`.
   */
  counter(name: string, help: string, series: readonly Labels[]): (labels: Labels) => void;
  /** A gauge of one series, whose value `read` gives whenever the sink exports. */
  gauge(name: string, help: string, labels: Labels, read: () => number): void;
}

export function createHttpMetrics(options: { processMetrics: boolean; knex: Knex; gitCommit?: string }): HttpMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  // The app lives as long as its process: what it counts is never unsubscribed.
  instrumentProcess(registrySink(registry), options.knex, options.gitCommit);
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, declared route and status.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method, declared route and status.',
    labelNames,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    observe(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    contentType: registry.contentType,
    render: () => registry.metrics(),
  };
}

function registrySink(registry: Registry): MetricsSink {
  return {
    counter(name, help, series) {
      const counter = new Counter({ name, help, labelNames: Object.keys(series[0] ?? {}), registers: [registry] });
      for (const labels of series) counter.inc(labels, 0);
      return (labels) => counter.inc(labels);
    },
    gauge(name, help, labels, read) {
      registry.registerMetric(
        new Gauge({
          name,
          help,
          labelNames: Object.keys(labels),
          registers: [],
          collect() {
            this.set(labels, read());
          },
        }),
      );
    },
  };
}

/**
 * What a process measures beyond HTTP, the same in the API and in a worker: the build, the database pool and the
 * business work committed here. Returns what stops the counting.
 */
export function instrumentProcess(sink: MetricsSink, knex: Knex, gitCommit?: string): () => void {
  sink.gauge(
    'coopbank_build_info',
    'Always 1; the labels say what runs: version, commit (GIT_COMMIT), Node.js version.',
    buildLabels(gitCommit),
    () => 1,
  );
  measurePool(sink, knex);
  return countCommittedWork(sink);
}

const buildLabels = (gitCommit = 'unknown'): Labels => ({ version, commit: gitCommit, node_version: process.version });

/** The part of knex's tarn pool read here (knex keeps it on its client, untyped; gone once destroyed). */
interface Pool {
  max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

const poolGauges: readonly [name: string, help: string, read: (pool: Pool) => number][] = [
  [
    'coopbank_db_pool_used_connections',
    'Database connections lent to a query or a transaction.',
    (pool) => pool.numUsed(),
  ],
  ['coopbank_db_pool_free_connections', 'Database connections open and idle in the pool.', (pool) => pool.numFree()],
  [
    'coopbank_db_pool_pending_acquires',
    'Queries and transactions waiting for a database connection.',
    (pool) => pool.numPendingAcquires(),
  ],
  ['coopbank_db_pool_pending_creates', 'Database connections being opened.', (pool) => pool.numPendingCreates()],
  [
    'coopbank_db_pool_max_connections',
    'Most database connections the pool opens (used / max is its saturation).',
    (pool) => pool.max,
  ],
];

function measurePool(sink: MetricsSink, knex: Knex): void {
  const poolOf = () => (knex.client as { pool?: Pool }).pool;
  for (const [name, help, read] of poolGauges) {
    sink.gauge(name, help, {}, () => {
      const pool = poolOf();
      return pool === undefined ? 0 : read(pool);
    });
  }
}

const committedWorkCounters: Record<CommittedWork['work'], { name: string; help: string; series: readonly Labels[] }> =
  {
    posting: {
      name: 'coopbank_postings_total',
      help: 'Journal entries posted for business events (recordBusinessEvent), by event kind.',
      series: eventKinds.map((kind) => ({ kind })),
    },
    loan_decision: {
      name: 'coopbank_loan_decisions_total',
      help: 'Decisions on loan applications recorded, by decision.',
      series: [...decisions, 'withdraw'].map((decision) => ({ decision })),
    },
    provisioning_run: {
      name: 'coopbank_provisioning_runs_total',
      help: 'Provisioning runs finished, by outcome.',
      series: [{ outcome: 'completed' }, { outcome: 'failed' }],
    },
  };

/**
 * Counts the business work committed by this process, where it is done, once its transaction commits (see
 * activities/metrics-channel.ts). Each process counts its own work, in the API as in every worker: Prometheus
 * sums the instances and rate() absorbs restarts, so the totals hold with several workers and across restarts.
 * Counting rows in the database at scrape time would instead rescan the ever-growing ledger at every scrape and
 * report the same global total from every instance, which a sum over instances multiplies.
 */
function countCommittedWork(sink: MetricsSink): () => void {
  const counters = Object.fromEntries(
    Object.entries(committedWorkCounters).map(([work, { name, help, series }]) => [
      work,
      sink.counter(name, help, series),
    ]),
  ) as Record<CommittedWork['work'], (labels: Labels) => void>;
  return onCommittedWork((work) => counters[work.work](work.labels));
}
