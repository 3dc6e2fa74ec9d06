import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { round, type Benchmark, type TableLine } from './benchmark';
import { withBenchDatabase } from './bench-database';
import { newEnterprise } from './ledger-posting.bench';
import { benchPassword, seedLending } from './loan-seed';
import type { PgbenchReference } from './pgbench';
import { postgresCpuReader, processCpuMicros } from './process-cpu';
import { startServerProcess } from './server-process';
import { withTemporalWorker } from './temporal-worker';
import { latencyStats, measureUpdateFloor } from './update-floor';

const applications = 40;
const concurrency = 4;
const steps = [
  ['bench_cashier', 'cashier'],
  ['bench_branch_head', 'branch_head'],
  ['bench_credit_committee', 'credit_committee'],
  ['bench_direction', 'direction'],
] as const;

/**
 * The full approval of a loan through the HTTP API: submission (which starts `loan-approval-{id}`), then the
 * four decisions, each a workflow Update persisted by a local activity, the last one creating the loan and its
 * schedule. Real app process, real Temporal dev server, a real worker in this process; 4 applications in
 * flight at a time. Reports the latency of each call and of the whole circuit, and the CPU time one circuit
 * costs in each process: with 4 circuits in flight on 2 cores the processes queue for the cores, so the
 * latency follows the CPU per circuit, which is also the figure a loaded machine does not distort. Then, on the
 * same dev server, the floor of the same circuits with nothing behind the Updates (bench/update-floor.ts): the
 * decision's and the circuit's reference ratios.
 */
export const loanApprovalApiBenchmark: Benchmark = {
  name: 'loan-approval-api',
  run: () => withBenchDatabase(measure, 20),
};

/** A client of the API under load: every bench user signed in, and a POST that times itself and fails loudly. */
async function signedInClient(base: string) {
  const call = async (path: string, token: string, body: object) => {
    const began = performance.now();
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { id: string; status: string };
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
    return { answer, ms: performance.now() - began };
  };
  const tokens: Record<string, string> = {};
  for (const username of ['bench_teller', ...steps.map(([name]) => name)]) {
    const response = await fetch(`${base}/api/v1/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: benchPassword }),
    });
    tokens[username] = ((await response.json()) as { access: string }).access;
  }
  return { call, tokens };
}

type Latencies = Record<'submit' | 'cashier' | 'branch_head' | 'credit_committee' | 'direction' | 'circuit', number[]>;

type ServerProcess = Awaited<ReturnType<typeof startServerProcess>>;

/**
 * The circuits through the API, `concurrency` at a time: each call's latency, and the CPU each process spent over them.
 */
async function runCircuits(
  server: ServerProcess,
  productId: string,
  members: readonly string[],
  cpuOf: { temporalPid: number; postgres: (() => number) | null },
) {
  const { call, tokens } = await signedInClient(`http://127.0.0.1:${server.port}`);
  const latencies: Latencies = {
    submit: [],
    cashier: [],
    branch_head: [],
    credit_committee: [],
    direction: [],
    circuit: [],
  };
  const approveOne = async (member: string) => {
    const began = performance.now();
    const submitted = await call('/api/v1/loans/applications/', tokens.bench_teller!, {
      client: member,
      product: productId,
      amount: '2400000',
      term_periods: 24,
    });
    latencies.submit.push(submitted.ms);
    let status = '';
    for (const [username, step] of steps) {
      const decided = await call(`/api/v1/loans/applications/${submitted.answer.id}/decisions/`, tokens[username]!, {
        decision: 'approve',
      });
      latencies[step].push(decided.ms);
      status = decided.answer.status;
    }
    if (status !== 'approved') throw new Error(`application ${submitted.answer.id} ended ${status}`);
    latencies.circuit.push(performance.now() - began);
  };
  const cpu = async (): Promise<CpuSnapshot> => {
    const own = process.cpuUsage();
    const temporal = processCpuMicros(cpuOf.temporalPid) ?? Number.NaN;
    return {
      api: await server.cpuMicros(),
      workerAndLoad: own.user + own.system,
      temporal,
      postgres: cpuOf.postgres?.() ?? Number.NaN,
    };
  };
  const cpuBefore = await cpu();
  const started = performance.now();
  const queue = [...members];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let member = queue.shift(); member !== undefined; member = queue.shift()) await approveOne(member);
    }),
  );
  const elapsedSeconds = (performance.now() - started) / 1000;
  return { latencies, elapsedSeconds, cpuPerCircuit: cpuPerCircuitMs(cpuBefore, await cpu()) };
}

