import fs from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import {
  carryForwardBalances,
  closeIncomeAndExpenses,
  requestExerciceClosing,
} from '../../activities/enterprise/year-end-closing.activity';
import { Money } from '../../domain/money';
import { startTestApp, testActivityContext, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import { approveRequest, secondAdmin } from '../helpers/approvals';
import { ledgerBalanced, setBusinessDate } from '../helpers/loans';
import { startWorkerProcess } from '../helpers/processes';
import { holdRowLock } from '../helpers/row-lock';
import {
  closeYear,
  openNextYear,
  provisionYearEnd,
  smallCooperative,
  trialBalanceOf,
  type SmallCooperative,
} from '../helpers/small-cooperative';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';
import { testClock } from '../helpers/clock';

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
const historyFile = path.join(__dirname, 'histories', 'year-end-closing-closed.json');
let app: TestApp;
let knex: Knex;
let databaseUrl: string;

test.before(async () => {
  ({ knex, url: databaseUrl } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
});

/** The lines of the entries a closing posted at a step, per branch: account → debit minus credit. */
async function postedBy(closingId: string, step: 'closing' | 'opening'): Promise<Map<string, Record<string, string>>> {
  const lines = await knex('exercice_closing_entries as x')
    .join('journal_entries as e', 'e.id', 'x.entry_id')
    .join('journal_lines as l', 'l.entry_id', 'e.id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where({ 'x.closing_id': closingId, 'x.step': step })
    .select('e.branch_id', 'e.entry_date', 'c.code', knex.raw('(l.debit - l.credit)::text AS amount'));
  const byBranch = new Map<string, Record<string, string>>();
  for (const line of lines)
    byBranch.set(`${line.branch_id} ${line.entry_date}`, {
      ...byBranch.get(`${line.branch_id} ${line.entry_date}`),
      [line.code]: line.amount,
    });
  return byBranch;
}

const asText = (balances: Record<string, Money>) =>
  Object.fromEntries(Object.entries(balances).map(([code, amount]) => [code, amount.toFixed(0)]));

/**
 * The refusals before a closing may start: the next year not open, then the year's last day not provisioned; answers
 * 2027's id.
 */
async function refusedUntilReady(t: ExecutionContext, coop: SmallCooperative): Promise<string> {
  const { world } = coop;
  t.is((await closeYear(coop)).body.code, 'next_exercice_not_open', 'the opening balances need the next year open');
  const opened = await app.request('POST', '/api/v1/enterprise/exercices/', {
    headers: world.users.direction!.headers,
    json: { enterprise: world.enterpriseId, code: '2027', start_date: '2027-01-01', end_date: '2027-12-31' },
  });
  await setBusinessDate(world, '2027-01-05');
  const unprovisioned = (await closeYear(coop)).body;
  t.is(unprovisioned.code, 'year_end_not_provisioned', 'the loans provisioned as of the last day first');
  t.regex(unprovisioned.detail, /as of 2026-12-31/);
  await provisionYearEnd(coop);
  return opened.body.id as string;
}

/**
 * The year's result is the enterprise's (issue 27): a user of one branch reads the year and its closing, not the
 * result.
 */
async function resultHiddenFromBranchUsers(t: ExecutionContext, coop: SmallCooperative): Promise<void> {
  const { world } = coop;
  const readByBranch = await app.request('GET', `/api/v1/enterprise/exercices/${coop.year2026}/`, {
    headers: world.users.other_cashier!.headers,
  });
  t.like(readByBranch.body, { status: 'closed', closing: { status: 'closed', result: null, result_account: null } });
  const listedByBranch = await app.request(
    'GET',
    `/api/v1/enterprise/exercices/?enterprise=${world.enterpriseId}&status=closed`,
    { headers: world.users.cashier!.headers },
  );
  t.like(listedByBranch.body.results[0], { id: coop.year2026, closing: { result: null } });
}

async function assertClosingAndOpeningEntries(t: ExecutionContext, coop: SmallCooperative, closingId: string) {
  const { world, expected } = coop;
  // Hand-computed: 713 and 7153 debited by what they earned, 6511 credited, the result credited to 131.
  const closingLines = await postedBy(closingId, 'closing');
  t.deepEqual(
    [...closingLines.keys()],
    [`${world.headOffice} 2026-12-31`],
    'only the head office had income and expenses',
  );
  t.deepEqual(closingLines.get(`${world.headOffice} 2026-12-31`), {
    713: expected.interest.toFixed(0),
    7153: expected.fees.toFixed(0),
    6511: expected.expenses.negated().toFixed(0),
    131: expected.result.negated().toFixed(0),
  });
  const opening = await postedBy(closingId, 'opening');
  t.deepEqual(opening.get(`${world.headOffice} 2027-01-01`), asText(expected.headOffice));
  t.deepEqual(opening.get(`${world.otherBranch} 2027-01-01`), asText(expected.otherBranch));
  t.is(opening.size, 2);
  const journals = await knex('exercice_closing_entries as x')
    .join('journal_entry_numbers as n', 'n.entry_id', 'x.entry_id')
    .where('x.closing_id', closingId)
    .orderBy(['x.step', 'n.number'])
    .select('x.step', 'n.journal_code', 'n.number');
  t.deepEqual(
    journals.map((row) => `${row.step} ${row.journal_code} ${row.number}`),
    ['closing CLO 1', 'opening AN 1', 'opening AN 2'],
    'their own journals, numbered from 1 in each year',
  );
}

async function assertRerunChangesNothing(t: ExecutionContext, coop: SmallCooperative, closingId: string) {
  const { world } = coop;
  // A rerun changes nothing: refused at the API, and each step run again (a retry after a lost worker) is a
  // no-op.
  const entriesBefore = await knex('journal_entries')
    .where({ enterprise_id: world.enterpriseId })
    .count<{ count: string }[]>();
  t.is((await closeYear(coop)).body.code, 'exercice_already_closed');
  t.like(await closeIncomeAndExpenses(knex, testClock(), { closingId }), { done: false, entries: 0 });
  t.like(await carryForwardBalances(knex, testClock(), { closingId }), { done: false, entries: 0 });
  t.deepEqual(
    await knex('journal_entries').where({ enterprise_id: world.enterpriseId }).count<{ count: string }[]>(),
    entriesBefore,
  );
}

async function reopenedByReversals(t: ExecutionContext, coop: SmallCooperative, closingId: string) {
  const { world, expected } = coop;
  // Reopening (an administrator) reverses the closing and opening entries, never deletes them.
  t.is(
    (
      await app.request('POST', `/api/v1/enterprise/exercices/${coop.year2026}/reopen/`, {
        headers: world.users.direction!.headers,
        json: { reason: 'late invoices' },
      })
    ).status,
    403,
  );
  // Under four eyes: asked by one administrator, approved by another of the enterprise.
  await approveRequest(
    knex,
    await app.request('POST', `/api/v1/enterprise/exercices/${coop.year2026}/reopen/`, {
      headers: world.users.root!.headers,
      json: { reason: 'late invoices' },
    }),
    await secondAdmin(knex, world),
  );
  t.like(
    (
      await app.request('GET', `/api/v1/enterprise/exercices/${coop.year2026}/`, {
        headers: world.users.root!.headers,
      })
    ).body,
    { status: 'open', closing: { id: closingId, status: 'reopened' } },
  );
  t.like(await knex('audit_events').where({ action: 'exercice.reopen', entity_id: coop.year2026 }).first(), {
    actor_id: world.users.root!.id,
    details: { reason: 'late invoices', closing: closingId },
  });
  const reversals = await knex('journal_entries as e')
    .join('exercice_closing_entries as x', 'x.entry_id', 'e.reverses_entry_id')
    .where('x.closing_id', closingId)
    .count<{ count: string }[]>();
  t.is(Number(reversals[0]!.count), 3, 'one reversal per closing entry (1) and opening entry (2)');
  const reversalJournals = await knex('journal_entries as e')
    .join('exercice_closing_entries as x', 'x.entry_id', 'e.reverses_entry_id')
    .where('x.closing_id', closingId)
    .orderBy('e.journal_code')
    .pluck('e.journal_code');
  t.deepEqual(reversalJournals, ['AN', 'AN', 'CLO'], 'each reversal in the journal of what it reverses');
  t.is((await trialBalanceOf(coop, '2026-12-31'))['713'], expected.interest.negated().toFixed(0));
}

test(
  'a year closed: result to 131, income and expenses zeroed, à-nouveaux per branch; a rerun posts ' +
    'nothing; reopening reverses it all',
  async (t) => {
    const coop = await smallCooperative(app, knex, 'YE1');
    const { world, expected } = coop;
    const year2027 = await refusedUntilReady(t, coop);
    await app.request('POST', `/api/v1/members/accounts/${coop.savingsAccount}/deposits/`, {
      headers: world.users.cashier!.headers,
      json: { amount: '50000' },
    });
    t.is((await closeYear(coop, year2027)).body.code, 'previous_exercice_open');

    await withWorker(
      knex,
      async ({ client }) => {
        const closed = await closeYear(coop);
        t.like(closed.body, {
          status: 'closed',
          closing: {
            status: 'closed',
            step: 'carried_forward',
            result: expected.result.toFixed(0),
            result_account: '131',
          },
        });
        t.is(closed.body.closing.workflow_id, `year-end-closing-${world.enterpriseId}-2026`);
        await resultHiddenFromBranchUsers(t, coop);
        const closingId = closed.body.closing.id as string;

        await assertClosingAndOpeningEntries(t, coop, closingId);

        // 2027 starts from the à-nouveaux: the 50 000 deposit of January on top, no income or expense carried.
        const january = await trialBalanceOf(coop, '2027-01-31');
        t.is(january['5710'], expected.headOffice['5710']!.plus(expected.otherBranch['5710']!).plus(50_000).toFixed(0));
        t.is(january['131'], expected.result.negated().toFixed(0));
        t.is(january['713'], undefined);
        const december = await trialBalanceOf(coop, '2026-12-31');
        t.is(december['713'], undefined, 'the closed year shows its income accounts zeroed');
        t.true(await ledgerBalanced(knex, world.enterpriseId));

        await assertRerunChangesNothing(t, coop, closingId);

        await reopenedByReversals(t, coop, closingId);
        // 2026 open again: 2027 carries it by computation, the same balances, its result pending allocation (13).
        const { 131: closedResult, ...carried } = january;
        t.deepEqual(await trialBalanceOf(coop, '2027-01-31'), { ...carried, 13: closedResult! });

        // Closed again: the same figures, a new closing.
        const again = await closeYear(coop);
        t.like(again.body, { status: 'closed', closing: { status: 'closed', result: expected.result.toFixed(0) } });
        t.not(again.body.closing.id, closingId);
        t.is((await trialBalanceOf(coop, '2027-01-31'))['131'], expected.result.negated().toFixed(0));

        // The closing's history (the second run of the workflow id) replays against the current workflow code.
        const { events } = await client.workflow.getHandle(again.body.closing.workflow_id).fetchHistory();
        await t.notThrowsAsync(
          Worker.runReplayHistory(
            { workflowBundle: { codePath: testEnvironment().bundlePath } },
            { events },
            again.body.closing.workflow_id,
          ),
        );
        if (process.env.RECORD_HISTORIES === '1')
          fs.writeFileSync(historyFile, historyToJSON(temporal.api.history.v1.History.create({ events })));
      },
      taskQueue,
    );
  },
);

test('a recorded history of a closing replays against the current workflow code', async (t) => {
  const history = JSON.parse(fs.readFileSync(historyFile, 'utf8'));
  await t.notThrowsAsync(
    Worker.runReplayHistory(
      { workflowBundle: { codePath: testEnvironment().bundlePath } },
      history,
      'recorded-year-end-closing',
    ),
  );
});

test('a step done before its worker was lost is not done again when the workflow runs it', async (t) => {
  const coop = await smallCooperative(app, knex, 'YE2');
  await openNextYear(coop);
  const context = testActivityContext(knex);
  const actor = {
    userId: coop.world.users.direction!.id,
    grants: [{ role: 'direction' as const, enterpriseId: coop.world.enterpriseId, branchId: null }],
    requestId: 'test',
  };
  const closing = await requestExerciceClosing(context, actor, { exerciceId: coop.year2026, reason: '' });
  // The first step committed, then its worker died before reporting: Temporal runs it again, then the next step.
  t.like(await closeIncomeAndExpenses(knex, testClock(), { closingId: closing.id }), { done: true, entries: 1 });
  await withWorker(
    knex,
    async ({ client }) => {
      const outcome = await client.workflow.execute('yearEndClosing', {
        taskQueue,
        workflowId: `year-end-closing-test-${closing.id}`,
        args: [{ closingId: closing.id, enterpriseId: coop.world.enterpriseId, exerciceCode: '2026' }],
      });
      t.deepEqual(outcome, { result: null, closingEntries: 0, openingEntries: 2 });
    },
    taskQueue,
  );
  const entries = await knex('exercice_closing_entries').where({ closing_id: closing.id }).select('step');
  t.deepEqual(entries.map((entry) => entry.step).sort(), ['closing', 'opening', 'opening']);
  t.like(await knex('exercice_closings').where({ id: closing.id }).first(), {
    status: 'closed',
    step: 'carried_forward',
    result: coop.expected.result.toFixed(0),
  });
});

const entriesOf = async (enterpriseId: string) =>
  Number((await knex('journal_entries').where({ enterprise_id: enterpriseId }).count<{ count: string }[]>())[0]!.count);

/** One closing entry and two opening entries, nothing twice; 2027 opens on the à-nouveaux. */
async function assertEachEntryOnce(
  t: ExecutionContext,
  coop: SmallCooperative,
  { closingId, entriesBefore }: { closingId: string; entriesBefore: number },
) {
  const { world, expected } = coop;
  const steps = await knex('exercice_closing_entries').where({ closing_id: closingId }).select('step');
  t.deepEqual(steps.map((entry) => entry.step).sort(), ['closing', 'opening', 'opening']);
  t.is(await entriesOf(world.enterpriseId), entriesBefore + 3, 'one closing entry, two opening entries, nothing twice');
  const opening = await postedBy(closingId, 'opening');
  t.deepEqual(opening.get(`${world.headOffice} 2027-01-01`), asText(expected.headOffice));
  t.deepEqual(opening.get(`${world.otherBranch} 2027-01-01`), asText(expected.otherBranch));
  const january = await trialBalanceOf(coop, '2027-01-31');
  t.is(january['5710'], expected.headOffice['5710']!.plus(expected.otherBranch['5710']!).toFixed(0));
  t.is(january['131'], expected.result.negated().toFixed(0));
  t.true(await ledgerBalanced(knex, world.enterpriseId));
}

test.serial(
  'a worker killed mid-closing, its closing entries committed and its à-nouveaux in flight: a new ' +
    'worker completes the closing, each entry once',
  async (t) => {
    // A worker process to start (tsx compiles it) and a lost step to come back: longer than the run's 60 s.
    t.timeout(240_000);
    const coop = await smallCooperative(app, knex, 'YE3');
    const { world, expected } = coop;
    const year2027 = await openNextYear(coop);
    const actor = {
      userId: world.users.direction!.id,
      grants: [{ role: 'direction' as const, enterpriseId: world.enterpriseId, branchId: null }],
      requestId: 'test',
    };
    const closing = await requestExerciceClosing(testActivityContext(knex), actor, {
      exerciceId: coop.year2026,
      reason: 'year end',
    });
    const entriesBefore = await entriesOf(world.enterpriseId);

    // The à-nouveaux are posted in 2027, whose row the test holds: the second step waits on it inside its transaction,
    // while the first (posting in 2026) runs through. A step lost with its worker comes back after 5 s, not 2 min.
    const lock = await holdRowLock(file, knex, 'exercices_comptables', year2027);
    const crashQueue = newTaskQueue();
    const firstWorker = await startWorkerProcess(file, { databaseUrl, taskQueue: crashQueue });
    const connection = await Connection.connect({ address: testEnvironment().temporalAddress });
    file.teardown(() => connection.close());
    const input = {
      closingId: closing.id,
      enterpriseId: world.enterpriseId,
      exerciceCode: '2026',
      stepTimeoutSeconds: 5,
    };
    const handle = await new Client({ connection }).workflow.start('yearEndClosing', {
      taskQueue: crashQueue,
      workflowId: `year-end-closing-crash-${closing.id}`,
      args: [input],
    });
    await lock.waiters(1);
    t.like(
      await knex('exercice_closings').where({ id: closing.id }).first(),
      { status: 'running', step: 'income_closed' },
      'the first step committed',
    );
    t.is(await entriesOf(world.enterpriseId), entriesBefore + 1);
    await firstWorker.kill();
    // Released after the kill: the dead worker's transaction can only roll back.
    await lock.release();

    const outcome = await withWorker(knex, () => handle.result(), crashQueue);
    t.deepEqual(
      outcome,
      { result: expected.result.toFixed(0), closingEntries: 1, openingEntries: 2 },
      'the first step as the lost worker reported it; the second run again on the new worker',
    );
    t.like(await knex('exercice_closings').where({ id: closing.id }).first(), {
      status: 'closed',
      step: 'carried_forward',
      result: expected.result.toFixed(0),
    });
    await assertEachEntryOnce(t, coop, { closingId: closing.id, entriesBefore });
    await t.notThrowsAsync(
      Worker.runReplayHistory(
        { workflowBundle: { codePath: testEnvironment().bundlePath } },
        await handle.fetchHistory(),
        handle.workflowId,
      ),
    );
  },
);
