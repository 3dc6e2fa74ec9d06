import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { enterpriseCodes, writeCooperative } from '../../bench/import-files';
import { importWorkflowId } from '../../workflows/identities';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import { createLoanWorld } from '../helpers/loans';
import { startApiProcess, startWorkerProcess } from '../helpers/processes';
import { holdRowLock } from '../helpers/row-lock';
import { startTcpRelay } from '../helpers/tcp-relay';
import { fileTeardown } from '../helpers/teardown';
import { until } from '../helpers/until';
import { newTaskQueue } from '../helpers/worker';

/**
 * Issue 31, apply step 4: a worker killed mid-apply resumes where it stopped, and nothing is applied twice
 * (docs/domain.md §15.1). 2 500 members and 2 500 accounts (three batches each) are applied by a worker process
 * that reaches Temporal through a relay. A lock the test holds on the savings products stops the first batch of
 * accounts inside its transaction (its rows' foreign keys wait); the relay is frozen, the lock released, the batch
 * commits unheard, and the worker dies by SIGKILL. A second worker takes the batch over once its timeout expires:
 * it must start after the batch committed, not apply it again.
 */

const file = fileTeardown(test);
const size = { members: 2500, accounts: 2500, loans: 0, trialBalanceLines: 12 };
const cutOverDate = '2026-10-31';

/** Two processes (the worker through a relay), the world, and an import of the generated files, validated. */
async function validatedImport(t: ExecutionContext) {
  const { knex, url } = await createTestDatabase(file);
  const taskQueue = newTaskQueue();
  const relay = await startTcpRelay(testEnvironment().temporalAddress);
  file.teardown(() => relay.close());
  // A workflow day of a minute: the workflow reads apply's decision every second.
  const options = { databaseUrl: url, taskQueue, env: { WORKFLOW_DAY_MS: '60000' } };
  const [api, firstWorker] = await Promise.all([startApiProcess(file, options), startWorkerProcess(file, { ...options, temporalAddress: relay.address })]);
  const connection = await Connection.connect({ address: testEnvironment().temporalAddress });
  file.teardown(() => connection.close());
  const temporal = new Client({ connection });
  const world = await createLoanWorld(api.client, knex, 'ICR', { capital: false });
  const direction = world.users.direction!.headers;

  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-import-crash-'));
  file.teardown(async () => fs.rmSync(directory, { recursive: true, force: true }));
  const generated = await writeCooperative(directory, size, await enterpriseCodes(knex, world.enterpriseId), { cutOverDate, seed: 31 });
  const created = await api.client.request('POST', '/api/v1/imports/', { headers: direction, json: { enterprise: world.enterpriseId, cut_over_date: cutOverDate } });
  t.is(created.status, 201, created.text);
  const id = created.body.id as string;
  for (const { kind, file: csv } of generated.files.filter((entry) => entry.rows > 0)) {
    const uploaded = await api.client.request('PUT', `/api/v1/imports/${id}/files/${kind}/`, { headers: { ...direction, 'content-type': 'text/csv' }, body: fs.readFileSync(csv) });
    t.is(uploaded.status, 200, uploaded.text);
  }
  const validated = await api.client.request('POST', `/api/v1/imports/${id}/validation/`, { headers: direction });
  t.like(validated.body, { status: 'validated' }, validated.text);
  return { knex, taskQueue, relay, options, firstWorker, temporal, world, direction, api, generated, id };
}

test('an import killed mid-apply after a batch committed unheard: applied once, batches contiguous, one opening entry per branch, reconciled', async (t) => {
  t.timeout(300_000);
  const { knex, taskQueue, relay, options, firstWorker, temporal, world, direction, api, generated, id } = await validatedImport(t);
  // The workflow as the validation starts it, with a batch timeout of 10 s: the time a lost batch takes to come back.
  const workflowId = importWorkflowId(id);
  await temporal.workflow.getHandle(workflowId).terminate('a shorter batch timeout for the test');
  const handle = await temporal.workflow.start('importWorkflow', { taskQueue, workflowId, args: [{ importId: id, decisionPollSeconds: 1, batchTimeoutSeconds: 10 }] });
  const products = await knex('savings_products').where({ enterprise_id: world.enterpriseId }).pluck('id') as string[];
  const locks = await Promise.all(products.map((product) => holdRowLock(file, knex, 'savings_products', product)));

  const asked = await api.client.request('POST', `/api/v1/imports/${id}/application/`, { headers: direction, json: {} });
  t.is(asked.status, 202, asked.text);
  const approved = await api.client.request('POST', `/api/v1/approvals/requests/${asked.body.id as string}/approve/`, { headers: world.users.root!.headers, json: {} });
  t.is(approved.status, 200, approved.text);

  const batches = () => knex('import_batches').where({ import_id: id }).orderBy(['applied_at', 'last_row']).select('kind', 'last_row', 'rows');
  await Promise.any(locks.map((lock) => lock.waiters(1)));
  t.deepEqual((await batches()).map((batch) => batch.kind), ['members', 'members', 'members'], 'the members applied, the first batch of accounts waiting');
  relay.freeze();
  for (const lock of locks) await lock.release();
  await until('the first batch of accounts committed, unheard', async () => (await batches()).length === 4);
  await firstWorker.kill();
  t.is((await knex('imports').where({ id }).first('status')).status, 'applying');
  await startWorkerProcess(file, options);

  t.like(await handle.result(), { status: 'applied', reconciliation: { reconciled: true } });
  t.is((await knex('imports').where({ id }).first('status')).status, 'applied');
  // Every member and account of the files once: as many as the files' rows, none twice.
  const rowsOf = (kind: string) => generated.files.find((entry) => entry.kind === kind)!.rows;
  const once = async (table: string, key: string) => knex(table).where({ import_id: id }).first(knex.raw('count(*)::int AS count'), knex.raw(`count(DISTINCT ${key})::int AS distinct`));
  t.deepEqual(await once('client_profiles', 'member_number'), { count: rowsOf('members'), distinct: rowsOf('members') });
  t.deepEqual(await once('comptes_clients', 'number'), { count: rowsOf('member-accounts'), distinct: rowsOf('member-accounts') });
  // The batches of each kind follow one another, 1 000 rows each but the last (row 1 is the header).
  const expected = (rows: number) => Array.from({ length: Math.ceil(rows / 1000) }, (_, index) => Math.min(rows, (index + 1) * 1000))
    .map((applied, index, all) => ({ last_row: applied + 1, rows: applied - (index === 0 ? 0 : all[index - 1]!) }));
  const recorded = await batches();
  for (const kind of ['members', 'member-accounts']) {
    t.deepEqual(recorded.filter((batch) => batch.kind === kind).map(({ last_row: lastRow, rows }) => ({ last_row: lastRow, rows })), expected(rowsOf(kind)), kind);
  }
  // One opening entry per branch of the trial balance, in the à-nouveaux journal at the cut-over.
  const perBranch = await knex('journal_entries').where({ enterprise_id: world.enterpriseId, journal_code: 'AN' }).groupBy('branch_id').select(knex.raw('count(*)::int AS entries'));
  const branches = await knex('import_rows').where({ import_id: id, kind: 'trial-balance' }).first(knex.raw(`count(DISTINCT data->>'branch_code')::int AS count`));
  t.is(perBranch.length, branches.count);
  t.deepEqual(new Set(perBranch.map((row) => row.entries)), new Set([1]));
  const { events } = await handle.fetchHistory();
  await t.notThrowsAsync(Worker.runReplayHistory({ workflowBundle: { codePath: testEnvironment().bundlePath } }, { events }, workflowId));
});
