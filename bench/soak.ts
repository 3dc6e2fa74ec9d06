import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { ensureTemporalCli, startTemporalDevServer } from '../runtime/temporal-dev-server';
import { freePort } from '../runtime/free-port';
import { round, type BenchmarkReport } from './benchmark';
import { withBenchDatabase } from './bench-database';
import { checkBooks, seedAccounts, seedDirector } from './deposits-api.bench';
import { newEnterprise } from './ledger-posting.bench';
import { benchPassword, seedLending } from './loan-seed';
import { percentile, runLoad, type LoadOptions, type LoadResult } from './load';
import { checkBooks as checkPortfolio } from './repayments-api.bench';
import { startServerProcess, type ServerProcess } from './server-process';

/**
 * `npm run soak`: SOAK_MINUTES (10 by default) of a mixed load at a fixed rate on the real app and a real
 * worker, each in its own process, on loopback: deposits, withdrawals, repayments, reads, and loan approvals
 * (submission and four decisions through Temporal). Every minute one line: throughput, p99 per kind, errors
 * (5xx apart), API and worker RSS. At the end: memory flat after the first minute (growth ≤ 10 %), no 5xx, the
 * books balanced. The JSON goes to bench/results/soak.json, beside the benchmarks'.
 */
const minutes = Number(process.env.SOAK_MINUTES ?? 10);
const minuteMs = 60_000;
const growthAllowed = 0.1;
const accounts = 4;
const loans = 4;
const approvalEveryMs = 5000;
const rssEveryMs = 5000;
// Requests per second of each kind: connections × 1000 / intervalMs.
const rates = {
  deposits: { connections: 4, intervalMs: 250 },
  withdrawals: { connections: 2, intervalMs: 250 },
  repayments: { connections: loans, intervalMs: 500 },
  reads: { connections: 2, intervalMs: 100 },
} as const;
type Kind = keyof typeof rates | 'approvals';
const steps = ['cashier', 'branch_head', 'credit_committee', 'direction'] as const;

interface Minute {
  minute: number;
  perSecond: number;
  requests: number;
  errors: number;
  serverErrors: number;
  p99Ms: Record<Kind, number>;
  /** Median and peak of the RSS read every 5 s in the minute: one reading swings with the garbage collector. */
  apiRssMb: number;
  apiRssPeakMb: number;
  workerRssMb: number;
  workerRssPeakMb: number;
  loadAverage: number;
}

async function soak(knex: Knex, url: string): Promise<BenchmarkReport> {
  const world = await seed(knex);
  const temporal = await startTemporalDevServer({
    cliPath: ensureTemporalCli(),
    port: await freePort(),
    namespace: 'default',
  });
  const env = {
    BENCH_DATABASE_URL: url,
    BENCH_TEMPORAL_ADDRESS: temporal.address,
    BENCH_TASK_QUEUE: 'soak',
    BENCH_JWT_SECRET: randomBytes(32).toString('hex'),
  };
  const stops: (() => Promise<void>)[] = [temporal.stop];
  try {
    // The worker bundles the workflows as it starts: slow on a busy machine.
    const worker = await startServerProcess('servers/worker.ts', env, 180_000);
    stops.unshift(worker.stop);
    const api = await startServerProcess('servers/koa-app.ts', env);
    stops.unshift(api.stop);
    const base = `http://127.0.0.1:${api.port}`;
    const tokens = await signInAll(base);
    await openingDeposits(base, tokens.teller!, world.accounts);
    const figures: Minute[] = [];
    for (let minute = 1; minute <= minutes; minute += 1) {
      figures.push(await oneMinute(minute, base, tokens, world, api, worker));
      process.stdout.write(`${minuteLine(figures.at(-1)!)}\n`);
    }
    const books = { ...(await checkBooks(knex, base, world.enterpriseId)), ...(await checkPortfolio(knex)) };
    return report(figures, books);
  } finally {
    for (const stop of stops) await stop();
  }
}

