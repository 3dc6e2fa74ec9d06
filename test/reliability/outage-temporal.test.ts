import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { ScheduleHandle } from '@temporalio/client';
import { provisioningScheduleId } from '../../workflows/identities';
import { connectTemporalClient } from '../../runtime/services';
import { ensureTemporalCli, startTemporalDevServer, type TemporalDevServer } from '../../runtime/temporal-dev-server';
import type { Knex } from 'knex';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, openSavingsAccount, submitApplication, type LoanWorld } from '../helpers/loans';
import { freePort } from '../helpers/ports';
import { startWorkerProcess } from '../helpers/processes';
import { newTaskQueue } from '../helpers/worker';

/** A Temporal dev server of the test's own, its state in a SQLite file, stopped and started again on it. */
async function ownTemporal(t: ExecutionContext) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-outage-temporal-'));
  const options = {
    cliPath: ensureTemporalCli(),
    port: await freePort(),
    namespace: 'default',
    databaseFile: path.join(folder, 'temporal.sqlite'),
  };
  let server: TemporalDevServer | undefined = await startTemporalDevServer(options);
  t.teardown(async () => {
    await server?.stop();
    fs.rmSync(folder, { recursive: true, force: true });
  });
  return {
    address: server.address,
    stop: async () => {
      await server?.stop();
      server = undefined;
    },
    start: async () => {
      server = await startTemporalDevServer(options);
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(250);
  }
}

const timed = async <R>(work: () => Promise<R>) => {
  const asked = Date.now();
  return { answer: await work(), ms: Date.now() - asked };
};

const untilReady = (app: TestApp) =>
  eventually(
    'readiness',
    async () => ((await app.request('GET', '/readyz')).status === 200 ? true : undefined),
    15_000,
  );

/** The Schedule's action that fell due during the outage, once taken. */
const missedActionTaken = (schedule: ScheduleHandle, due: Date) =>
  eventually(
    'the missed action',
    async () =>
      (await schedule.describe()).info.recentActions.find(
        (action) => action.scheduledAt.getTime() === due.getTime() - (due.getTime() % 1000),
      ),
    15_000,
  );

/** The application's decisions, taken through the API, and its state as the database holds it. */
function approvalOf(knex: Knex, app: TestApp, world: LoanWorld, applicationId: string) {
  const decide = (as: string) =>
    app.request('POST', `/api/v1/loans/applications/${applicationId}/decisions/`, {
      headers: world.users[as]!.headers,
      json: { decision: 'approve' },
    });
  const applicationState = async () => ({
    application: await knex('loan_applications').where({ id: applicationId }).first('status', 'current_step'),
    decisions: Number(
      (await knex('loan_application_decisions').where({ application_id: applicationId }).count({ n: '*' }).first())?.n,
    ),
  });
  return { decide, applicationState };
}

/** The daily provisioning run's Schedule, set to fall due three seconds from now. */
async function provisioningDueSoon(
  t: ExecutionContext,
  client: Awaited<ReturnType<typeof connectTemporalClient>>,
  enterpriseId: string,
) {
  // The daily run falls due while Temporal is down: the Schedule's time moved to a few seconds from now, its policies
  // kept.
  const schedule = client.schedule.getHandle(provisioningScheduleId(enterpriseId));
  const due = new Date(Date.now() + 3000);
  await schedule.update((previous) => ({
    ...previous,
    spec: {
      calendars: [{ hour: due.getUTCHours(), minute: due.getUTCMinutes(), second: due.getUTCSeconds() }],
      timezone: 'UTC',
    },
  }));
  t.is((await schedule.describe()).policies.catchupWindow, 86_400_000, 'a missed run is caught up within a day');
  return { schedule, due };
}

