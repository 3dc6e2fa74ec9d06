import test from 'ava';
import type { Knex } from 'knex';
import { createEnterprise } from '../../activities/enterprise/enterprises.activity';
import { configureRule } from '../../activities/events/configure-rule.activity';
import { recordBusinessEvent } from '../../activities/events/record-business-event';
import type { ActivityContext, Actor } from '../../activities/context';
import { eventReplayWorkflowId as replayWorkflowId } from '../../workflows/identities';
import { Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { eventReplay } from '../../workflows';
import { startTestApp, testActivityContext } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { bearer, createUser } from '../helpers/users';
import { untilWorkflow } from '../helpers/until';
import { newTaskQueue, withWorker } from '../helpers/worker';
import { testClock } from '../helpers/clock';

async function setUp(t: import('ava').ExecutionContext, code: string, events: number) {
  const { knex } = await createTestDatabase(t);
  const context: ActivityContext = testActivityContext(knex);
  const userId = await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  const actor: Actor = { userId, grants: [{ role: 'admin', enterpriseId: null, branchId: null }], requestId: 'test' };
  const enterprise = await createEnterprise(context, actor, {
    code,
    name: 'Coop',
    legalForm: 'C',
    country: 'CM',
    timeZone: 'Africa/Douala',
    headOffice: { code: 'HQ', name: 'HQ', address: '', city: '' },
  });
  for (let index = 0; index < events; index += 1) {
    await inTransaction(knex, (trx) =>
      recordBusinessEvent(trx, testClock(), {
        enterpriseId: enterprise.id,
        branchId: null,
        kind: 'deposit',
        amount: new Money(1000 + index),
        payload: {},
        idempotencyKey: `d-${index}`,
        actorId: null,
      }),
    );
  }
  // The cash account of deposits changes: every past deposit now differs from what the rule would post.
  await configureRule(context, actor, enterprise.id, {
    kind: 'deposit',
    legs: [{ debit: { account: '5711' }, credit: { role: 'member_deposits' } }],
    active: true,
    reason: 'foreign cash desk',
  });
  return { knex, enterpriseId: enterprise.id };
}

async function cashBalances(knex: Knex, enterpriseId: string) {
  const rows = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('e.enterprise_id', enterpriseId)
    .whereIn('c.code', ['5710', '5711'])
    .groupBy('c.code')
    .orderBy('c.code')
    .select('c.code', knex.raw('sum(l.debit - l.credit)::text AS balance'));
  const totals = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .where('e.enterprise_id', enterpriseId)
    .first(knex.raw('sum(l.debit)::text AS debit'), knex.raw('sum(l.credit)::text AS credit'));
  return { rows, balanced: totals.debit === totals.credit };
}

test('through the API: a dry run changes nothing, apply reposts, a second apply finds nothing to do', async (t) => {
  const { knex, enterpriseId } = await setUp(t, 'RP1', 5);
  const taskQueue = newTaskQueue();
  const app = await startTestApp(t, { knex, taskQueue });
  const root = await bearer(app, 'root');
  await withWorker(
    knex,
    async ({ client }) => {
      const run = async (mode: 'dry_run' | 'apply') => {
        const started = await app.request('POST', '/api/v1/events/replays/', {
          headers: root,
          json: { enterprise: enterpriseId, date_from: '2000-01-01', date_to: '2100-12-31', mode },
        });
        t.is(started.status, 202, started.text);
        await client.workflow.getHandle(started.body.workflow_id).result();
        return (await app.request('GET', `/api/v1/events/replays/${started.body.id}/`, { headers: root })).body;
      };
      const dry = await run('dry_run');
      t.like(dry, { status: 'completed', events_seen: 5, events_changed: 5, entries_posted: 0, events_failed: 0 });
      t.deepEqual(
        (await cashBalances(knex, enterpriseId)).rows.map((row: { code: string }) => row.code),
        ['5710'],
      );

      const applied = await run('apply');
      t.like(applied, { status: 'completed', events_seen: 5, events_changed: 5, entries_posted: 10 });
      const after = await cashBalances(knex, enterpriseId);
      t.deepEqual(after.rows, [
        { code: '5710', balance: '0' },
        { code: '5711', balance: '5010' },
      ]);
      t.true(after.balanced);

      const again = await run('apply');
      t.like(again, { events_seen: 5, events_changed: 0, entries_posted: 0 });
    },
    taskQueue,
  );

  await createUser(knex, 'teller', [{ role: 'direction', enterpriseId, branchId: null }]);
  const direction = await bearer(app, 'teller', '10.2.2.2');
  t.is(
    (
      await app.request('POST', '/api/v1/events/replays/', {
        headers: direction,
        json: { enterprise: enterpriseId, date_from: '2026-01-01', date_to: '2026-12-31', mode: 'apply' },
      })
    ).status,
    403,
  );
  t.is((await app.request('GET', '/api/v1/events/replays/', { headers: direction })).status, 403);
});

test(
  'a worker stopped mid-run: another worker resumes from the committed cursor, nothing is posted ' + 'twice',
  async (t) => {
    const events = 12;
    const { knex, enterpriseId } = await setUp(t, 'RP2', events);
    const [request] = await knex('event_replay_requests')
      .insert({ enterprise_id: enterpriseId, date_from: '2000-01-01', date_to: '2100-12-31', kinds: [], mode: 'apply' })
      .returning('id');
    const taskQueue = newTaskQueue();
    const workflowId = replayWorkflowId(request.id);

    await withWorker(
      knex,
      async ({ client }) => {
        await client.workflow.start(eventReplay, {
          taskQueue,
          workflowId,
          args: [{ requestId: request.id, batchSize: 1, batchTimeoutSeconds: 3 }],
        });
        // Let the first worker process a few batches, then stop it while the replay is running.
        await untilWorkflow({
          workflowId,
          what: 'four events of the replay seen',
          read: async () =>
            (await knex('event_replay_requests').where({ id: request.id }).first('events_seen')).events_seen >= 4
              ? true
              : undefined,
        });
      },
      taskQueue,
    );
    const midway = await knex('event_replay_requests').where({ id: request.id }).first('status', 'events_seen');
    t.is(midway.status, 'running');
    t.true(midway.events_seen < events, `stopped at ${midway.events_seen} of ${events}`);

    const result = await withWorker(knex, ({ client }) => client.workflow.getHandle(workflowId).result(), taskQueue);
    t.like(result, { status: 'completed', eventsSeen: events, entriesPosted: 2 * events });
    t.is((await knex('event_replay_results').where({ request_id: request.id })).length, events);
    t.is(
      (await knex('journal_entries').where({ enterprise_id: enterpriseId }).whereNotNull('reverses_entry_id')).length,
      events,
      'one reversal per event',
    );
    t.true((await cashBalances(knex, enterpriseId)).balanced);
  },
);

test('a long range goes on in fresh runs (continue-as-new) and still replays each event once', async (t) => {
  const events = 7;
  const { knex, enterpriseId } = await setUp(t, 'RP3', events);
  const [request] = await knex('event_replay_requests')
    .insert({
      enterprise_id: enterpriseId,
      date_from: '2000-01-01',
      date_to: '2100-12-31',
      kinds: ['deposit'],
      mode: 'dry_run',
    })
    .returning('id');
  const workflowId = replayWorkflowId(request.id);
  const { result, firstRunId, lastRunId } = await withWorker(knex, async ({ client, taskQueue }) => {
    const handle = await client.workflow.start(eventReplay, {
      taskQueue,
      workflowId,
      args: [{ requestId: request.id, batchSize: 2, batchesPerRun: 2 }],
    });
    const outcome = await handle.result();
    return {
      result: outcome,
      firstRunId: handle.firstExecutionRunId,
      lastRunId: (await client.workflow.getHandle(workflowId).describe()).runId,
    };
  });
  t.like(result, { status: 'completed', eventsSeen: events, entriesPosted: 0 });
  t.not(lastRunId, firstRunId, '4 batches at 2 batches per run: the replay continued as a new run');
  t.is((await knex('event_replay_results').where({ request_id: request.id, outcome: 'changed' })).length, events);
});
