import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import type { DueProposals } from '../../activities/accounting/recurring-entries.activity';
import { recurringEntriesScheduleId } from '../../workflows/identities';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import { createLoanWorld, setBusinessDate, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { until } from '../helpers/until';
import { bearer, createUser } from '../helpers/users';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * The enterprise's daily Schedule of recurring entries (docs/domain.md §12.7, docs/architecture.md §5): put in place
 * with the enterprise, it runs `recurringEntries`, which proposes the draft of each model due by the business date,
 * once: a second run the same day proposes nothing.
 */
const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
// Recorded with RECORD_HISTORIES=1: a change to the workflow that breaks the histories of runs in flight fails here.
const historyFile = path.join(__dirname, 'histories', 'recurring-entries-proposed.json');

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'RSC');
});

/** Triggers the Schedule and answers the run it started: its id and its result. */
async function scheduledRun(client: Client): Promise<{ workflowId: string; result: DueProposals }> {
  const schedule = client.schedule.getHandle(recurringEntriesScheduleId(world.enterpriseId));
  const before = (await schedule.describe()).info.recentActions.length;
  await schedule.trigger();
  let workflowId = '';
  await until('the Schedule to start its run', async () => {
    const actions = (await schedule.describe()).info.recentActions;
    workflowId = actions.at(-1)?.action.workflow.workflowId ?? '';
    return actions.length > before;
  });
  return { workflowId, result: (await client.workflow.getHandle(workflowId).result()) as DueProposals };
}

test('the Schedule proposes the rent of June once, dated its day, and a second run proposes nothing', async (t) => {
  await setBusinessDate(world, '2026-06-10');
  await createUser(knex, 'accountant_rsc', [{ role: 'accountant', enterpriseId: world.enterpriseId, branchId: null }]);
  const headers = await bearer(app, 'accountant_rsc', '10.65.0.1');
  const lines = [
    { account: '65234', branch: world.headOffice, debit: '150000' },
    { account: '5603', branch: world.headOffice, credit: '150000' },
  ];
  const later = {
    label: 'Assurance',
    reference_pattern: 'ASSUR-{period}',
    day_of_period: 20,
    first_period: '2026-06',
    lines,
  };
  for (const model of [
    { label: 'Loyer', reference_pattern: 'LOYER-{period}', day_of_period: 5, first_period: '2026-06', lines },
    later,
  ]) {
    const created = await app.request('POST', '/api/v1/accounting/recurring-entries/', {
      headers,
      json: { enterprise: world.enterpriseId, ...model },
    });
    t.is(created.status, 201, created.text);
  }

  await withWorker(
    knex,
    async ({ client }) => {
      const description = await client.schedule.getHandle(recurringEntriesScheduleId(world.enterpriseId)).describe();
      t.like(description.action, { type: 'startWorkflow', workflowType: 'recurringEntries' });
      const { workflowId, result: first } = await scheduledRun(client);
      t.is(first.proposed.length, 1, 'the rent, due on the 5th; the insurance waits for the 20th');
      t.deepEqual(first.refused, []);
      const drafts = await knex('manual_entries')
        .where({ enterprise_id: world.enterpriseId })
        .select('id', 'reference', 'entry_date', 'status');
      t.deepEqual(
        drafts.map((row) => ({ ...row })),
        [{ id: first.proposed[0], reference: 'LOYER-2026-06', entry_date: '2026-06-05', status: 'draft' }],
      );
      // Schedule runs are named by the second they start: the next one a second later.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      t.deepEqual(
        (await scheduledRun(client)).result,
        { proposed: [], refused: [] },
        'the second run proposes nothing twice',
      );
      t.is(
        await knex('manual_entries')
          .where({ enterprise_id: world.enterpriseId })
          .count('* as n')
          .first()
          .then((row) => Number(row!.n)),
        1,
      );

      const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
      await t.notThrowsAsync(
        Worker.runReplayHistory({ workflowBundle: { codePath: testEnvironment().bundlePath } }, { events }, workflowId),
      );
      if (process.env.RECORD_HISTORIES === '1')
        fs.writeFileSync(historyFile, historyToJSON(temporal.api.history.v1.History.create({ events })));
    },
    taskQueue,
  );
});

test.serial(
  "what the Schedule's run writes is audited with its origin: the run's workflow id (named by the " +
    'Schedule) and a system address',
  async (t) => {
    const other = await createLoanWorld(app, knex, 'RSO');
    await setBusinessDate(other, '2026-06-10');
    await createUser(knex, 'accountant_rso', [
      { role: 'accountant', enterpriseId: other.enterpriseId, branchId: null },
    ]);
    const headers = await bearer(app, 'accountant_rso', '10.65.0.2');
    const lines = [
      { account: '65234', branch: other.headOffice, debit: '90000' },
      { account: '5603', branch: other.headOffice, credit: '90000' },
    ];
    const model = await app.request('POST', '/api/v1/accounting/recurring-entries/', {
      headers,
      json: {
        enterprise: other.enterpriseId,
        label: 'Loyer',
        reference_pattern: 'LOYER-{period}',
        day_of_period: 5,
        first_period: '2026-06',
        lines,
      },
    });
    t.is(model.status, 201, model.text);
    const made = await knex('audit_events')
      .where({ entity_type: 'recurring_entry', entity_id: model.body.id })
      .first('request_id', 'address');
    t.is(made.address, '127.0.0.1', "a person's change keeps the address the API saw");

    await withWorker(
      knex,
      async ({ client }) => {
        const schedule = client.schedule.getHandle(recurringEntriesScheduleId(other.enterpriseId));
        await schedule.trigger();
        let workflowId = '';
        await until('the Schedule to start its run', async () => {
          workflowId = (await schedule.describe()).info.recentActions.at(-1)?.action.workflow.workflowId ?? '';
          return workflowId !== '';
        });
        const run = (await client.workflow.getHandle(workflowId).result()) as DueProposals;
        t.is(run.proposed.length, 1);
        t.true(workflowId.startsWith(recurringEntriesScheduleId(other.enterpriseId)), 'a Schedule names its runs');
        const written = await knex('audit_events')
          .where({ enterprise_id: other.enterpriseId })
          .whereIn('action', ['manual_entry.create', 'recurring_entry.propose'])
          .orderBy('id')
          .select('action', 'actor_id', 'request_id', 'address');
        t.deepEqual(
          written.map((row) => ({ ...row })),
          [
            {
              action: 'manual_entry.create',
              actor_id: null,
              request_id: workflowId,
              address: 'workflow:recurringEntries',
            },
            {
              action: 'recurring_entry.propose',
              actor_id: null,
              request_id: workflowId,
              address: 'workflow:recurringEntries',
            },
          ],
        );
      },
      taskQueue,
    );
  },
);

test("a recorded history of the recurring entries' run replays against the current workflow code", async (t) => {
  const history = JSON.parse(fs.readFileSync(historyFile, 'utf8'));
  await t.notThrowsAsync(
    Worker.runReplayHistory(
      { workflowBundle: { codePath: testEnvironment().bundlePath } },
      history,
      'recorded-recurring-entries',
    ),
  );
});
