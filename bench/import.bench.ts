import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { businessDateOf } from '../activities/enterprise/configuration.activity';
import { freePort } from '../runtime/free-port';
import { ensureTemporalCli, startTemporalDevServer } from '../runtime/temporal-dev-server';
import { round, type Benchmark, type BenchmarkReport, type TableLine } from './benchmark';
import { benchActivityContext, withBenchDatabase } from './bench-database';
import { seedAccounts, seedDirector, tellerPassword } from './deposits-api.bench';
import { enterpriseCodes, issueSize, writeCooperative, type CooperativeSize, type EnterpriseCodes, type GeneratedFiles } from './import-files';
import { newEnterprise } from './ledger-posting.bench';
import { createBenchProduct } from './loan-seed';
import { startServerProcess, type ServerProcess } from './server-process';

/**
 * `npm run bench -- import` (issue 31, docs/domain.md §15.4): a generated cooperative (bench/import-files.ts)
 * moved in through the API at two sizes, each phase timed: the files uploaded (MB/s), then validated (rows/s).
 * The API and the worker each run in a process of their own, started afresh for each size, their resident set
 * read every 250 ms: the peaks at two sizes show whether memory grows with the files. Each phase is one entry of
 * `phases`: the tie-out, the dry run and apply are added there as issue 31's next slices land.
 * BENCH_IMPORT_MEMBERS sets the sizes (members, comma-separated; accounts 1.6 × and loans 0.2 × as in the issue).
 */
export const importBenchmark: Benchmark = {
  name: 'import',
  run: () => withBenchDatabase(measure),
};

const sizes = (process.env.BENCH_IMPORT_MEMBERS ?? '10000,50000').split(',').map(Number);
const scaled = (members: number): CooperativeSize => ({
  members,
  accounts: Math.round((members * issueSize.accounts) / issueSize.members),
  loans: Math.round((members * issueSize.loans) / issueSize.members),
  trialBalanceLines: issueSize.trialBalanceLines,
});

/** Minutes, not hours, for issue 31's 50 000 members: the whole import within 10 minutes, of which upload and validation within 3. */
const targetSeconds = 180;

interface Session {
  base: string;
  headers: Record<string, string>;
  importId: string;
  generated: GeneratedFiles;
}

interface PhaseFigures {
  seconds: number;
  rows: number;
  bytes?: number;
}

/** The import's phases in order; each answers what it did. */
const phases: readonly { name: string; run: (session: Session) => Promise<PhaseFigures> }[] = [
  { name: 'upload', run: uploadAll },
  { name: 'validation', run: validateAll },
];

async function measure(knex: Knex, url: string): Promise<BenchmarkReport> {
  const loadBefore = os.loadavg();
  process.stdout.write(`import: load average before ${loadBefore.map((value) => value.toFixed(2)).join(' ')}\n`);
  const enterpriseId = await newEnterprise(knex);
  const codes = await seedImportEnterprise(knex, enterpriseId);
  const cutOverDate = await businessDateOf(knex, enterpriseId, new Date());
  const temporal = await startTemporalDevServer({ cliPath: ensureTemporalCli(), port: await freePort(), namespace: 'default' });
  const runs = [];
  try {
    const env = { BENCH_DATABASE_URL: url, BENCH_TEMPORAL_ADDRESS: temporal.address, BENCH_TASK_QUEUE: 'import', BENCH_JWT_SECRET: randomBytes(32).toString('hex') };
    for (const members of sizes) runs.push(await runSize(scaled(members), { env, codes, enterpriseId, cutOverDate }));
  } finally {
    await temporal.stop();
  }
  const loadAfter = os.loadavg();
  process.stdout.write(`import: load average after ${loadAfter.map((value) => value.toFixed(2)).join(' ')}\n`);
  return report(runs, { before: loadBefore, after: loadAfter });
}

