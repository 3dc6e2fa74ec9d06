import test from 'ava';
import type { Knex } from 'knex';
import { temporal } from '@temporalio/proto';
import { approvalStateQuery } from '../../workflows/definitions';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, submitApplication, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { untilWorkflow } from '../helpers/until';
import { newTaskQueue, withWorker } from '../helpers/worker';

const { EventType, TaskQueueKind } = temporal.api.enums.v1;
const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'TWK');
});

const decide = (applicationId: string, as: string) =>
  app.request('POST', `/api/v1/loans/applications/${applicationId}/decisions/`, {
    headers: world.users[as]!.headers,
    json: { decision: 'approve' },
  });

/**
 * Issue 24: two year-end closings failed by chance in full runs. Two tests of one file ran a worker each on the
 * file's task queue. The first to end shut its worker down while that worker held the other test's workflow in
 * its cache: the workflow's next task went to the stopping worker's sticky queue, which now and then took it and
 * dropped it, and the workflow waited for the task's 10 s timeout (WORKFLOW_TASK_TIMED_OUT in its history), once
 * per step on a loaded machine. Tests on one queue now share one worker, which outlives all but the last of them.
 */
test(
  "tests sharing a task queue share its worker: the first to end leaves the other's workflow where " +
    'it is cached, every task served there',
  async (t) => {
    let firstEnded!: () => void;
    const firstGone = new Promise<void>((resolve) => (firstEnded = resolve));
    let second: Promise<string> | undefined;
    await withWorker(
      knex,
      async ({ client }) => {
        const submitted = await submitApplication(world, await memberOf(world));
        t.is(submitted.status, 201, submitted.text);
        // The workflow's first task done by this worker, which caches the workflow; it now waits for a decision.
        await client.workflow.getHandle(submitted.body.workflow_id).query(approvalStateQuery);
        // The sibling test, on the same queue, decides once the first test is over.
        second = withWorker(
          knex,
          async () => {
            await firstGone;
            t.is((await decide(submitted.body.id, 'cashier')).status, 200);
            t.is((await decide(submitted.body.id, 'branch_head')).status, 200);
            return submitted.body.workflow_id as string;
          },
          taskQueue,
        );
      },
      taskQueue,
    );
    firstEnded();
    const workflowId = await second!;

    const { events } = await withWorker(
      knex,
      ({ client }) => client.workflow.getHandle(workflowId).fetchHistory(),
      taskQueue,
    );
    t.false(
      (events ?? []).some((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT),
      'no workflow task was lost',
    );
    const scheduled = (events ?? []).filter(
      (event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    );
    const queues = scheduled.map((event) => event.workflowTaskScheduledEventAttributes!.taskQueue!);
    t.is(queues[0]!.kind, TaskQueueKind.TASK_QUEUE_KIND_NORMAL, 'the first task from the queue');
    t.true(queues.length >= 3, 'a task per decision');
    const onOneStickyQueue = queues
      .slice(1)
      .every((queue) => queue.kind === TaskQueueKind.TASK_QUEUE_KIND_STICKY && queue.name === queues[1]!.name);
    t.true(onOneStickyQueue, 'every later task on one sticky queue: the first worker served the workflow throughout');
  },
);

test('a wait on a workflow that gives up says what it waited for and what the workflow was doing', async (t) => {
  const submitted = await submitApplication(world, await memberOf(world));
  const workflowId = submitted.body.workflow_id as string;
  await withWorker(knex, ({ client }) => client.workflow.getHandle(workflowId).query(approvalStateQuery), taskQueue);
  const error = await t.throwsAsync(
    untilWorkflow({ workflowId, what: 'a decision nobody takes', read: async () => undefined, timeoutMs: 300 }),
  );
  t.true(
    error.message.startsWith(
      `still waiting, after 0.3 s, for a decision nobody takes: ` +
        `workflow ${workflowId} RUNNING on task queue ${taskQueue}`,
    ),
    error.message,
  );
  t.regex(
    error.message,
    new RegExp(
      'pending activities: none; pending workflow task: none; ' +
        'last events: #1 WORKFLOW_EXECUTION_STARTED, .*#\\d+ WORKFLOW_TASK_COMPLETED',
    ),
  );
});