/** A cooperative to soak: accounts to deposit on and withdraw from, disbursed loans to repay, members to lend to. */
async function seed(knex: Knex) {
  const enterpriseId = await newEnterprise(knex);
  const lending = await seedLending(knex, enterpriseId);
  const loanIds: string[] = [];
  for (let loan = 0; loan < loans; loan += 1) loanIds.push(await lending.disbursedLoan('10000000'));
  // One borrower per approval: a member's exposure never stops the next one.
  const borrowers: string[] = [];
  for (let member = 0; member < Math.ceil((minutes * minuteMs) / approvalEveryMs) + 1; member += 1)
    borrowers.push(await lending.newMember());
  const { accounts: accountIds } = await seedAccounts(knex, enterpriseId, accounts);
  await seedDirector(knex, enterpriseId);
  return { enterpriseId, productId: lending.productId, loanIds, borrowers, accounts: accountIds };
}
type World = Awaited<ReturnType<typeof seed>>;

async function signInAll(base: string): Promise<Record<string, string>> {
  const tokens: Record<string, string> = {};
  for (const username of ['teller', 'bench_teller', ...steps.map((step) => `bench_${step}`)]) {
    const response = await fetch(`${base}/api/v1/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: benchPassword }),
    });
    if (!response.ok) throw new Error(`sign-in of ${username} failed: ${response.status} ${await response.text()}`);
    tokens[username] = ((await response.json()) as { access: string }).access;
  }
  return tokens;
}

/** Enough on each account that the withdrawals of the whole run never meet its floor; also proves the route answers. */
async function openingDeposits(base: string, token: string, accountIds: string[]): Promise<void> {
  for (const account of accountIds) {
    const response = await fetch(`${base}/api/v1/members/accounts/${account}/deposits/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '10000000', reference: 'soak opening' }),
    });
    if (response.status !== 201)
      throw new Error(`the opening deposit failed: ${response.status} ${await response.text()}`);
  }
}

/** One minute of every kind at once, then the processes' memory. */
async function oneMinute(
  minute: number,
  base: string,
  tokens: Record<string, string>,
  world: World,
  api: ServerProcess,
  worker: ServerProcess,
): Promise<Minute> {
  const load = (kind: keyof typeof rates, options: Pick<LoadOptions, 'url' | 'method' | 'body'>, token: string) =>
    runLoad({
      ...options,
      ...rates[kind],
      headers: { authorization: `Bearer ${token}` },
      warmupMs: 0,
      durationMs: minuteMs,
      requestTimeoutMs: 10_000,
      maxSamples: 100_000,
    });
  const account = (connection: number) => `${base}/api/v1/members/accounts/${world.accounts[connection % accounts]}`;
  const rss = { api: [] as number[], worker: [] as number[] };
  const sampler = setInterval(() => {
    for (const [name, server] of [
      ['api', api],
      ['worker', worker],
    ] as const)
      void server.rssBytes().then(
        (bytes) => rss[name].push(bytes / 2 ** 20),
        () => undefined,
      );
  }, rssEveryMs);
  const [deposits, withdrawals, repayments, reads, approvals] = await Promise.all([
    load(
      'deposits',
      {
        url: (c) => `${account(c)}/deposits/`,
        method: 'POST',
        body: JSON.stringify({ amount: '2500', reference: 'soak' }),
      },
      tokens.teller!,
    ),
    load(
      'withdrawals',
      {
        url: (c) => `${account(c)}/withdrawals/`,
        method: 'POST',
        body: JSON.stringify({ amount: '1000', reference: 'soak' }),
      },
      tokens.teller!,
    ),
    load(
      'repayments',
      {
        url: `${base}/api/v1/loans/repayments/`,
        method: 'POST',
        body: (c) => JSON.stringify({ loan: world.loanIds[c], amount: '100', reference: 'soak' }),
      },
      tokens.bench_cashier!,
    ),
    load('reads', { url: (c) => (c === 0 ? `${account(c)}/` : `${account(c)}/statement/`) }, tokens.teller!),
    approvalsFor(base, tokens, world, minute),
  ]).finally(() => clearInterval(sampler));
  return minuteFigures(minute, { deposits, withdrawals, repayments, reads, approvals }, rss);
}

