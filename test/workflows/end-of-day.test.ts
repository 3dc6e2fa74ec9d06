import fs from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { Client, Connection, ScheduleNotFoundError } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import { Money } from '../../domain/money';
import { updateConfiguration } from '../../activities/enterprise/configuration.activity';
import { startTestApp, testActivityContext, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import { createLoanWorld, ledgerBalanced, memberOf, setBusinessDate, type LoanWorld } from '../helpers/loans';
import { startWorkerProcess } from '../helpers/processes';
import { holdRowLock } from '../helpers/row-lock';
import { accountOf, savingsProductOf } from '../helpers/savings';
import { fileTeardown } from '../helpers/teardown';
import { until, untilScheduleGone, untilWorkflow } from '../helpers/until';
import { newTaskQueue, withWorker } from '../helpers/worker';
import { endOfDayScheduleId } from '../../workflows/identities';

/**
 * The end of day (issue 29, docs/domain.md §13.3): it waits for both branches to close their day, provisions at the
 * date, matures the term deposit due that day, moves the business date to the next working day and, on a month's last
 * day, starts the month end. A second start answers the first run; the closed day refuses what is dated on it; a
 * worker killed during the end of day leaves a run the next worker ends, each thing posted once. The figures of the
 * maturity are computed here by hand: 30/360, 90 days on 1 000 000 at 6 %, 10 % withheld.
 */
const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let databaseUrl: string;
// Recorded with RECORD_HISTORIES=1: a change to the workflow that breaks the histories of runs in flight fails here.
const historyFile = path.join(__dirname, 'histories', 'end-of-day-closed.json');

test.before(async () => {
  ({ knex, url: databaseUrl } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
});

const gross = new Money(1_000_000).times('0.06').times(90).div(360).toDecimalPlaces(0, Money.ROUND_HALF_UP);
const net = gross.minus(gross.times('0.1').toDecimalPlaces(0, Money.ROUND_HALF_UP));

/**
 * Two branches, a demand account of 10 000 and a 3-month term deposit of 1 000 000 opened 15 January, the business date
 * at its maturity, 15 April 2026 (a Wednesday).
 */
async function maturingWorld(
  testApp: TestApp,
  code: string,
): Promise<{ world: LoanWorld; demand: string; term: string }> {
  const world = await createLoanWorld(testApp, knex, code, { capital: false });
  await setBusinessDate(world, '2026-01-15');
  const product = await savingsProductOf(world, {
    code: 'DAT',
    kind: 'term_deposit',
    term_months: 3,
    deposit_account_code: '36100',
    interest_rate: '0.06',
    withholding_tax_rate: '0.1',
    maturity_instruction: 'renew',
  });
  const member = await memberOf(world);
  const demand = await accountOf(world, member, world.savingsProductId, '10000');
  const term = await accountOf(world, member, product, '1000000');
  await setBusinessDate(world, '2026-04-15');
  return { world, demand, term };
}

const closeDay = (world: LoanWorld, head: string, branch: string, date: string) =>
  world.app.request('POST', '/api/v1/cash/branch-days/', {
    headers: world.users[head]!.headers,
    json: { enterprise: world.enterpriseId, branch, date },
  });
const startEndOfDay = (world: LoanWorld, json: Record<string, unknown> = {}) =>
  world.app.request('POST', '/api/v1/enterprise/end-of-days/', {
    headers: world.users.direction!.headers,
    json: { enterprise: world.enterpriseId, ...json },
  });
const readRun = (world: LoanWorld, id: string) =>
  world.app.request('GET', `/api/v1/enterprise/end-of-days/${id}/`, { headers: world.users.direction!.headers });
const businessDate = async (world: LoanWorld) =>
  (await knex('enterprise_configurations').where({ enterprise_id: world.enterpriseId }).first('business_date'))
    .business_date as string;
const count = async (query: Knex.QueryBuilder) => Number((await query.count('* as n').first())!.n);

/** Waits until the run is no longer running, and answers it. */
const runEnded = (world: LoanWorld, started: { id: string; workflow_id: string }, timeoutMs?: number) =>
  untilWorkflow({
    workflowId: started.workflow_id,
    what: 'the end of day',
    read: async () => {
      const run = await readRun(world, started.id);
      return run.body.status === 'running' ? undefined : run.body;
    },
    timeoutMs,
  });

/**
 * What the day posted and moved once: the maturity and its four entries, one provisioning run, one move of the date.
 */
async function postedOnce(world: LoanWorld, demand: string, term: string) {
  return {
    maturities: await count(knex('term_deposit_maturities').where({ compte_client_id: term })),
    maturityEntries: await count(
      knex('journal_entries as e')
        .join('business_event_logs as l', 'l.id', 'e.event_id')
        .where({ 'e.enterprise_id': world.enterpriseId, 'e.entry_date': '2026-04-15' })
        .whereIn('l.subject_id', [term, demand]),
    ),
    demandBalance: (await knex('comptes_clients').where({ id: demand }).first('balance')).balance as string,
    provisioningRuns: await count(
      knex('provisioning_runs').where({ enterprise_id: world.enterpriseId, as_of: '2026-04-15' }),
    ),
    moves: await count(
      knex('audit_events').where({ enterprise_id: world.enterpriseId, action: 'business_date.end_of_day' }),
    ),
    businessDate: await businessDate(world),
    balanced: await ledgerBalanced(knex, world.enterpriseId),
  };
}

const expectedOnce = {
  maturities: 1,
  maturityEntries: 4,
  demandBalance: net.plus(10_000).toFixed(0),
  provisioningRuns: 1,
  moves: 1,
  businessDate: '2026-04-16',
  balanced: true,
};

/** A run started by the direction, awaiting both branches, with its steps. */
function assertStartedAwaitingBranches(t: ExecutionContext, world: LoanWorld, body: Record<string, any>) {
  t.like(body, {
    date: '2026-04-15',
    status: 'running',
    next_date: null,
    trigger: 'api',
    started_by: world.users.direction!.id,
  });
  t.deepEqual(
    [...body.awaiting_branches].sort(),
    [world.headOffice, world.otherBranch].sort(),
    'both branches still to close',
  );
  t.deepEqual(
    body.steps.map((step: { step: string }) => step.step),
    ['awaitBranchDays', 'provision', 'matureTermDeposits', 'moveBusinessDate', 'startMonthEnd'],
  );
}

/** The run done, each step's result as the day asked: both branches, one maturity, the next working day. */
function assertRunDone(t: ExecutionContext, run: Record<string, any>) {
  t.like(run, {
    status: 'done',
    next_date: '2026-04-16',
    failure: null,
    month_end: null,
    awaiting_branches: null,
  });
  t.true(run.steps.every((step: { status: string }) => step.status === 'done'));
  t.like(run.steps[0].result, { branches: 2 });
  t.like(run.steps[2].result, { matured: 1, entries: 4 });
  t.deepEqual(run.steps[3].result, { from: '2026-04-15', to: '2026-04-16' });
  t.deepEqual(run.steps[4].result, { period: null }, "not a month's last day: no month end");
}

/** The run listed for the direction; a branch head does not read the enterprise's figures. */
async function assertListedForDirectionOnly(t: ExecutionContext, world: LoanWorld, runId: string) {
  const listed = await app.request(
    'GET',
    `/api/v1/enterprise/end-of-days/?enterprise=${world.enterpriseId}&date_from=2026-04-15`,
    { headers: world.users.direction!.headers },
  );
  t.deepEqual(
    listed.body.results.map((row: { id: string }) => row.id),
    [runId],
  );
  t.is(
    (await readRun({ ...world, users: { direction: world.users.branch_head! } }, runId)).status,
    404,
    "the enterprise's figures: a branch head does not read them",
  );
}

/** The closed day and the days before it take no entry, by the API or by moving the date back; the new date does. */
async function assertDayClosedToEntries(t: ExecutionContext, world: LoanWorld) {
  const lines = [
    { account: '65234', branch: world.headOffice, debit: '1000' },
    { account: '5603', branch: world.headOffice, credit: '1000' },
  ];
  const entry = (entryDate: string) =>
    app.request('POST', '/api/v1/accounting/manual-entries/', {
      headers: world.users.direction!.headers,
      json: {
        enterprise: world.enterpriseId,
        entry_date: entryDate,
        reference: `EOD-${entryDate}`,
        label: 'Loyer',
        lines,
      },
    });
  const closed = await entry('2026-04-15');
  t.is(closed.status, 409, closed.text);
  t.is(closed.body.code, 'day_closed');
  t.deepEqual(
    closed.body.errors.map((error: { field: string }) => error.field),
    ['entry_date'],
  );
  t.is((await entry('2026-04-02')).body.code, 'day_closed', 'a day before the closed one too');
  t.is((await entry('2026-04-16')).status, 201, 'the new business date takes entries');
  // Following the calendar again, on a 10 April: back into the closed day, refused.
  const tenthOfApril = testActivityContext(knex, () => new Date('2026-04-10T10:00:00Z'));
  const backwards = await t.throwsAsync(
    updateConfiguration(
      tenthOfApril,
      { userId: world.rootId, grants: [], requestId: 'test-day-closed' },
      world.enterpriseId,
      { businessDate: null },
    ),
  );
  t.like(backwards, {
    code: 'day_closed',
    fieldErrors: [{ field: 'business_date', message: 'business_date must be after the closed day 2026-04-15' }],
  });
  t.is(await businessDate(world), '2026-04-16');
}

test.serial(
  'the end of day waits for both branches, then provisions, matures the deposit due, moves the date ' +
    'to the next working day; a second start answers it',
  async (t) => {
    const { world, demand, term } = await maturingWorld(app, 'EOD');
    t.deepEqual([gross.toFixed(0), net.toFixed(0)], ['15000', '13500']);
    await withWorker(
      knex,
      async ({ client }) => {
        const started = await startEndOfDay(world);
        t.is(started.status, 202, started.text);
        assertStartedAwaitingBranches(t, world, started.body);
        t.is((await closeDay(world, 'branch_head', world.headOffice, '2026-04-15')).status, 201);
        // The head office closed, the second branch not yet: the run waits, nothing done.
        await until(
          'the run to look at the branches again',
          async () => (await client.workflow.getHandle(started.body.workflow_id).fetchHistory()).events!.length > 10,
        );
        t.like((await readRun(world, started.body.id)).body, {
          status: 'running',
          next_date: null,
          awaiting_branches: [world.otherBranch],
        });
        t.is(await businessDate(world), '2026-04-15');
        t.is(await count(knex('term_deposit_maturities').where({ compte_client_id: term })), 0);

        t.is((await closeDay(world, 'other_head', world.otherBranch, '2026-04-15')).status, 201);
        const run = await runEnded(world, started.body);
        assertRunDone(t, run);
        t.like(await knex('provisioning_runs').where({ id: run.provisioning_run }).first(), {
          as_of: '2026-04-15',
          status: 'completed',
        });
        t.deepEqual(await postedOnce(world, demand, term), expectedOnce);

        const again = await startEndOfDay(world, { date: '2026-04-15' });
        t.is(again.status, 202, again.text);
        t.like(again.body, { id: run.id, status: 'done', next_date: '2026-04-16' });
        t.deepEqual(await postedOnce(world, demand, term), expectedOnce, 'a second start runs nothing again');
        const otherDate = await startEndOfDay(world, { date: '2026-04-20' });
        t.is(otherDate.status, 422);
        t.is(otherDate.body.code, 'end_of_day_not_business_date');

        const { events } = await client.workflow.getHandle(started.body.workflow_id).fetchHistory();
        await t.notThrowsAsync(
          Worker.runReplayHistory(
            { workflowBundle: { codePath: testEnvironment().bundlePath } },
            { events },
            started.body.workflow_id,
          ),
        );
        if (process.env.RECORD_HISTORIES === '1')
          fs.writeFileSync(historyFile, historyToJSON(temporal.api.history.v1.History.create({ events })));
        await assertListedForDirectionOnly(t, world, run.id as string);
      },
      taskQueue,
    );

    await assertDayClosedToEntries(t, world);
  },
);

test('a recorded history of the end of day replays against the current workflow code', async (t) => {
  const history = JSON.parse(fs.readFileSync(historyFile, 'utf8'));
  await t.notThrowsAsync(
    Worker.runReplayHistory(
      { workflowBundle: { codePath: testEnvironment().bundlePath } },
      history,
      'recorded-end-of-day',
    ),
  );
});

test.serial(
  "on a month's last day the end of day moves the date past the weekend and starts the month end",
  async (t) => {
    const world = await createLoanWorld(app, knex, 'EOM', { capital: false });
    // Friday 31 July 2026: the next working day is Monday 3 August.
    await setBusinessDate(world, '2026-07-31');
    for (const [head, branch] of [
      ['branch_head', world.headOffice],
      ['other_head', world.otherBranch],
    ] as const)
      t.is((await closeDay(world, head, branch, '2026-07-31')).status, 201);
    await withWorker(
      knex,
      async () => {
        const started = await startEndOfDay(world);
        t.is(started.status, 202, started.text);
        const run = await runEnded(world, started.body);
        t.like(run, { status: 'done', next_date: '2026-08-03' });
        t.like(run.steps[4].result, { period: '2026-07', month_end_run: run.month_end });
        const monthEnd = await untilWorkflow({
          workflowId: `month-end-${world.enterpriseId}-2026-07`,
          what: 'the month end the end of day started',
          read: async () => {
            const row = await knex('month_end_runs').where({ id: run.month_end }).first('status', 'trigger', 'period');
            return row.status === 'running' ? undefined : row;
          },
        });
        t.deepEqual({ ...monthEnd }, { status: 'done', trigger: 'end_of_day', period: '2026-07' });
      },
      taskQueue,
    );
    t.is(await businessDate(world), '2026-08-03');
  },
);

test.serial(
  "the daily Schedule exists only once its hour is set: it runs the business date's end of day, and goes with the hour",
  async (t) => {
    const world = await createLoanWorld(app, knex, 'EDS', { capital: false });
    await setBusinessDate(world, '2026-04-15');
    for (const [head, branch] of [
      ['branch_head', world.headOffice],
      ['other_head', world.otherBranch],
    ] as const)
      t.is((await closeDay(world, head, branch, '2026-04-15')).status, 201);
    const configure = (hour: number | null) =>
      app.request('PATCH', `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`, {
        headers: world.users.direction!.headers,
        json: { end_of_day_hour: hour },
      });
    await withWorker(
      knex,
      async ({ client }) => {
        const schedule = client.schedule.getHandle(endOfDayScheduleId(world.enterpriseId));
        await t.throwsAsync(schedule.describe(), { instanceOf: ScheduleNotFoundError }, 'none by default');
        const set = await configure(18);
        t.is(set.status, 200, set.text);
        t.is(set.body.end_of_day_hour, 18);
        const description = await schedule.describe();
        t.like(description.action, { type: 'startWorkflow', workflowType: 'endOfDay' });
        t.like(description.spec.calendars?.[0], { hour: [{ start: 18, end: 18, step: 1 }] });
        await schedule.trigger();
        const run = await untilWorkflow({
          workflowId: `end-of-day-${world.enterpriseId}-2026-04-15`,
          what: 'the end of day the Schedule started',
          read: async () => {
            const row = await knex('end_of_day_runs')
              .where({ enterprise_id: world.enterpriseId })
              .first('status', 'trigger', 'business_date', 'next_date', 'started_by');
            return row === undefined || row.status === 'running' ? undefined : row;
          },
        });
        t.deepEqual(
          { ...run },
          {
            status: 'done',
            trigger: 'schedule',
            business_date: '2026-04-15',
            next_date: '2026-04-16',
            started_by: null,
          },
        );
        t.is((await configure(null)).body.end_of_day_hour, null);
        await t.notThrowsAsync(untilScheduleGone(schedule, 'the Schedule deleted with its hour'));
      },
      taskQueue,
    );
  },
);

test.serial(
  'a worker killed while the end of day moves the date leaves a run the next worker ends, each thing posted once',
  async (t) => {
    t.timeout(240_000);
    const crashQueue = newTaskQueue();
    const crashApp = await startTestApp(file, { knex, taskQueue: crashQueue });
    const { world, demand, term } = await maturingWorld(crashApp, 'EDC');
    for (const [head, branch] of [
      ['branch_head', world.headOffice],
      ['other_head', world.otherBranch],
    ] as const)
      t.is((await closeDay(world, head, branch, '2026-04-15')).status, 201);
    const configuration = (
      await knex('enterprise_configurations').where({ enterprise_id: world.enterpriseId }).first('id')
    ).id as string;
    // Started before any worker runs; then the configuration is held: the worker stops at the first step that locks it
    // (the move of the date, or a posting that reads the business date) and dies inside that transaction.
    const started = await startEndOfDay(world);
    t.is(started.status, 202, started.text);
    const lock = await holdRowLock(file, knex, 'enterprise_configurations', configuration);
    const firstWorker = await startWorkerProcess(file, { databaseUrl, taskQueue: crashQueue });
    await lock.waiters(1);
    const stepsAtCrash = await knex('end_of_day_steps')
      .where({ run_id: started.body.id, status: 'done' })
      .orderBy('position')
      .pluck('step');
    t.log(`steps done at the crash: ${stepsAtCrash.join(', ')}`);
    t.true(stepsAtCrash.includes('provision'), 'the crash comes after a step committed');
    t.false(stepsAtCrash.includes('moveBusinessDate'));
    await firstWorker.kill();
    await lock.release();
    await startWorkerProcess(file, { databaseUrl, taskQueue: crashQueue });
    const run = await runEnded(world, started.body, 120_000);
    t.like(run, { status: 'done', next_date: '2026-04-16' });
    t.deepEqual(await postedOnce(world, demand, term), expectedOnce);
    const connection = await Connection.connect({ address: testEnvironment().temporalAddress });
    file.teardown(() => connection.close());
    const { events } = await new Client({ connection }).workflow.getHandle(started.body.workflow_id).fetchHistory();
    await t.notThrowsAsync(
      Worker.runReplayHistory(
        { workflowBundle: { codePath: testEnvironment().bundlePath } },
        { events },
        started.body.workflow_id,
      ),
    );
  },
);
