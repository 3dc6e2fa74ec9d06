import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import { enterpriseCodes, writeCooperative, type GeneratedFiles } from '../../bench/import-files';
import type { ImportOutcome, importWorkflow } from '../../workflows/import.workflow';
import { importWorkflowId } from '../../workflows/identities';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import { validateImport } from '../helpers/imports';
import { createLoanWorld, type LoanWorld } from '../helpers/loans';
import { startWorkerProcess, type ServiceProcess } from '../helpers/processes';
import { holdRowLock } from '../helpers/row-lock';
import { startTcpRelay, type TcpRelay } from '../helpers/tcp-relay';
import { fileTeardown } from '../helpers/teardown';
import { until } from '../helpers/until';
import { newTaskQueue } from '../helpers/worker';

/**
 * Issue 31, apply step 4: a worker killed mid-apply resumes where it stopped, and nothing is applied twice
 * (docs/domain.md §15.1). A worker process, reaching Temporal through a relay, applies a generated cooperative
 * (1 500 members, 1 500 accounts, loans): two batches of members commit, then the first batch of accounts
 * stops inside its transaction on a lock the test holds on the savings products. The relay is frozen, the lock
 * released: the batch commits unheard, and the worker dies by SIGKILL. Its connections end with it (PostgreSQL
 * sees the socket close), so no lock of it outlives it; the relay is closed too, so that no poll of the dead worker
 * still pending at Temporal takes a task meant for the next one. A second worker, started as the relay froze, takes the
 * batch over once its timeout (10 s, the workflow's input) expires: it must start after the batch committed, not
 * apply it again.
 */

const file = fileTeardown(test);
const size = { members: 1500, accounts: 1500, loans: 20, trialBalanceLines: 30 };
const cutOverDate = '2026-10-31';
// The time a batch lost with its worker takes to come back (short, so that the test is quick), and the bound on
// the wait for the result: a stuck apply fails naming what it was doing, never hangs the suite.
const [batchTimeoutSeconds, resultTimeoutMs] = [10, 60_000];

interface Setting {
  /** The import, validated, and the files it was made of. */
  id: string;
  generated: GeneratedFiles;
  knex: Knex;
  app: TestApp;
  temporal: Client;
  world: LoanWorld;
  relay: TcpRelay;
  firstWorker: ServiceProcess;
  /** How a worker process of the test is started (its database and task queue). */
  worker: { databaseUrl: string; taskQueue: string };
}

/**
 * The world, the generated files, the first worker (through the relay) started meanwhile, and the import validated by
 * it.
 */
async function validatedImport(t: ExecutionContext): Promise<Setting> {
  const { knex, url } = await createTestDatabase(file);
  const taskQueue = newTaskQueue();
  const relay = await startTcpRelay(testEnvironment().temporalAddress);
  file.teardown(() => relay.close());
  const worker = { databaseUrl: url, taskQueue };
  const starting = startWorkerProcess(file, { ...worker, temporalAddress: relay.address });
  const connection = await Connection.connect({ address: testEnvironment().temporalAddress });
  file.teardown(() => connection.close());
  const app = await startTestApp(file, { knex, taskQueue });
  const world = await createLoanWorld(app, knex, 'ICR', { capital: false });
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-import-crash-'));
  file.teardown(async () => fs.rmSync(directory, { recursive: true, force: true }));
  const generated = await writeCooperative(directory, size, await enterpriseCodes(knex, world.enterpriseId), {
    cutOverDate,
    seed: 31,
  });
  const direction = world.users.direction!.headers;
  const created = await app.request('POST', '/api/v1/imports/', {
    headers: direction,
    json: { enterprise: world.enterpriseId, cut_over_date: cutOverDate },
  });
  t.is(created.status, 201, created.text);
  const id = created.body.id as string;
  for (const { kind, file: csv } of generated.files.filter((entry) => entry.rows > 0)) {
    const uploaded = await app.request('PUT', `/api/v1/imports/${id}/files/${kind}/`, {
      headers: { ...direction, 'content-type': 'text/csv' },
      body: fs.readFileSync(csv),
    });
    t.is(uploaded.status, 200, uploaded.text);
  }
  const firstWorker = await starting;
  t.like(await validateImport(app, id, direction, resultTimeoutMs), {
    status: 'validated',
    problems: 0,
    differences: 0,
  });
  return { knex, app, temporal: new Client({ connection }), world, relay, firstWorker, worker, generated, id };
}