/** During the outage a decision is a quick 503 that changes nothing, readiness names Temporal, a deposit is served. */
async function assertOutageAnswers<S>(
  t: ExecutionContext,
  { decision, readiness, deposit }: Record<'decision' | 'readiness' | 'deposit', { answer: TestResponse; ms: number }>,
  { before, applicationState }: { before: S; applicationState: () => Promise<S> },
) {
  t.log(
    `during the outage: decision ${decision.answer.status} ${decision.answer.body.code} in ${decision.ms} ms, ` +
      `readiness ${readiness.answer.status} ${JSON.stringify(readiness.answer.body)} in ${readiness.ms} ms, ` +
      `deposit ${deposit.answer.status} in ${deposit.ms} ms`,
  );
  t.like(decision.answer, { status: 503, body: { code: 'workflow_unavailable' } });
  t.is(decision.answer.headers.get('retry-after'), '5');
  t.true(decision.ms < 5000 + 3000, 'the decision is answered within the Temporal deadline');
  t.deepEqual(await applicationState(), before, 'the application unchanged');
  t.like(readiness.answer, { status: 503, body: { status: 'unavailable', checks: { database: 'ok' } } });
  t.not(readiness.answer.body.checks.temporal, 'ok');
  t.is(deposit.answer.status, 201, 'what needs no workflow is served');
}

test(
  'Temporal stopped for 10 s during approvals and provisioning: decisions answer 503 and change ' +
    'nothing, the rest of the API serves, the missed daily run is caught up, the worker process rides ' +
    'it out and completes the approval',
  async (t) => {
    const temporal = await ownTemporal(t);
    const { knex, url } = await createTestDatabase(t);
    const taskQueue = newTaskQueue();
    const client = await connectTemporalClient(temporal.address, 'default');
    const app = await startTestApp(t, { knex, taskQueue, temporal: client });
    // `npm run worker` itself, started once: nothing restarts it during the test.
    const worker = await startWorkerProcess(t, { databaseUrl: url, taskQueue, temporalAddress: temporal.address });
    let workerExit: number | null | undefined;
    void worker.exited.then((code) => (workerExit = code));
    const beforeWorkerExits = <T>(work: Promise<T>) =>
      Promise.race([
        work,
        worker.exited.then((code) => Promise.reject(new Error(`the worker process exited (code ${code})`))),
      ]);
    const world = await createLoanWorld(app, knex, 'TMP');
    const member = await memberOf(world);
    const account = await openSavingsAccount(world, member);
    const submitted = await submitApplication(world, member);
    t.is(submitted.status, 201, submitted.text);
    const applicationId = submitted.body.id as string;
    const { decide, applicationState } = approvalOf(knex, app, world, applicationId);
    t.is((await decide('cashier')).status, 200);

    const { schedule, due } = await provisioningDueSoon(t, client, world.enterpriseId);

    const before = await applicationState();
    await temporal.stop();
    const stoppedAt = Date.now();
    t.true(stoppedAt < due.getTime(), 'stopped before the run fell due');
    const decision = await timed(() => decide('branch_head'));
    const readiness = await timed(() => app.request('GET', '/readyz'));
    const deposit = await timed(() =>
      app.request('POST', `/api/v1/members/accounts/${account}/deposits/`, {
        headers: world.users.cashier!.headers,
        json: { amount: '5000' },
      }),
    );
    await assertOutageAnswers(t, { decision, readiness, deposit }, { before, applicationState });
    await sleep(Math.max(0, stoppedAt + 10_000 - Date.now()));
    await temporal.start();

    await untilReady(app);
    t.log(`Temporal out of reach for ${Date.now() - stoppedAt} ms`);
    t.is(workerExit, undefined, 'the worker process rode out the outage');
    const caughtUp = await missedActionTaken(schedule, due);
    t.true(caughtUp.takenAt.getTime() > stoppedAt + 10_000, 'taken after Temporal came back');
    for (const as of ['branch_head', 'committee', 'direction']) {
      const response = await decide(as);
      t.is(response.status, 200, `${as}: ${response.text}`);
    }
    t.like(await beforeWorkerExits(client.workflow.getHandle(submitted.body.workflow_id as string).result()), {
      status: 'approved',
    });
    t.like(await beforeWorkerExits(client.workflow.getHandle(caughtUp.action.workflow.workflowId).result()), {
      status: 'completed',
    });
    t.like(await knex('provisioning_runs').where({ enterprise_id: world.enterpriseId, trigger: 'schedule' }).first(), {
      status: 'completed',
    });
    t.is(workerExit, undefined, 'the worker process, never restarted, did the work');
  },
);
