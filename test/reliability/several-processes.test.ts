import test, { type ExecutionContext } from 'ava';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { TestApp } from '../helpers/app';
import { connectTemporalClient } from '../../runtime/services';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import { createLoanWorld, memberOf, openSavingsAccount, submitApplication, type LoanWorld } from '../helpers/loans';
import { freePort } from '../helpers/ports';
import { startApiProcess, startWorkerProcess } from '../helpers/processes';
import { newTaskQueue } from '../helpers/worker';
import { booksBreaches } from '../model/books';

/**
 * Issue 32, the road past one machine: two API processes and two worker processes, as `npm run api` and
 * `npm run worker` run them, against one PostgreSQL and one Temporal. The same work spread over them, and sent
 * twice through both, is done once: what holds it is in the database (idempotency keys, locks) and in Temporal
 * (one workflow per id), not in any process's memory.
 */

const depositsSent = 120;
const applications = 4;
/** The circuit's steps, and the user of the world deciding each. */
const circuit = [
  ['cashier', 'cashier'],
  ['branch_head', 'branch_head'],
  ['credit_committee', 'committee'],
  ['direction', 'direction'],
] as const;

/** Loan applications decided step by step, each decision through the other API than the last. */
async function applicationsDecidedThroughBoth(t: ExecutionContext, apis: TestApp[], world: LoanWorld) {
  const submitted: { id: string; workflow_id: string }[] = [];
  for (let index = 0; index < applications; index += 1) {
    const application = await submitApplication({ ...world, app: apis[index % 2]! }, await memberOf(world));
    t.is(application.status, 201, application.text);
    submitted.push(application.body as { id: string; workflow_id: string });
  }
  for (const [step, [, user]] of circuit.entries()) {
    const decided = await Promise.all(
      submitted.map((application, index) =>
        apis[(index + step) % 2]!.request('POST', `/api/v1/loans/applications/${application.id}/decisions/`, {
          headers: world.users[user]!.headers,
          json: { decision: 'approve' },
        }),
      ),
    );
    t.true(
      decided.every((answer) => answer.status === 200),
      decided.map((answer) => answer.text).join('\n'),
    );
  }
  return submitted;
}

/** Each application approved, each of its steps decided once; returns the identities of the workers that ran them. */
async function assertEachApprovedOnce(
  t: ExecutionContext,
  knex: Knex,
  temporal: Client,
  submitted: { id: string; workflow_id: string }[],
) {
  const identities = new Set<string>();
  for (const application of submitted) {
    const handle = temporal.workflow.getHandle(application.workflow_id);
    t.like(await handle.result(), { status: 'approved' });
    for (const event of (await handle.fetchHistory()).events ?? []) {
      const identity =
        event.workflowTaskStartedEventAttributes?.identity ?? event.activityTaskStartedEventAttributes?.identity;
      if (identity) identities.add(identity);
    }
    const decisions = await knex('loan_application_decisions').where({ application_id: application.id }).pluck('step');
    t.deepEqual([...decisions].sort(), circuit.map(([step]) => step).sort(), 'each step decided once');
  }
  return identities;
}

test(
  'two APIs and two workers share one database and one Temporal: both APIs migrate it at once, ' +
    'every deposit sent through both is posted once, every approval decided once',
  async (t) => {
    t.timeout(300_000);
    // An empty database: both APIs start at once and migrate it, as `docker compose up --scale api=2` does.
    const { knex, url } = await createTestDatabase(t, { empty: true });
    const options = { databaseUrl: url, taskQueue: newTaskQueue() };
    const ports = [await freePort()];
    while (ports.length < 2) ports.push(...[await freePort()].filter((port) => port !== ports[0]));
    const [first, second] = await Promise.all([
      startApiProcess(t, { ...options, port: ports[0] }),
      startApiProcess(t, { ...options, port: ports[1] }),
    ]);
    const workers = await Promise.all([startWorkerProcess(t, options), startWorkerProcess(t, options)]);
    const apis = [first.client, second.client];
    const world = await createLoanWorld(first.client, knex, 'MPX');
    const accounts: string[] = [];
    for (let index = 0; index < 3; index += 1)
      accounts.push(await openSavingsAccount(world, await memberOf(world), '1000'));
    const cashier = world.users.cashier!.headers;

    // Each deposit sent to one API, and every third one at the same time to the other, with the same key.
    const deposits = Array.from({ length: depositsSent }, (_, index) => ({
      key: `spread-${index}`,
      account: accounts[index % accounts.length]!,
      amount: String(500 + index),
    }));
    const send = (api: number, deposit: (typeof deposits)[number]) =>
      apis[api]!.request('POST', `/api/v1/members/accounts/${deposit.account}/deposits/`, {
        headers: { ...cashier, 'idempotency-key': deposit.key },
        json: { amount: deposit.amount, reference: deposit.key },
      });
    const answers = await Promise.all(
      deposits.flatMap((deposit, index) => [
        send(index % 2, deposit),
        ...(index % 3 === 0 ? [send((index + 1) % 2, deposit)] : []),
      ]),
    );
    t.true(
      answers.every((answer) => answer.status === 201),
      answers.map((answer) => answer.status).join(' '),
    );

    const submitted = await applicationsDecidedThroughBoth(t, apis, world);

    const events = await knex('business_event_logs')
      .where({ enterprise_id: world.enterpriseId, kind: 'deposit' })
      .whereLike('idempotency_key', '%:spread-%')
      .select('id', 'idempotency_key');
    t.is(events.length, depositsSent, 'one event per key');
    t.is(new Set(events.map((event) => event.idempotency_key as string)).size, depositsSent);
    for (const account of accounts) {
      const expected = deposits
        .filter((deposit) => deposit.account === account)
        .reduce((sum, deposit) => sum + BigInt(deposit.amount), 1000n);
      const shown = await second.client.request('GET', `/api/v1/members/accounts/${account}/`, { headers: cashier });
      t.is(shown.body.balance, expected.toString(), `balance of ${account}`);
    }

    const temporal = await connectTemporalClient(testEnvironment().temporalAddress, 'default');
    const identities = await assertEachApprovedOnce(t, knex, temporal, submitted);
    // Which worker ran which task is Temporal's choice: logged, not asserted.
    t.log(`tasks run by ${[...identities].join(', ')} (worker pids ${workers.map((worker) => worker.pid).join(', ')})`);
    t.deepEqual(await booksBreaches(world, new Map()), []);
  },
);