/**
 * The import's workflow started again as the validation started it, but with the short batch timeout: it finds the
 * import validated and waits.
 */
async function restartWithShortBatches(setting: Setting) {
  const { temporal, world, id } = setting;
  const workflowId = importWorkflowId(id);
  await temporal.workflow.getHandle(workflowId).terminate('a shorter batch timeout for the test');
  const input = {
    importId: id,
    requestedBy: world.users.direction!.id,
    requestId: null,
    lookSeconds: 86_400,
    batchTimeoutSeconds,
  };
  return temporal.workflow.start<typeof importWorkflow>('importWorkflow', {
    taskQueue: setting.worker.taskQueue,
    workflowId,
    args: [input],
  });
}

/** The backends of the worker processes (runtime/worker-main.ts names its pool). */
const workerBackends = async (knex: Knex) =>
  Number(
    (await knex('pg_stat_activity')
      .where({ application_name: 'coopbank-worker' })
      .whereRaw('datname = current_database()')
      .count({ count: '*' })
      .first())!.count,
  );

interface Described {
  describe(): Promise<{ raw: { pendingActivities?: unknown[] | null } }>;
}

/** What a stuck apply was doing: the batches recorded, the import's status, the workflow's pending activities. */
async function stateOf({ knex, id }: Setting, handle: Described): Promise<string> {
  const batches = await knex('import_batches')
    .where({ import_id: id })
    .orderBy('applied_at')
    .select('kind', 'last_row');
  const { status } = await knex('imports').where({ id }).first('status');
  const { raw } = await handle.describe();
  return JSON.stringify({ status, batches, pending: raw.pendingActivities });
}

/** The workflow's result within `resultTimeoutMs`, or a failure naming what it was doing. */
async function boundedResult(
  setting: Setting,
  handle: Described & { result(): Promise<ImportOutcome> },
): Promise<ImportOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void stateOf(setting, handle).then((state) =>
        reject(new Error(`the import ${setting.id} was not applied within ${resultTimeoutMs / 1000} s: ${state}`)),
      );
    }, resultTimeoutMs);
  });
  try {
    return await Promise.race([handle.result(), late]);
  } finally {
    clearTimeout(timer);
  }
}

