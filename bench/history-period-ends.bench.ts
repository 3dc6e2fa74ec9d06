import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { createKnex } from '../db/knex';
import { freePort } from '../runtime/free-port';
import { ensureTemporalCli, startTemporalDevServer } from '../runtime/temporal-dev-server';
import { monthEndSteps, type MonthEndStepName } from '../domain/enterprise/month-end';
import { reportingPackWorkflowId } from '../workflows/identities';
import { round, type Benchmark, type BenchmarkReport, type TableLine } from './benchmark';
import { copyOfHistory, historyYears, openHistory, type SeededHistory } from './history-seed';
import {
  directorHeaders,
  getJson,
  loadAverage,
  peaksBySize,
  postJson,
  rssPeaks,
  sizeLabel,
  until,
  type Api,
} from './history-run';
import { endOfDayBranches, runEndOfDay } from './history-end-of-day';
import { startServerProcess } from './server-process';

/**
 * `npm run bench -- history-period-ends` (issue 32): on a copy of the seeded history (bench/history-seed.ts), through
 * the API and a worker each in its own process with a Temporal dev server: the year-end closing of years 1 to 4 in
 * turn (each a year of postings), then the month end of September of year 5 (loan accrual on every loan, savings
 * interest on every account) and the reporting pack it starts. The processes' resident sets are sampled throughout.
 */
export const historyPeriodEndsBenchmark: Benchmark = {
  name: 'history-period-ends',
  run: measure,
};

const monthEndPeriod = '2026-09';
const targets = { closingSeconds: 30, monthEndSeconds: 60, packSeconds: 30, endOfDaySeconds: 10 };

async function measure(): Promise<BenchmarkReport> {
  const history = await openHistory();
  const copy = await copyOfHistory(history, 'history_run');
  const stops: (() => Promise<void>)[] = [() => copy.drop(), () => history.stop()];
  try {
    const before = loadAverage();
    process.stdout.write(`history-period-ends: load average before ${before.join(' ')}\n`);
    const temporal = await startTemporalDevServer({
      cliPath: ensureTemporalCli(),
      port: await freePort(),
      namespace: 'default',
    });
    stops.unshift(() => temporal.stop());
    const env = {
      BENCH_DATABASE_URL: copy.url,
      BENCH_TEMPORAL_ADDRESS: temporal.address,
      BENCH_TASK_QUEUE: 'history',
      BENCH_JWT_SECRET: randomBytes(32).toString('hex'),
    };
    // The worker bundles the workflows as it starts: slow on a busy machine.
    const worker = await startServerProcess('servers/worker.ts', env, 180_000);
    stops.unshift(() => worker.stop());
    const apiProcess = await startServerProcess('servers/koa-app.ts', env, 120_000);
    stops.unshift(() => apiProcess.stop());
    const memory = rssPeaks({ api: apiProcess, worker }, 250);
    const base = `http://127.0.0.1:${apiProcess.port}`;
    const api = { base, headers: { ...(await directorHeaders(base)), 'content-type': 'application/json' } };
    const closings = [];
    for (const year of historyYears.slice(0, -1))
      closings.push(await closeYear(api, copy.url, history.facts.enterpriseId, String(year)));
    const monthEnd = await runMonthEnd(api, history.facts.enterpriseId, copy.url);
    const pack = await packTimes(temporal.address, history.facts.enterpriseId);
    // The day after the month: the business date the month end was run at.
    const endOfDay = await runEndOfDay(api, history.facts.enterpriseId, '2026-10-01');
    const { peakMb } = await memory.stop();
    const after = loadAverage();
    process.stdout.write(`history-period-ends: load average after ${after.join(' ')}\n`);
    return report({ history, closings, monthEnd, pack, endOfDay, peakMb, load: { before, after } });
  } finally {
    for (const stop of stops) await stop();
  }
}

