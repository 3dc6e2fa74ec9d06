import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import test, { type ExecutionContext } from 'ava';
import pg from 'pg';
import { createKnex, type Knex } from '../../db/knex';
import type { workerSelfCheck } from '../../workflows';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import { fileTeardown } from '../helpers/teardown';

/**
 * Production runs the compiled JavaScript of `npm run build`, not the sources through tsx. This file builds from
 * what the Dockerfile's build stage copies, then runs the processes from a folder holding dist/ and node_modules
 * only, as the image's final stage does. It catches what only the compiled layout shows: a file read by path that
 * the build leaves out, a package the image lacks, migrations recorded under other names than the sources' (a
 * database migrated by `npm start` or the tests would be migrated again), workflows that do not bundle from dist/.
 */

const root = path.join(__dirname, '..', '..');
const files = fileTeardown(test);
const execFileAsync = promisify(execFile);
const readyTimeoutMs = 120_000; // the worker bundles the workflows at start, beside the other test files
// Beyond ava's 60 s: a test waits up to readyTimeoutMs for its process, then talks to it.
const processTestTimeoutMs = readyTimeoutMs + 60_000;

/** The sources the Dockerfile's `build` stage copies from the build context (its COPY instructions). */
function buildStageSources(): string[] {
  const sources: string[] = [];
  let stage: string | undefined;
  for (const line of fs
    .readFileSync(path.join(root, 'Dockerfile'), 'utf8')
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)) {
    const [instruction = '', ...args] = line.trim().split(/\s+/);
    if (instruction.toUpperCase() === 'FROM') stage = args[2]; // FROM <image> AS <name>
    if (stage !== 'build' || instruction.toUpperCase() !== 'COPY' || args.some((arg) => arg.startsWith('--from=')))
      continue;
    sources.push(...args.filter((arg) => !arg.startsWith('--')).slice(0, -1)); // the last one is the destination
  }
  return sources;
}

/**
 * Builds as the image does; returns the folder to run from, holding dist/ as `npm run build` made it and node_modules.
 */
async function buildImageFolder(): Promise<string> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-compiled-'));
  files.teardown(() => fs.rmSync(work, { recursive: true, force: true }));
  const build = path.join(work, 'build');
  for (const source of buildStageSources())
    fs.cpSync(path.join(root, source), path.join(build, source), { recursive: true });
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(build, 'node_modules'));
  await execFileAsync('npm', ['run', 'build'], { cwd: build });
  const folder = path.join(work, 'image');
  fs.cpSync(path.join(build, 'dist'), path.join(folder, 'dist'), { recursive: true });
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(folder, 'node_modules'));
  return folder;
}

let image = '';

test.before(async (t) => {
  t.timeout(300_000); // compiling takes some 20 s of CPU, more beside the other test files
  image = await buildImageFolder();
});

/** The environment of a production process: nothing inherited but PATH, the test run's PostgreSQL and Temporal. */
function productionEnvironment(variables: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    JWT_SECRET: randomBytes(32).toString('hex'),
    TEMPORAL_ADDRESS: testEnvironment().temporalAddress,
    DATA_DIR: path.join(path.dirname(image), 'data'), // removed with the build
    LOG_LEVEL: 'info',
    INITIAL_ADMIN_PASSWORD: randomBytes(16).toString('hex'),
    ...variables,
  };
}

type LogLine = Record<string, unknown>;