test(
  'an import whose worker is killed mid-apply, a batch committed unheard: each row applied once, ' +
    'batches contiguous, one opening entry per branch, reconciled',
  async (t) => {
    t.timeout(150_000);
    const setting = await validatedImport(t);
    const { knex, app, world, relay, firstWorker, id } = setting;
    const handle = await restartWithShortBatches(setting);
    const products = (await knex('savings_products')
      .where({ enterprise_id: world.enterpriseId })
      .pluck('id')) as string[];
    const locks = await Promise.all(products.map((product) => holdRowLock(file, knex, 'savings_products', product)));

    const asked = await app.request('POST', `/api/v1/imports/${id}/application/`, {
      headers: world.users.direction!.headers,
      json: {},
    });
    t.is(asked.status, 202, asked.text);
    const approved = await app.request('POST', `/api/v1/approvals/requests/${asked.body.id as string}/approve/`, {
      headers: world.users.root!.headers,
      json: {},
    });
    t.is(approved.status, 200, approved.text);

    const batches = () =>
      knex('import_batches')
        .where({ import_id: id })
        .orderBy(['applied_at', 'last_row'])
        .select('kind', 'last_row', 'rows');
    await Promise.any(locks.map((lock) => lock.waiters(1)));
    relay.freeze();
    t.deepEqual(
      (await batches()).map((batch) => batch.kind),
      ['members', 'members'],
      'the members applied, the first batch of accounts waiting',
    );
    // The second worker starts now: nothing reaches the first one any more, and its start overlaps the batch's timeout.
    const secondWorker = startWorkerProcess(file, setting.worker);
    for (const lock of locks) await lock.release();
    // At least that batch: a retry the first worker began before the freeze may commit the next one too, unheard as
    // well.
    await until('the first batch of accounts committed, unheard', async () => (await batches()).length >= 3);
    await firstWorker.kill();
    // Its connections to Temporal end too (the server's keepalive would see them dead): its long polls pending there,
    // answered into the frozen relay, would each swallow a task (the batch's retry, a workflow task) until it times
    // out.
    await relay.close();
    await until("the killed worker's connections ended", async () => (await workerBackends(knex)) === 0);
    t.is((await knex('imports').where({ id }).first('status')).status, 'applying');
    await secondWorker;

    t.like(await boundedResult(setting, handle), { status: 'applied', reconciliation: { reconciled: true } });
    await assertAppliedOnce(t, setting);
    const { events } = await handle.fetchHistory();
    await t.notThrowsAsync(
      Worker.runReplayHistory(
        { workflowBundle: { codePath: testEnvironment().bundlePath } },
        { events },
        handle.workflowId,
      ),
    );
  },
);

/** Every row of the files applied once, the batches of each kind contiguous, one opening entry per branch. */
async function assertAppliedOnce(t: ExecutionContext, { knex, world, generated, id }: Setting): Promise<void> {
  t.is((await knex('imports').where({ id }).first('status')).status, 'applied');
  const rowsOf = (kind: string) => generated.files.find((entry) => entry.kind === kind)!.rows;
  const once = async (table: string, key: string) =>
    knex(table)
      .where({ import_id: id })
      .first(knex.raw('count(*)::int AS count'), knex.raw(`count(DISTINCT ${key})::int AS distinct`));
  t.deepEqual(await once('client_profiles', 'member_number'), {
    count: rowsOf('members'),
    distinct: rowsOf('members'),
  });
  t.deepEqual(await once('comptes_clients', 'number'), {
    count: rowsOf('member-accounts'),
    distinct: rowsOf('member-accounts'),
  });
  t.deepEqual(await once('loans', 'number'), { count: rowsOf('loans'), distinct: rowsOf('loans') });
  // Each kind's batches follow one another, 1 000 rows each but the last (row 1 is the header): none overlaps another.
  const expected = (rows: number) =>
    Array.from({ length: Math.ceil(rows / 1000) }, (_, index) => Math.min(rows, (index + 1) * 1000)).map(
      (applied, index, all) => ({ last_row: applied + 1, rows: applied - (index === 0 ? 0 : all[index - 1]!) }),
    );
  const recorded = await knex('import_batches')
    .where({ import_id: id })
    .orderBy('last_row')
    .select('kind', 'last_row', 'rows');
  for (const kind of ['members', 'member-accounts']) {
    t.deepEqual(
      recorded
        .filter((batch) => batch.kind === kind)
        .map(({ last_row: lastRow, rows }) => ({ last_row: lastRow, rows })),
      expected(rowsOf(kind)),
      kind,
    );
  }
  // One opening entry per branch of the trial balance, in the à-nouveaux journal at the cut-over.
  const perBranch = await knex('journal_entries')
    .where({ enterprise_id: world.enterpriseId, journal_code: 'AN' })
    .groupBy('branch_id')
    .select(knex.raw('count(*)::int AS entries'));
  const branches = await knex('import_rows')
    .where({ import_id: id, kind: 'trial-balance' })
    .first(knex.raw("count(DISTINCT data->>'branch_code')::int AS count"));
  t.is(perBranch.length, branches.count);
  t.deepEqual(new Set(perBranch.map((row) => row.entries)), new Set([1]));
}