type Tally = Pick<LoadResult, 'requests' | 'errors' | 'serverErrors' | 'p99Ms'>;

/** A minute's figures: the requests of every kind, their p99, and the processes' RSS read during it. */
function minuteFigures(minute: number, byKind: Record<Kind, Tally>, rss: { api: number[]; worker: number[] }): Minute {
  const all = Object.values(byKind);
  const requests = all.reduce((sum, kind) => sum + kind.requests, 0);
  return {
    minute,
    perSecond: round(requests / (minuteMs / 1000), 1),
    requests,
    errors: all.reduce((sum, kind) => sum + kind.errors, 0),
    serverErrors: all.reduce((sum, kind) => sum + kind.serverErrors, 0),
    p99Ms: Object.fromEntries(Object.entries(byKind).map(([kind, result]) => [kind, round(result.p99Ms, 1)])) as Record<
      Kind,
      number
    >,
    apiRssMb: round(median(rss.api), 1),
    apiRssPeakMb: round(Math.max(...rss.api), 1),
    workerRssMb: round(median(rss.worker), 1),
    workerRssPeakMb: round(Math.max(...rss.worker), 1),
    loadAverage: round(os.loadavg()[0]!, 2),
  };
}

/**
 * One loan approval every `approvalEveryMs` for a minute, each through the API: the submission (which starts
 * the workflow) and the four decisions (Updates persisted by the worker). A circuit stops at its first failure.
 */