/** A savings product, a loan product and a director who imports (password `tellerPassword`); the enterprise's codes. */
async function seedImportEnterprise(knex: Knex, enterpriseId: string): Promise<EnterpriseCodes> {
  const { teller } = await seedAccounts(knex, enterpriseId, 1);
  await seedDirector(knex, enterpriseId);
  await createBenchProduct(benchActivityContext(knex), { ...teller, grants: [{ role: 'admin', enterpriseId, branchId: null }] }, enterpriseId);
  return enterpriseCodes(knex, enterpriseId);
}

type RunSetting = { env: Record<string, string>; codes: EnterpriseCodes; enterpriseId: string; cutOverDate: string };

async function runSize(size: CooperativeSize, setting: RunSetting) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-import-bench-'));
  const stops: (() => Promise<void>)[] = [async () => fs.rmSync(directory, { recursive: true, force: true })];
  try {
    const began = performance.now();
    const generated = await writeCooperative(directory, size, setting.codes, { cutOverDate: setting.cutOverDate, seed: 31 });
    const generation = { seconds: (performance.now() - began) / 1000, bytes: generated.files.reduce((sum, file) => sum + fs.statSync(file.file).size, 0) };
    // The worker bundles the workflows as it starts: slow on a busy machine.
    const worker = await startServerProcess('servers/worker.ts', setting.env, 180_000);
    stops.unshift(worker.stop);
    const api = await startServerProcess('servers/koa-app.ts', setting.env);
    stops.unshift(api.stop);
    const peaks = peakSampler({ api, worker });
    stops.unshift(async () => void (await peaks.stop()));
    const session = await openSession(`http://127.0.0.1:${api.port}`, setting, generated);
    const figures: Record<string, PhaseFigures> = {};
    for (const phase of phases) {
      figures[phase.name] = await phase.run(session);
      process.stdout.write(`import: ${size.members} members, ${phase.name}: ${JSON.stringify(figures[phase.name])}\n`);
    }
    const peakRssMb = await peaks.stop();
    return { size, generation, phases: figures, peakRssMb };
  } finally {
    for (const stop of stops) await stop();
  }
}