const loadAverage = () => os.loadavg().map((value) => round(value, 2));

async function measure(knex: Knex, url: string, pgbench: PgbenchReference) {
  const enterpriseId = await newEnterprise(knex);
  const lending = await seedLending(knex, enterpriseId);
  const members: string[] = [];
  for (let index = 0; index < applications; index += 1) members.push(await lending.newMember());
  const postgresCpu = await postgresCpuReader(knex);
  return withTemporalWorker(knex, async ({ address, pid: temporalPid, taskQueue, connection }) => {
    const loadBefore = loadAverage();
    const server = await startServerProcess('servers/koa-app.ts', {
      BENCH_DATABASE_URL: url,
      BENCH_JWT_SECRET: randomBytes(32).toString('hex'),
      BENCH_TEMPORAL_ADDRESS: address,
      BENCH_TASK_QUEUE: taskQueue,
    });
    const circuits = await runCircuits(server, lending.productId, members, {
      temporalPid,
      postgres: postgresCpu,
    }).finally(() => server.stop());
    // The reference, right after on the same dev server: the same number of workflows and Updates with nothing behind
    // them.
    const floor = await measureUpdateFloor(
      connection,
      { address, pid: temporalPid, taskQueue },
      { workflows: applications, updatesPerWorkflow: steps.length, concurrency },
    );
    const loadAfter = loadAverage();
    const { latencies, cpuPerCircuit } = circuits;
    const loans = Number((await knex('loans').count({ count: '*' }).first())!.count);
    const latency = Object.fromEntries(
      Object.entries(latencies).map(([name, values]) => [name, latencyStats(values)]),
    ) as Record<keyof Latencies, LatencyStats>;
    // Every decision of every circuit, the final one (which creates the loan) included.
    const decision = latencyStats(steps.flatMap(([, step]) => latencies[step]));
    const result = {
      name: 'loan-approval-api',
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.availableParallelism(),
      loadAverage: { before: loadBefore, after: loadAfter },
      applications,
      concurrency,
      circuitsPerSecond: round(applications / circuits.elapsedSeconds, 2),
      latency,
      decision,
      updateFloor: floor,
      decisionToEmptyUpdate: round(decision.p50Ms / floor.emptyUpdate.p50Ms, 2),
      circuitToFloorCircuit: round(latency.circuit.p50Ms / floor.circuit.p50Ms, 2),
      cpuMsPerCircuit: cpuPerCircuit,
      loansCreated: loans,
      notes,
    };
    const summary =
      `full approval p50 ${latency.circuit.p50Ms} ms, p99 ${latency.circuit.p99Ms} ms (decision p50 ` +
      `${decision.p50Ms} ms, final with loan creation p50 ${latency.direction.p50Ms} ms); ` +
      `empty Update p50 ${floor.emptyUpdate.p50Ms} ms (decision ${result.decisionToEmptyUpdate} ×), with an empty ` +
      `local activity ${floor.localActivityUpdate.p50Ms} ms, ` +
      `floor circuit ${floor.circuit.p50Ms} ms (CPU worker and client ${floor.cpuMsPerCircuit.workerAndClient} ` +
      `ms, Temporal ${floor.cpuMsPerCircuit.temporal} ms); ${result.circuitsPerSecond} circuits/s with ` +
      `${concurrency} in flight; loans created ${loans}/${applications}; ` +
      `CPU per circuit ${cpuPerCircuit.total} ms (API ${cpuPerCircuit.api}, worker and clients ` +
      `${cpuPerCircuit.workerAndLoad}, Temporal ${cpuPerCircuit.temporal}, PostgreSQL ${cpuPerCircuit.postgres}); ` +
      `load ${loadBefore.join(' ')} → ${loadAfter.join(' ')}`;
    return {
      result,
      summary,
      lines: tableLines({ decision, circuit: latency.circuit, floor, load: [loadBefore[0]!, loadAfter[0]!] }, pgbench),
    };
  });
}