interface RunningProcess {
  /** The JSON log lines written until the awaited one, included. */
  logs: LogLine[];
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `node <script>` from the image folder, as the image's CMD runs it, once it has logged `readyMessage`; killed at
 * the end of the test if still running.
 */
async function startNode(
  t: ExecutionContext,
  script: string,
  env: Record<string, string>,
  readyMessage: string,
): Promise<RunningProcess> {
  const child = spawn(process.execPath, [script], { cwd: image, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  t.teardown(async () => {
    child.kill('SIGKILL');
    await exited;
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const tooLate = setTimeout(() => child.kill('SIGKILL'), readyTimeoutMs);
  const logs: LogLine[] = [];
  for await (const line of readline.createInterface({ input: child.stdout })) {
    if (!line.startsWith('{')) continue;
    logs.push(JSON.parse(line) as LogLine);
    if (logs.at(-1)?.msg === readyMessage) break;
  }
  clearTimeout(tooLate);
  child.stdout.resume(); // keep draining what it writes next, so that it never blocks on a full pipe
  if (logs.at(-1)?.msg !== readyMessage) {
    throw new Error(
      `${script} stopped or took over ${readyTimeoutMs} ms without logging "${readyMessage}":\n` +
        `${logs.map((log) => JSON.stringify(log)).join('\n')}\n${stderr}`,
    );
  }
  return {
    logs,
    exited,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

const migrationNames = async (knex: Knex): Promise<string[]> =>
  (await knex('knex_migrations').orderBy('id').pluck('name')) as string[];

/** An empty database of its own (no migration), dropped when the test ends. */
async function createEmptyDatabase(t: ExecutionContext): Promise<{ url: string; knex: Knex }> {
  const { postgresUrl } = testEnvironment();
  const name = `compiled_${process.pid}_${randomBytes(4).toString('hex')}`;
  const maintenance = async (sql: string) => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await maintenance(`CREATE DATABASE ${name}`);
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  const knex = createKnex(url.toString());
  t.teardown(async () => {
    await knex.destroy();
    await maintenance(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  return { url: url.toString(), knex };
}

test('the compiled code requires Node built-ins and production dependencies only (tsx among none)', (t) => {
  const { dependencies } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const required = new Set<string>();
  const visit = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith('.js')) {
        for (const [, specifier = ''] of fs
          .readFileSync(full, 'utf8')
          .matchAll(/\brequire(?:\.resolve)?\("([^".][^"]*)"\)/g)) {
          required.add(
            specifier
              .split('/')
              .slice(0, specifier.startsWith('@') ? 2 : 1)
              .join('/'),
          );
        }
      }
    }
  };
  visit(path.join(image, 'dist'));
  t.true(required.has('knex'), `the scan found ${[...required].join(', ')}`);
  t.deepEqual(
    [...required].filter((name) => !isBuiltin(name) && !(name in dependencies)),
    [],
  );
});

test('the compiled migrations build an empty database and record the names the sources record', async (t) => {
  t.timeout(processTestTimeoutMs);
  const empty = await createEmptyDatabase(t);
  const migrate = await startNode(
    t,
    'dist/runtime/migrate-main.js',
    productionEnvironment({ DATABASE_URL: empty.url }),
    'migrations applied',
  );
  t.is(await migrate.exited, 0);
  const applied = migrate.logs.at(-1)?.applied;
  // The template every test database clones was migrated from the sources, through tsx (test/run.ts).
  const { knex } = await createTestDatabase(t);
  const names = await migrationNames(knex);
  t.true(
    names.every((name) => name.endsWith('.ts')),
    names.join(', '),
  );
  t.deepEqual(applied, names);
  t.deepEqual(await migrationNames(empty.knex), names);
});

test('the compiled API starts on a database the sources migrated, runs no migration again, and serves', async (t) => {
  t.timeout(processTestTimeoutMs);
  const { url, knex } = await createTestDatabase(t);
  const recorded = await migrationNames(knex);
  const api = await startNode(
    t,
    'dist/runtime/api-main.js',
    productionEnvironment({ DATABASE_URL: url, PORT: '0' }),
    'api listening',
  );
  t.deepEqual(api.logs.find((log) => log.msg === 'schema up to date')?.applied, []);
  t.deepEqual(await migrationNames(knex), recorded);

  const base = `http://127.0.0.1:${String(api.logs.at(-1)?.port)}`;
  t.is((await fetch(`${base}/healthz`)).status, 200);
  t.is((await fetch(`${base}/readyz`)).status, 200);
  // package.json, read by the compiled code from dist/, gives the document its version.
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const schema = (await (await fetch(`${base}/api/v1/schema/`)).json()) as { info: { version: string } };
  t.is(schema.info.version, version);
  // Swagger UI's files come from node_modules, found from dist/.
  const page = await (await fetch(`${base}/api/v1/docs/`)).text();
  const asset = /\/api\/v1\/docs\/assets\/[^"']+\.js/.exec(page)?.[0];
  t.truthy(asset, page);
  t.is((await fetch(`${base}${asset ?? ''}`)).status, 200);

  t.is(await api.stop(), 0, 'SIGTERM drains and exits cleanly');
});

test('the compiled worker bundles the compiled workflows and runs one against its database', async (t) => {
  t.timeout(processTestTimeoutMs);
  const { url, knex } = await createTestDatabase(t);
  const taskQueue = `test-${randomBytes(6).toString('hex')}`;
  const worker = await startNode(
    t,
    'dist/runtime/worker-main.js',
    productionEnvironment({ DATABASE_URL: url, TEMPORAL_TASK_QUEUE: taskQueue }),
    'worker polling',
  );

  const connection = await Connection.connect({ address: testEnvironment().temporalAddress });
  t.teardown(() => connection.close());
  const result = await new Client({ connection }).workflow.execute<typeof workerSelfCheck>('workerSelfCheck', {
    taskQueue,
    workflowId: `worker-self-check-${taskQueue}`,
    args: [{}],
  });
  t.is(result.taskQueue, taskQueue);
  t.is(result.latestMigration, (await migrationNames(knex)).pop() ?? null);

  t.is(await worker.stop(), 0, 'SIGTERM drains and exits cleanly');
});