/** The largest resident set of each process, read every 250 ms until stopped. */
function peakSampler(processes: Record<string, ServerProcess>) {
  const peaks: Record<string, number> = Object.fromEntries(Object.keys(processes).map((name) => [name, 0]));
  let stopped = false;
  const sampling = (async () => {
    while (!stopped) {
      for (const [name, child] of Object.entries(processes)) peaks[name] = Math.max(peaks[name]!, await child.rssBytes());
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await sampling;
      return Object.fromEntries(Object.entries(peaks).map(([name, bytes]) => [name, round(bytes / 1024 / 1024, 0)]));
    },
  };
}

async function openSession(base: string, setting: RunSetting, generated: GeneratedFiles): Promise<Session> {
  const token = await fetch(`${base}/api/v1/token/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'director', password: tellerPassword }) });
  if (!token.ok) throw new Error(`sign-in failed: ${token.status} ${await token.text()}`);
  const headers = { authorization: `Bearer ${((await token.json()) as { access: string }).access}` };
  const created = await fetch(`${base}/api/v1/imports/`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ enterprise: setting.enterpriseId, cut_over_date: setting.cutOverDate }) });
  if (created.status !== 201) throw new Error(`the import was not created: ${created.status} ${await created.text()}`);
  return { base, headers, importId: ((await created.json()) as { id: string }).id, generated };
}

/** Each file streamed from disk as the raw body, one after the other. */
async function uploadAll(session: Session): Promise<PhaseFigures> {
  const began = performance.now();
  let bytes = 0;
  for (const { kind, file, rows } of session.generated.files) {
    const body = Readable.toWeb(fs.createReadStream(file)) as ReadableStream<Uint8Array>;
    const answer = await fetch(`${session.base}/api/v1/imports/${session.importId}/files/${kind}/`, {
      method: 'PUT', headers: { ...session.headers, 'content-type': 'text/csv' }, body, duplex: 'half',
    } as RequestInit);
    const uploaded = (await answer.json()) as { files?: { kind: string; rows: number }[] };
    if (answer.status !== 200 || uploaded.files?.find((entry) => entry.kind === kind)?.rows !== rows) throw new Error(`${kind} not uploaded whole: ${answer.status} ${JSON.stringify(uploaded)}`);
    bytes += fs.statSync(file).size;
  }
  return { seconds: (performance.now() - began) / 1000, rows: session.generated.files.reduce((sum, file) => sum + file.rows, 0), bytes };
}

/** The validation route; the generated files must come out clean. Counts the rows of the kinds judged so far. */
async function validateAll(session: Session): Promise<PhaseFigures> {
  const began = performance.now();
  const answer = await fetch(`${session.base}/api/v1/imports/${session.importId}/validation/`, { method: 'POST', headers: session.headers });
  const validated = (await answer.json()) as { status?: string; problems?: number };
  if (answer.status !== 200 || validated.status !== 'validated') throw new Error(`validation: ${answer.status} ${JSON.stringify(validated)}`);
  const judged = session.generated.files.filter((file) => file.kind === 'members' || file.kind === 'member-accounts');
  return { seconds: (performance.now() - began) / 1000, rows: judged.reduce((sum, file) => sum + file.rows, 0) };
}

type Run = Awaited<ReturnType<typeof runSize>>;

function report(runs: readonly Run[], load: { before: number[]; after: number[] }): BenchmarkReport {
  const largest = runs.at(-1)!;
  const smallest = runs[0]!;
  const seconds = Object.values(largest.phases).reduce((sum, phase) => sum + phase.seconds, 0);
  const perSecond = (phase: PhaseFigures) => round(phase.rows / phase.seconds, 0);
  const megabytesPerSecond = (phase: PhaseFigures) => round((phase.bytes ?? 0) / 1024 / 1024 / phase.seconds, 2);
  const rss = (run: Run) => `API ${run.peakRssMb.api} MB, worker ${run.peakRssMb.worker} MB`;
  const lines: TableLine[] = [{
    work: `import of ${largest.size.members} members, ${largest.size.accounts} accounts, ${largest.size.loans} loans: upload and validation`,
    measured: `${round(seconds, 1)} s (upload ${megabytesPerSecond(largest.phases.upload!)} MB/s, validation ${perSecond(largest.phases.validation!)} rows/s)`,
    target: `≤ ${targetSeconds} s at ${issueSize.members} members`,
    met: largest.size.members >= issueSize.members && seconds <= targetSeconds,
  }, {
    work: `import peak RSS, ${largest.size.members} vs ${smallest.size.members} members`,
    measured: `${rss(largest)} vs ${rss(smallest)}`,
    target: 'API and worker ≤ 1.3 × (memory does not grow with the files)',
    met: largest.peakRssMb.api! <= 1.3 * smallest.peakRssMb.api! && largest.peakRssMb.worker! <= 1.3 * smallest.peakRssMb.worker!,
  }];
  const result = {
    name: 'import', date: new Date().toISOString(), node: process.version, cpus: os.availableParallelism(), loadAverage: load,
    runs: runs.map((run) => ({
      ...run,
      rowsPerSecond: Object.fromEntries(Object.entries(run.phases).map(([name, phase]) => [name, perSecond(phase)])),
      uploadMbPerSecond: megabytesPerSecond(run.phases.upload!),
    })),
    notes: [
      'The generated files (bench/import-files.ts, seed 31) are CSV; the API (createApp) and a worker run in processes of their own, started afresh for each size; one embedded PostgreSQL and a Temporal dev server on the same machine.',
      'Validation judges members and member accounts so far (issue 31\'s first slice) and runs in the API process; the worker idles until the import workflow takes the validation over.',
      'Rerun when the load average before was over 1: the machine is shared.',
    ],
  };
  return { result, summary: runs.map((run) => `${run.size.members} members: ${JSON.stringify(run.phases)}, ${rss(run)}`).join('; '), lines };
}