const notes = [
  'Each application: POST applications/ then four POST decisions/ by four users (cashier, branch head, credit ' +
    'committee, direction); the first call of a circuit starts the workflow.',
  'The warm-up is not excluded: the first circuits include JIT and the first workflow task of the worker.',
  'App process, Temporal dev server (SQLite in memory), the worker (this process) and PostgreSQL share 2 cores.',
  'cpuMsPerCircuit: CPU time (user + system) of each process over the load, per circuit (submission and four ' +
    'decisions): the API process, this process (the worker and the HTTP clients), the Temporal dev server, ' +
    'PostgreSQL (every backend); NaN where /proc cannot be read.',
  'updateFloor: right after the circuits, on the same dev server, as many workflows ' +
    '(bench/workflows/update-floor.workflow.ts, a bench-only worker on its own task queue) started and sent four ' +
    'Updates each by a Temporal client, as many in flight; the Updates alternately return at once (emptyUpdate) and ' +
    'run one empty local activity (localActivityUpdate). circuit: a start and the four Updates; cpuMsPerCircuit: ' +
    'this process (worker and client) and the Temporal server, per floor circuit.',
  'loadAverage: os.loadavg() (1, 5, 15 minutes) before the circuits and after the floor.',
];

interface CpuSnapshot {
  api: number;
  workerAndLoad: number;
  temporal: number;
  postgres: number;
}

function cpuPerCircuitMs(before: CpuSnapshot, after: CpuSnapshot) {
  const per = (key: keyof CpuSnapshot) => round((after[key] - before[key]) / 1000 / applications, 1);
  const figures = {
    api: per('api'),
    workerAndLoad: per('workerAndLoad'),
    temporal: per('temporal'),
    postgres: per('postgres'),
  };
  return { ...figures, total: round(figures.api + figures.workerAndLoad + figures.temporal + figures.postgres, 1) };
}

type LatencyStats = ReturnType<typeof latencyStats>;

const decisionTargetMs = 60;
const circuitTargetMs = 300;

interface Measured {
  decision: LatencyStats;
  circuit: LatencyStats;
  floor: Awaited<ReturnType<typeof measureUpdateFloor>>;
  /** The 1-minute load average before and after. */
  load: [number, number];
}

/**
 * Absolute latency targets, each with its floor of the same run as the reference ratio (an empty Update, a start and
 * four empty Updates); the run's pgbench figure and load average beside them say how loaded the machine was.
 */
function tableLines({ decision, circuit, floor, load }: Measured, pgbench: PgbenchReference): TableLine[] {
  const machine = `pgbench ${round(pgbench.tps, 0)} tps, load ${load[0]} → ${load[1]}`;
  const times = (measured: number, reference: number) => round(measured / reference, 2);
  return [
    {
      work: 'one approval decision (Update + persistence)',
      measured:
        `p50 ${decision.p50Ms} ms = ${times(decision.p50Ms, floor.emptyUpdate.p50Ms)} × an empty Update's p50 ` +
        `(${floor.emptyUpdate.p50Ms} ms), p99 ${decision.p99Ms} ms (${machine})`,
      target: `p50 ≤ ${decisionTargetMs} ms`,
      met: decision.p50Ms <= decisionTargetMs,
    },
    {
      work: 'four-step approval through the API',
      measured:
        `p50 ${circuit.p50Ms} ms = ${times(circuit.p50Ms, floor.circuit.p50Ms)} × a start and four empty Updates ` +
        `(${floor.circuit.p50Ms} ms), p99 ${circuit.p99Ms} ms (${machine})`,
      target: `p50 ≤ ${circuitTargetMs} ms`,
      met: circuit.p50Ms <= circuitTargetMs,
    },
  ];
}
