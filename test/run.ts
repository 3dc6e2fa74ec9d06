import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import pg from 'pg';
import { createKnex, migrateToLatest } from '../db/knex';
import { startEmbeddedPostgres } from '../runtime/embedded-postgres';
import { ensureTemporalCli, startTemporalDevServer } from '../runtime/temporal-dev-server';
import { templateDatabase, testEnvironmentVariables } from './helpers/environment';
import { freePort } from './helpers/ports';

/**
 * `npm test`: starts ONE PostgreSQL and ONE Temporal dev server for the whole run, migrates a template
 * database that every test file clones, bundles the workflow code once, then runs ava and stops everything.
 * Arguments are passed to ava (`npm test -- test/db/sequences.test.ts`).
 */
async function main(): Promise<number> {
  const timings: Record<string, number> = {};
  const time = async <T>(phase: string, work: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    try {
      return await work();
    } finally {
      timings[phase] = Date.now() - started;
    }
  };
  // Before anything starts: a machine without Chromium stops at once, with the command that installs it.
  const browser: Record<string, string> = needsBrowser(process.argv.slice(2))
    ? { CHROMIUM_PATH: ensureChromium() }
    : {};
  // Under /tmp and world-traversable: when run as root, PostgreSQL runs as the `postgres` user.
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-test-'));
  fs.chmodSync(workDir, 0o755);
  const stops: (() => Promise<void>)[] = [];
  try {
    const [pgPort, temporalPort] = [await freePort(), await freePort()];
    const [postgres, temporal] = await time('start PostgreSQL and Temporal', () =>
      Promise.all([
        startEmbeddedPostgres({
          dataDir: path.join(workDir, 'pg'),
          port: pgPort,
          password: randomBytes(16).toString('hex'),
        }),
        startTemporalDevServer({ cliPath: ensureTemporalCli(), port: temporalPort, namespace: 'default' }),
      ]),
    );
    stops.push(postgres.stop, temporal.stop);
    await time('migrate template database', () => createTemplate(postgres.url));
    const bundlePath = path.join(workDir, 'workflow-bundle.js');
    await time('bundle workflows', async () => {
      const bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: quietLogger });
      fs.writeFileSync(bundlePath, bundle.code);
    });
    const timingsFile = path.join(workDir, 'file-timings.jsonl');
    const env = testEnvironmentVariables({
      postgresUrl: postgres.url,
      temporalAddress: temporal.address,
      bundlePath,
      timingsFile,
    });
    const code = await time('ava', () => runAva(process.argv.slice(2), { ...env, ...browser }));
    printSlowestFiles(timingsFile);
    return code;
  } finally {
    await Promise.all(stops.map((stop) => stop().catch(() => undefined)));
    fs.rmSync(workDir, { recursive: true, force: true });
    process.stderr.write(
      `test phases: ${Object.entries(timings)
        .map(([phase, ms]) => `${phase} ${(ms / 1000).toFixed(1)} s`)
        .join(', ')}\n`,
    );
  }
}

/** The whole suite, or named files among which the docs browser test: Chromium is needed. */
function needsBrowser(args: string[]): boolean {
  const files = args.filter((arg) => !arg.startsWith('-'));
  return files.length === 0 || files.some((file) => file.includes('docs-browser'));
}

/**
 * scripts/ensure-chromium: CHROMIUM_PATH, `chromium` on PATH, or installed with apt-get when root; else its message.
 */
function ensureChromium(): string {
  try {
    return execFileSync('bash', [path.join(__dirname, '..', 'scripts', 'ensure-chromium')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
      .toString()
      .trim();
  } catch {
    throw new Error('No Chromium for the docs browser test (scripts/ensure-chromium: see its message above).');
  }
}

async function createTemplate(maintenanceUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: maintenanceUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${templateDatabase}`);
  await client.end();
  const url = new URL(maintenanceUrl);
  url.pathname = `/${templateDatabase}`;
  const knex = createKnex(url.toString());
  try {
    await migrateToLatest(knex);
  } finally {
    await knex.destroy(); // no session may stay on a template while it is cloned
  }
}

/**
 * The 10 slowest test files of the run and the sum of every file's time, so that growth is seen when it happens
 * (each file's process, wall time; ava runs as many files at once as the machine has cores).
 */
function printSlowestFiles(timingsFile: string): void {
  if (!fs.existsSync(timingsFile)) return;
  const files = fs
    .readFileSync(timingsFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { file: string; ms: number });
  files.sort((a, b) => b.ms - a.ms);
  const total = files.reduce((sum, { ms }) => sum + ms, 0);
  process.stderr.write(
    `slowest test files (${files.length} run, ${(total / 1000).toFixed(0)} s in all):\n${files
      .slice(0, 10)
      .map(({ file, ms }) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`)
      .join('\n')}\n`,
  );
}

function runAva(args: string[], env: Record<string, string>): Promise<number> {
  const ava = spawn(
    process.execPath,
    [path.join(__dirname, '..', 'node_modules', 'ava', 'entrypoints', 'cli.mjs'), ...args],
    {
      stdio: 'inherit',
      env: { ...process.env, ...env },
    },
  );
  const forward = (signal: NodeJS.Signals) => ava.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => ava.on('exit', (code) => resolve(code ?? 1)));
}

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => process.stderr.write(`${message}\n`),
};

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`npm test: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