async function approvalsFor(
  base: string,
  tokens: Record<string, string>,
  world: World,
  minute: number,
): Promise<Tally> {
  const latencies: number[] = [];
  const tally = { requests: 0, errors: 0, serverErrors: 0 };
  const post = async (urlPath: string, token: string, body: object): Promise<{ id: string } | undefined> => {
    const began = performance.now();
    const response = await fetch(`${base}${urlPath}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined);
    const answer = (await response?.json().catch(() => undefined)) as { id: string } | undefined;
    if (response?.ok !== true) {
      tally.errors += 1;
      if ((response?.status ?? 0) >= 500) tally.serverErrors += 1;
      return undefined;
    }
    tally.requests += 1;
    latencies.push(performance.now() - began);
    return answer;
  };
  const circuits = minuteMs / approvalEveryMs;
  for (let circuit = 0; circuit < circuits; circuit += 1) {
    const due = performance.now() + approvalEveryMs;
    const borrower = world.borrowers[(minute - 1) * circuits + circuit]!;
    const application = await post('/api/v1/loans/applications/', tokens.bench_teller!, {
      client: borrower,
      product: world.productId,
      amount: '2400000',
      term_periods: 24,
    });
    for (const step of steps) {
      if (
        application === undefined ||
        (await post(`/api/v1/loans/applications/${application.id}/decisions/`, tokens[`bench_${step}`]!, {
          decision: 'approve',
        })) === undefined
      )
        break;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
  }
  return {
    ...tally,
    p99Ms: percentile(
      latencies.sort((a, b) => a - b),
      0.99,
    ),
  };
}

function minuteLine(figures: Minute): string {
  const p99 = Object.entries(figures.p99Ms)
    .map(([kind, ms]) => `${kind} ${ms}`)
    .join(', ');
  return (
    `minute ${figures.minute}: ${figures.perSecond} req/s, errors ${figures.errors} (5xx ${figures.serverErrors}), ` +
    `p99 ms ${p99}; RSS (median/peak) API ${figures.apiRssMb}/${figures.apiRssPeakMb} MB, worker ` +
    `${figures.workerRssMb}/${figures.workerRssPeakMb} MB; load average ${figures.loadAverage}`
  );
}

function median(values: number[]): number {
  return percentile(
    values.sort((a, b) => a - b),
    0.5,
  );
}

/**
 * RSS growth: the last minute's median against the lowest median after the warm-up (the first minute; in a
 * two-minute run, against the first). The lowest rather than the first: a high early figure would hide a slow leak.
 */
function growth(figures: Minute[], of: 'apiRssMb' | 'workerRssMb'): number {
  const afterWarmup = figures.length > 2 ? figures.slice(1) : figures;
  const lowest = Math.min(...afterWarmup.map((minute) => minute[of]));
  return round(figures.at(-1)![of] / lowest - 1, 3);
}

function report(
  figures: Minute[],
  books: Awaited<ReturnType<typeof checkBooks>> & Awaited<ReturnType<typeof checkPortfolio>>,
): BenchmarkReport {
  const memory = { apiGrowth: growth(figures, 'apiRssMb'), workerGrowth: growth(figures, 'workerRssMb') };
  const serverErrors = figures.reduce((sum, minute) => sum + minute.serverErrors, 0);
  const errors = figures.reduce((sum, minute) => sum + minute.errors, 0);
  const checks = {
    memoryFlat: figures.length > 1 && memory.apiGrowth <= growthAllowed && memory.workerGrowth <= growthAllowed,
    noServerErrors: serverErrors === 0,
    booksBalanced: books.balanced && books.accountsOutOfBalance === 0 && books.portfolioEqualsOutstanding,
  };
  const result = {
    name: 'soak',
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.availableParallelism(),
    minutes,
    rates: { ...rates, approvals: { circuitEveryMs: approvalEveryMs, requestsPerCircuit: 1 + steps.length } },
    perMinute: figures,
    memory,
    errors,
    serverErrors,
    books,
    checks,
    notes: [
      'API: the production app (createApp) in its own process; worker: createWorker (runtime/worker.ts) in its ' +
        'own process; a Temporal dev server (SQLite in memory) and one embedded PostgreSQL; the load generator in ' +
        'this process; all on one machine, loopback only.',
      'Each kind runs at a fixed rate (each connection starts a request every intervalMs, at once if the last ' +
        'answer took longer); approvals: one circuit (submission + four decisions) every 5 s, one new borrower ' +
        'each.',
      "memory: each minute, the median and peak of the RSS read every 5 s; growth is the last minute's median " +
        'against the lowest median after minute 1 (the warm-up); flat means ≤ 10 % for both processes.',
      'errors: every non-2xx answer, socket error or timeout (10 s); serverErrors: the 5xx among them.',
    ],
  };
  const passed = Object.values(checks).every(Boolean);
  const summary =
    `${minutes} min, ${errors} errors (5xx ${serverErrors}), RSS growth API ${round(memory.apiGrowth * 100, 1)} %, ` +
    `worker ${round(memory.workerGrowth * 100, 1)} %, books balanced ${checks.booksBalanced}: ` +
    `${passed ? 'passed' : 'FAILED'}`;
  return { result, summary };
}

async function main(): Promise<number> {
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > 60)
    throw new Error(`SOAK_MINUTES must be an integer from 1 to 60 (got ${process.env.SOAK_MINUTES})`);
  const { result, summary } = await withBenchDatabase(soak, 40);
  const file = path.join(__dirname, 'results', 'soak.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`soak: ${summary} (${path.relative(process.cwd(), file)})\n`);
  return Object.values((result as { checks: Record<string, boolean> }).checks).every(Boolean) ? 0 : 1;
}

// Bounded: the run's own minutes, its set-up (pgbench, the worker's bundle) and a margin.
setTimeout(
  () => {
    process.stderr.write('soak: still running well after its minutes, giving up\n');
    process.exit(1);
  },
  (minutes + 10) * minuteMs,
).unref();

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