/** One year's closing through the API, timed from the request to the closing's end (polled). */
async function closeYear(api: Api, url: string, enterpriseId: string, code: string) {
  const knex = createKnex(url, { poolMax: 1 });
  const year = await knex('exercices_comptables')
    .where({ enterprise_id: enterpriseId, code })
    .first('id')
    .finally(() => knex.destroy());
  const began = performance.now();
  await postJson(api, `/api/v1/enterprise/exercices/${year.id}/close/`, { reason: 'bench' });
  const closing = await until(`closing ${code}`, 1800, async () => {
    const state = (await getJson(api, `/api/v1/enterprise/exercices/${year.id}/`)).closing as {
      status: string;
      failure: string | null;
      result: string | null;
    };
    return state.status === 'running' ? undefined : state;
  });
  if (closing.status !== 'closed') throw new Error(`closing ${code}: ${closing.status} ${closing.failure}`);
  const seconds = round((performance.now() - began) / 1000, 2);
  process.stdout.write(`history-period-ends: year ${code} closed in ${seconds} s\n`);
  return { year: code, seconds, result: closing.result };
}

/**
 * The month end of `monthEndPeriod` through the API once the business date is past it, timed to its run's end, with its
 * steps.
 */
async function runMonthEnd(api: Api, enterpriseId: string, url: string) {
  const knex = createKnex(url, { poolMax: 1 });
  try {
    await knex('enterprise_configurations')
      .where({ enterprise_id: enterpriseId })
      .update({ business_date: '2026-10-01' });
  } finally {
    await knex.destroy();
  }
  const began = performance.now();
  const startedAt = Date.now();
  const run = await postJson(api, '/api/v1/enterprise/month-ends/', {
    enterprise: enterpriseId,
    period: monthEndPeriod,
  });
  const done = await until('month end', 3600, async () => {
    const state = await getJson(api, `/api/v1/enterprise/month-ends/${String(run.id)}/`);
    return state.status === 'running' ? undefined : state;
  });
  const seconds = round((performance.now() - began) / 1000, 2);
  if (done.status !== 'done')
    throw new Error(`month end: ${String(done.status)} ${JSON.stringify(done).slice(0, 1000)}`);
  process.stdout.write(`history-period-ends: month end ${monthEndPeriod} in ${seconds} s\n`);
  // In the order the workflow runs them, each step's time from the end of the one before (the first's from the
  // request).
  const answered = done.steps as { step: MonthEndStepName; finished_at: string; lines: unknown[] }[];
  const ordered = [...answered].sort(
    (one, other) => monthEndSteps.indexOf(one.step) - monthEndSteps.indexOf(other.step),
  );
  const steps = ordered.map((step, index) => ({
    step: step.step,
    seconds: round(
      (Date.parse(step.finished_at) - (index === 0 ? startedAt : Date.parse(ordered[index - 1]!.finished_at))) / 1000,
      2,
    ),
    lines: step.lines.length,
  }));
  return { period: monthEndPeriod, seconds, steps };
}

/** The reporting pack the month end started: waited for, its time from its workflow's start to its close. */
async function packTimes(address: string, enterpriseId: string) {
  const connection = await Connection.connect({ address });
  try {
    const handle = new Client({ connection }).workflow.getHandle(reportingPackWorkflowId(enterpriseId, monthEndPeriod));
    // The month end's run is marked done before its workflow starts the pack, in its next workflow task.
    await until('reporting pack started', 120, () =>
      handle.describe().then(
        () => true,
        (error: unknown) => (error instanceof WorkflowNotFoundError ? undefined : Promise.reject(error)),
      ),
    );
    const outcome = (await handle.result()) as { files: number };
    const described = await handle.describe();
    const seconds = round(((described.closeTime?.getTime() ?? Date.now()) - described.startTime.getTime()) / 1000, 2);
    process.stdout.write(`history-period-ends: reporting pack ${monthEndPeriod} in ${seconds} s\n`);
    return { period: monthEndPeriod, seconds, files: outcome.files };
  } finally {
    await connection.close();
  }
}

/** How the figures were taken, kept in the JSON beside them. */
const notes = [
  'On a copy of the seeded history (CREATE DATABASE … TEMPLATE), thrown away afterwards. API (createApp) and ' +
    'worker (runtime/worker.ts) each in a process of their own, a Temporal dev server; all on one 2-core ' +
    'machine shared with other sessions.',
  'Closings: POST /api/v1/enterprise/exercices/{id}/close/ for years 1 to 4 in turn, each polled every 250 ' +
    'ms to its end. Month end: the business date set to the 1st of October of year 5, then POST ' +
    '/api/v1/enterprise/month-ends/ polled to its end. The reporting pack: the workflow the month end starts, ' +
    "from its start to its close (Temporal's own times).",
  "Each account holds one deposit of June of year 5 (bench/history-seed.ts): September's savings interest has " +
    'a balance to earn on in every account.',
  'End of day of 1 October of year 5: 19 branches opened beside the head office, each day closed ' +
    '(POST /api/v1/cash/branch-days/), then POST /api/v1/enterprise/end-of-days/ polled to its end ' +
    '(provisioning of every loan, maturities, the business date moved); every loan and account is the head ' +
    "office's.",
];

type Measured = {
  history: SeededHistory;
  closings: Awaited<ReturnType<typeof closeYear>>[];
  monthEnd: Awaited<ReturnType<typeof runMonthEnd>>;
  pack: Awaited<ReturnType<typeof packTimes>>;
  endOfDay: Awaited<ReturnType<typeof runEndOfDay>>;
  peakMb: Record<string, number>;
  load: { before: number[]; after: number[] };
};

function report({ history, closings, monthEnd, pack, endOfDay, peakMb, load }: Measured): BenchmarkReport {
  const { facts } = history;
  const full = facts.size.scale === 1;
  const at = `${sizeLabel(facts)}, load ${load.before[0]} → ${load.after[0]}`;
  const slowest = closings.reduce((worst, closing) => (closing.seconds > worst.seconds ? closing : worst));
  const memory = peaksBySize('history-period-ends', facts, peakMb);
  const closingTimes = closings.map((closing) => `${closing.year} ${closing.seconds} s`).join(', ');
  const lines: TableLine[] = [
    {
      work: `month end: loan accrual on ${facts.size.loans} loans, savings interest on ${facts.size.accounts} accounts`,
      measured: `${monthEnd.seconds} s (${at})`,
      target: `≤ ${targets.monthEndSeconds} s at full size`,
      met: full && monthEnd.seconds <= targets.monthEndSeconds,
    },
    {
      work: 'year-end closing of a year of postings, through the API',
      measured: `slowest ${slowest.seconds} s (${slowest.year}; ${closingTimes}) (${at})`,
      target: `≤ ${targets.closingSeconds} s at full size`,
      met: full && slowest.seconds <= targets.closingSeconds,
    },
    {
      work: "the month's reporting pack",
      measured: `${pack.seconds} s, ${pack.files} files (${at})`,
      target: `≤ ${targets.packSeconds} s at full size`,
      met: full && pack.seconds <= targets.packSeconds,
    },
    {
      work: `end of day of ${endOfDayBranches} branches (provisioning ${facts.size.loans} loans)`,
      measured: `${endOfDay.seconds} s, the branches' days closed before in ${endOfDay.branchDaysSeconds} s (${at})`,
      target: `≤ ${targets.endOfDaySeconds} s at full size`,
      met: full && endOfDay.seconds <= targets.endOfDaySeconds,
    },
    {
      work: 'API and worker peak RSS over the period ends, by history size',
      measured: memory.line.measured,
      target: 'the largest size ≤ 1.3 × the smallest',
      met: memory.line.met,
    },
  ];
  const result = {
    name: 'history-period-ends',
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.availableParallelism(),
    loadAverage: load,
    history: { ...facts, folder: history.folder, reused: history.reused },
    closings,
    monthEnd,
    reportingPack: pack,
    endOfDay,
    peakRssMb: peakMb,
    peakRssBySize: memory.bySize,
    notes,
  };
  const summary =
    `${sizeLabel(facts)}: closings ${closingTimes}; month end ${monthEnd.seconds} s; pack ${pack.seconds} s; end ` +
    `of day ${endOfDay.seconds} s; peak RSS ${JSON.stringify(peakMb)}`;
  return { result, summary, lines };
}
