import test, { type ExecutionContext } from 'ava';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import { configureRule } from '../../activities/events/configure-rule.activity';
import { createReplayRequest } from '../../activities/events/event-replay.activity';
import { recordBusinessEvent } from '../../activities/events/record-business-event';
import { provisionBatch, startProvisioningRun } from '../../activities/loans/provisioning.activity';
import { eventReplayWorkflowId as replayWorkflowId } from '../../workflows/identities';
import { Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { approvalStateQuery } from '../../workflows/definitions';
import { createBenchProduct, seedPortfolio } from '../../bench/loan-seed';
import { activitySetting } from '../helpers/activity-setting';
import type { TestResponse } from '../helpers/app';
import { approveRequest, secondAdmin } from '../helpers/approvals';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import { createLoanWorld, memberOf, submitApplication, type LoanWorld } from '../helpers/loans';
import { startApiProcess, startWorkerProcess, type ServiceProcess } from '../helpers/processes';
import { holdRowLock, type HeldRowLock } from '../helpers/row-lock';
import { subscribeShares } from '../helpers/shares';
import { startTcpRelay } from '../helpers/tcp-relay';
import { fileTeardown } from '../helpers/teardown';
import { until } from '../helpers/until';
import { newTaskQueue } from '../helpers/worker';
import { booksBreaches, portfolioGaps, unbalancedEntries } from '../model/books';
import { testClock } from '../helpers/clock';

/**
 * One worker process runs every kind of workflow to a crash point of its own, then dies by SIGKILL at once, as a
 * machine losing power would: a provisioning run and an event replay between two batches, approvals between two
 * decisions and inside one, share withdrawals in their notice period and inside their refund. A second worker
 * process takes over. Inside a transaction means one of two things, both arranged with row locks the test holds:
 * - cut off mid-transaction: the worker waits on the lock when it dies, and PostgreSQL rolls its work back;
 * - committed, unheard: the worker reaches Temporal through a relay the test freezes, then the lock is released,
 *   the transaction commits, and the worker dies before Temporal learns of it: the retry must find that work.
 * Then every run completes, the ledger counts each thing once, and every history replays.
 */

const file = fileTeardown(test);
/** A workflow day of 1 s: the 30-day notice lasts 30 s, from before the crash to after it. */
const dayMs = 1000;
const loans = 3000;
const loansPerBatch = 1000;
const replayedEvents = 150;
const eventsPerBatch = 50;
/** How long a batch may run before Temporal gives it to another worker: the time a lost batch takes to come back. */
const batchTimeoutSeconds = 10;

interface Setting {
  knex: Knex;
  temporal: Client;
  taskQueue: string;
  world: LoanWorld;
  /** For the enterprises seeded by the activities themselves (provisioning, replay). */
  direct: Awaited<ReturnType<typeof activitySetting>>;
}

/**
 * A scenario, seeded: `go` sets it going towards its crash point, `outcome` waits for it to end after the crash and
 * asserts.
 */
interface Scenario {
  go: () => Promise<CrashPoint>;
  outcome: () => Promise<(t: ExecutionContext) => Promise<void>>;
}

/** What a scenario leaves for the crash: its locks, and what tells that it stands where the crash must find it. */
interface CrashPoint {
  /** Held through the crash: the worker dies inside its transaction. */
  cutOff: HeldRowLock[];
  /** Released once Temporal is out of the worker's reach; `committed` says when its transaction is in. */
  unheard: { lock: HeldRowLock; committed: () => Promise<boolean> }[];
  /** Besides the locks' waiters: e.g. a first batch committed. */
  reached: () => Promise<boolean>;
}

let setting: Setting;
const outcomes: Record<string, Promise<(t: ExecutionContext) => Promise<void>>> = {};

test.before(async (t) => {
  t.timeout(300_000);
  const started = Date.now();
  const { knex, url } = await createTestDatabase(file);
  const taskQueue = newTaskQueue();
  const relay = await startTcpRelay(testEnvironment().temporalAddress);
  file.teardown(() => relay.close());
  const options = { databaseUrl: url, taskQueue, env: { WORKFLOW_DAY_MS: String(dayMs) } };
  const processes = Promise.all([
    startApiProcess(file, options),
    startWorkerProcess(file, { ...options, temporalAddress: relay.address }),
  ]);
  const connection = await Connection.connect({ address: testEnvironment().temporalAddress });
  file.teardown(() => connection.close());
  const direct = { knex, temporal: new Client({ connection }), taskQueue, direct: await activitySetting(knex) };

  // Everything seeded first (the portfolios while the processes start), then set going at once: no batch or refund
  // outlives its timeout before the crash.
  const scenarios: Record<string, Scenario> = {
    provisioning: await provisioningRun(direct),
    replay: await eventReplay(direct),
  };
  const [api, firstWorker] = await processes;
  setting = { ...direct, world: await createLoanWorld(api.client, knex, 'CRW') };
  scenarios.approvals = await approvals(setting);
  scenarios.withdrawals = await shareWithdrawals(setting);
  const seeded = Date.now();
  const points = await Promise.all(Object.values(scenarios).map((scenario) => scenario.go()));
  await crash(firstWorker, relay.freeze, points);
  const crashed = Date.now();
  const secondWorker = startWorkerProcess(file, options);
  for (const [name, scenario] of Object.entries(scenarios))
    outcomes[name] = secondWorker.then(() => scenario.outcome());
  await secondWorker;
  t.log(
    `set-up ${(seeded - started) / 1000} s, to the crash ${(crashed - seeded) / 1000} s, ` +
      `second worker up ${(Date.now() - crashed) / 1000} s`,
  );
});

/**
 * The crash: every scenario at its point, Temporal cut off, the unheard transactions committed, SIGKILL; then the locks
 * go.
 */
async function crash(worker: ServiceProcess, freeze: () => void, points: CrashPoint[]): Promise<void> {
  await Promise.all(
    points.flatMap((point) =>
      [...point.cutOff, ...point.unheard.map((held) => held.lock)].map((lock) => lock.waiters(1)),
    ),
  );
  await Promise.all(points.map((point) => until('every scenario at its crash point', point.reached)));
  freeze();
  for (const { lock, committed } of points.flatMap((point) => point.unheard)) {
    await lock.release();
    await until('a transaction Temporal cannot hear of committed', committed);
  }
  await worker.kill();
  for (const lock of points.flatMap((point) => point.cutOff)) await lock.release();
}

/** The history of a workflow replays against the current workflow code (the run's bundle). */
async function assertReplays(t: ExecutionContext, handle: WorkflowHandle) {
  const history = await handle.fetchHistory();
  await t.notThrowsAsync(
    Worker.runReplayHistory({ workflowBundle: { codePath: testEnvironment().bundlePath } }, history, handle.workflowId),
  );
}

/** Debit − credit of every account of an enterprise. */
async function balances(knex: Knex, enterpriseId: string): Promise<Record<string, string>> {
  const rows: { code: string; balance: string }[] = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('e.enterprise_id', enterpriseId)
    .groupBy('c.code')
    .orderBy('c.code')
    .select('c.code', knex.raw('sum(l.debit - l.credit)::text AS balance'));
  return Object.fromEntries(rows.map((row) => [row.code, row.balance]));
}

/** A loan in arrears (its row is updated) in the middle of the second batch, borrowers in id order. */
async function loanInArrearsOfSecondBatch(knex: Knex, enterpriseId: string) {
  return await knex.raw<{ rows: { id: string }[] }>(
    `SELECT id
     FROM (
       SELECT l.id, row_number() OVER (ORDER BY l.client_id) AS position FROM loans l WHERE l.enterprise_id = ?
     ) ordered
     WHERE position > ?
       AND EXISTS (
         SELECT 1 FROM loan_installments i
         WHERE i.loan_id = ordered.id AND i.paid_on IS NULL AND i.due_date < '2026-10-02'
       )
     ORDER BY position LIMIT 1`,
    [enterpriseId, loansPerBatch * 1.5],
  );
}

/** The crashed run's enterprise has the postings, provisions and balances of the one provisioned without a crash. */
async function assertPostedAsWithoutCrash(
  t: ExecutionContext,
  knex: Knex,
  { crashed, reference }: Record<'crashed' | 'reference', { enterpriseId: string }>,
) {
  const eventsOf = (enterpriseId: string) =>
    knex('business_event_logs')
      .where({ enterprise_id: enterpriseId })
      .whereLike('idempotency_key', 'provisioning:%')
      .groupBy('kind')
      .orderBy('kind')
      .select('kind', knex.raw('count(*)::int AS events'), knex.raw('sum(amount)::text AS amount'));
  t.deepEqual(
    await eventsOf(crashed.enterpriseId),
    await eventsOf(reference.enterpriseId),
    'the same postings, by kind, as the run without a crash',
  );
  const rowsOf = async (enterpriseId: string) =>
    Number((await knex('loan_provisions').where({ enterprise_id: enterpriseId }).count({ n: '*' }).first())!.n);
  t.is(await rowsOf(crashed.enterpriseId), await rowsOf(reference.enterpriseId));
  t.deepEqual(
    await balances(knex, crashed.enterpriseId),
    await balances(knex, reference.enterpriseId),
    'every account as without a crash',
  );
  const books = { knex, enterpriseId: crashed.enterpriseId };
  t.deepEqual([...(await unbalancedEntries(books)), ...(await portfolioGaps(books))], []);
}

/**
 * A run over 3 000 loans (one in three in arrears) in batches of 1 000, the worker killed inside its second batch,
 * after the first committed. The expectation is the same portfolio, seeded alike in another enterprise and
 * provisioned without a crash.
 */
async function provisioningRun({
  knex,
  temporal,
  taskQueue,
  direct: { context, actor, newEnterprise },
}: Omit<Setting, 'world'>): Promise<Scenario> {
  const portfolio = async (code: string) => {
    const enterpriseId = await newEnterprise(code);
    const product = await createBenchProduct(context, actor, enterpriseId);
    await seedPortfolio(knex, { enterpriseId, productId: product.id, userId: actor.userId, loans, arrearsShare: 3 });
    return {
      enterpriseId,
      run: await startProvisioningRun(knex, testClock(), {
        enterpriseId,
        asOf: '2026-10-02',
        trigger: 'api',
        requestedBy: null,
      }),
    };
  };
  const [crashed, reference] = [await portfolio('PCR'), await portfolio('PRF')];
  for (let status = 'running'; status === 'running';)
    status = (await provisionBatch(knex, testClock(), { runId: reference.run.id, batchSize: loansPerBatch })).status;

  const { rows } = await loanInArrearsOfSecondBatch(knex, crashed.enterpriseId);
  const runRow = (runId: string) =>
    knex('provisioning_runs')
      .where({ id: runId })
      .first(
        'status',
        'loans_processed',
        'provisions_changed',
        'loans_reclassified',
        'amount_charged',
        'amount_reversed',
      );
  const handle = temporal.workflow.getHandle(`provisioning-run-${crashed.run.id}`);
  return {
    go: async () => {
      const lock = await holdRowLock(file, knex, 'loans', rows[0]!.id);
      const args = [
        { enterpriseId: crashed.enterpriseId, runId: crashed.run.id, batchSize: loansPerBatch, batchTimeoutSeconds },
      ];
      await temporal.workflow.start('provisioningRun', { taskQueue, workflowId: handle.workflowId, args });
      return {
        cutOff: [lock],
        unheard: [],
        reached: async () => (await runRow(crashed.run.id)).loans_processed === loansPerBatch,
      };
    },
    outcome: async () => {
      await handle.result();
      return async (t: ExecutionContext) => {
        t.deepEqual(await runRow(crashed.run.id), {
          ...(await runRow(reference.run.id)),
          status: 'completed',
          loans_processed: loans,
        });
        await assertPostedAsWithoutCrash(t, knex, { crashed, reference });
        await assertReplays(t, handle);
      };
    },
  };
}

/** Every event reposted once: its entry, one reversal, one new entry; the new cash account holds them all. */
async function assertEachEventRepostedOnce(
  t: ExecutionContext,
  knex: Knex,
  { enterpriseId, requestId }: { enterpriseId: string; requestId: string },
) {
  t.like(await knex('event_replay_requests').where({ id: requestId }).first(), {
    status: 'completed',
    events_seen: replayedEvents,
    events_changed: replayedEvents,
    entries_posted: 2 * replayedEvents,
  });
  const perEvent = await knex('journal_entries')
    .where({ enterprise_id: enterpriseId })
    .groupBy('event_id')
    .select(knex.raw('count(*)::int AS entries'));
  t.deepEqual(
    new Set(perEvent.map((row) => row.entries)),
    new Set([3]),
    'each event: its entry, one reversal, one new entry',
  );
  t.is(
    Number((await knex('event_replay_results').where({ request_id: requestId }).count({ n: '*' }).first())!.n),
    replayedEvents,
  );
  const total = String(
    Array.from({ length: replayedEvents }, (_, index) => 1000 + index).reduce((sum, amount) => sum + amount, 0),
  );
  t.like(await balances(knex, enterpriseId), { 5710: '0', 5711: total });
  t.deepEqual(await unbalancedEntries({ knex, enterpriseId }), []);
}

/**
 * 150 deposits replayed under a changed rule, in batches of 50: the worker dies after the second batch committed,
 * before Temporal heard of it, so the retried activity must start after it rather than post it again.
 */
async function eventReplay({
  knex,
  temporal,
  taskQueue,
  direct: { context, actor, newEnterprise },
}: Omit<Setting, 'world'>): Promise<Scenario> {
  const enterpriseId = await newEnterprise('RPL');
  for (let index = 0; index < replayedEvents; index += 1) {
    await inTransaction(knex, (trx) =>
      recordBusinessEvent(trx, testClock(), {
        enterpriseId,
        branchId: null,
        kind: 'deposit',
        amount: new Money(1000 + index),
        payload: {},
        idempotencyKey: `d-${index}`,
        actorId: null,
      }),
    );
  }
  // Deposits now reach 5711: every one is reversed from 5710 and posted anew.
  await configureRule(context, actor, enterpriseId, {
    kind: 'deposit',
    legs: [{ debit: { account: '5711' }, credit: { role: 'member_deposits' } }],
    active: true,
    reason: 'another cash desk',
  });
  const request = await createReplayRequest(knex, actor, {
    enterpriseId,
    dateFrom: '2000-01-01',
    dateTo: '2100-12-31',
    kinds: [],
    mode: 'apply',
  });
  const secondBatchEvent = await knex('business_event_logs')
    .where({ enterprise_id: enterpriseId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .offset(eventsPerBatch * 1.5)
    .first('id');
  const seen = async () =>
    (await knex('event_replay_requests').where({ id: request.id }).first('events_seen')).events_seen as number;
  const handle = temporal.workflow.getHandle(replayWorkflowId(request.id));
  return {
    go: async () => {
      // Its entries reference the event: their foreign key waits on the event's row.
      const lock = await holdRowLock(file, knex, 'business_event_logs', secondBatchEvent.id);
      await temporal.workflow.start('eventReplay', {
        taskQueue,
        workflowId: handle.workflowId,
        args: [{ requestId: request.id, batchSize: eventsPerBatch, batchTimeoutSeconds }],
      });
      return {
        cutOff: [],
        unheard: [{ lock, committed: async () => (await seen()) === 2 * eventsPerBatch }],
        reached: async () => (await seen()) === eventsPerBatch,
      };
    },
    outcome: async () => {
      await handle.result();
      return async (t: ExecutionContext) => {
        await assertEachEventRepostedOnce(t, knex, { enterpriseId, requestId: request.id });
        await assertReplays(t, handle);
      };
    },
  };
}

/**
 * What a client does with a 503 (no worker answered within the API's deadline): the same request, with the same
 * Idempotency-Key, again a moment later, until it is answered.
 */
async function retriedWhileUnavailable(send: () => Promise<TestResponse>): Promise<TestResponse> {
  for (const deadline = Date.now() + 150_000; ;) {
    const response = await send();
    if (response.status !== 503 || Date.now() > deadline) return response;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

const decide = ({ world }: Setting, applicationId: string, as: 'cashier' | 'branch_head') =>
  retriedWhileUnavailable(() =>
    world.app.request('POST', `/api/v1/loans/applications/${applicationId}/decisions/`, {
      headers: { ...world.users[as]!.headers, 'idempotency-key': `decision-${applicationId}-${as}` },
      // The step as the approver saw it: a retry after the decision took effect still names the step it decided.
      json: { decision: 'approve', comment: `approved by ${as}`, step: as },
    }),
  );

/**
 * Three applications: the first between its first and second decision at the crash, the second's first decision
 * committed but unheard, the third's cut off inside its transaction. Each decision is recorded once.
 */
async function approvals(s: Setting): Promise<Scenario> {
  const { knex, world, temporal } = s;
  // Steps of 365 workflow days (6 minutes here): none expires during the test.
  const configured = await world.app.request(
    'PATCH',
    `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`,
    { headers: world.users.direction!.headers, json: { approval_step_time_limit_days: 365 } },
  );
  if (configured.status !== 200) throw new Error(configured.text);
  const submitted: { id: string; workflow_id: string }[] = [];
  for (let index = 0; index < 3; index += 1) {
    const response = await submitApplication(world, await memberOf(world));
    if (response.status !== 201) throw new Error(response.text);
    submitted.push(response.body as { id: string; workflow_id: string });
  }
  const [between, unheard, cutOff] = submitted as [
    { id: string; workflow_id: string },
    { id: string; workflow_id: string },
    { id: string; workflow_id: string },
  ];
  const first = await decide(s, between.id, 'cashier');
  if (first.status !== 200) throw new Error(first.text);
  const decisions = (applicationId: string) =>
    knex('loan_application_decisions').where({ application_id: applicationId }).orderBy('decided_at').pluck('step');
  let answers: Promise<TestResponse>[] = [];
  return {
    go: async () => {
      const [unheardLock, cutOffLock] = [
        await holdRowLock(file, knex, 'loan_applications', unheard.id),
        await holdRowLock(file, knex, 'loan_applications', cutOff.id),
      ];
      answers = [decide(s, unheard.id, 'cashier'), decide(s, cutOff.id, 'cashier')];
      return {
        cutOff: [cutOffLock],
        unheard: [{ lock: unheardLock, committed: async () => (await decisions(unheard.id)).length === 1 }],
        reached: async () => true,
      };
    },
    outcome: async () => {
      const answered: TestResponse[] = [await decide(s, between.id, 'branch_head'), ...(await Promise.all(answers))];
      return async (t: ExecutionContext) => {
        t.deepEqual(
          answered.map((response) => response.status),
          [200, 200, 200],
          answered.map((response) => response.text).join('\n'),
        );
        t.deepEqual(await decisions(between.id), ['cashier', 'branch_head']);
        for (const application of [unheard, cutOff])
          t.deepEqual(await decisions(application.id), ['cashier'], 'recorded once');
        for (const application of submitted) {
          const handle = temporal.workflow.getHandle(application.workflow_id);
          const state = await handle.query(approvalStateQuery);
          t.is(state.decisions.length, (await decisions(application.id)).length, 'the workflow and the database agree');
          t.is(
            state.step,
            (await knex('loan_applications').where({ id: application.id }).first('current_step')).current_step,
          );
          await assertReplays(t, handle);
        }
      };
    },
  };
}

/** Each refund posted once, by one event and one entry; the withdrawal in notice cancelled its shares. */
async function assertRefundedOnce(
  t: ExecutionContext,
  knex: Knex,
  { refunded, inNotice }: { refunded: { id: string }[]; inNotice: { id: string } },
) {
  for (const withdrawal of refunded) {
    const events = await knex('business_event_logs')
      .where({ kind: 'share_refund' })
      .whereRaw(`payload->>'withdrawal' = ?`, [withdrawal.id]);
    t.is(events.length, 1, 'refunded once');
    t.is(Number((await knex('journal_entries').where({ event_id: events[0]!.id }).count({ n: '*' }).first())!.n), 1);
  }
  t.like(await knex('share_withdrawals').where({ id: inNotice.id }).first(), {
    status: 'effective',
    cancelled_paid: '2000000',
  });
}

/** The share type's notice, set under four eyes: another administrator approves it (docs/domain.md §11). */
async function setShareNotice(knex: Knex, world: LoanWorld, days: number) {
  const requested = await world.app.request('PATCH', `/api/v1/shares/types/${world.shareTypeId}/`, {
    headers: world.users.direction!.headers,
    json: { notice_days: days },
  });
  const response = await approveRequest(knex, requested, await secondAdmin(knex, world));
  if (response.status !== 200) throw new Error(response.text);
}

/**
 * Three members withdraw 2 of their 3 shares: the first in a 30-day notice period at the crash, the second's refund
 * committed but unheard, the third's cut off inside its transaction. Each refund is paid once.
 */
async function shareWithdrawals(s: Setting): Promise<Scenario> {
  const { knex, world, temporal } = s;
  const as = world.users.cashier!.headers;
  const setNotice = (days: number) => setShareNotice(knex, world, days);
  const withdraw = async () => {
    const member = await memberOf(world);
    const subscription = await subscribeShares(world, member, { share_type: world.shareTypeId, shares: 3 });
    const response = await world.app.request('POST', '/api/v1/shares/withdrawals/', {
      headers: as,
      json: { subscription: subscription.id, shares: 2 },
    });
    if (response.status !== 201) throw new Error(response.text);
    return { member, id: response.body.id as string, workflowId: response.body.workflow_id as string };
  };
  const statusOf = async (id: string) =>
    (await knex('share_withdrawals').where({ id }).first('status')).status as string;
  await setNotice(0);
  const [unheard, cutOff] = [await withdraw(), await withdraw()];
  await until(
    'the withdrawals without notice effective',
    async () => (await statusOf(unheard.id)) === 'effective' && (await statusOf(cutOff.id)) === 'effective',
  );
  await setNotice(30);
  const refund = (id: string) =>
    retriedWhileUnavailable(() =>
      world.app.request('POST', `/api/v1/shares/withdrawals/${id}/refund/`, {
        headers: { ...as, 'idempotency-key': `refund-${id}` },
        json: { channel: 'cash', reference: 'till' },
      }),
    );
  let refunds: Promise<TestResponse>[] = [];
  let inNotice: Awaited<ReturnType<typeof withdraw>>;
  return {
    go: async () => {
      inNotice = await withdraw();
      const [unheardLock, cutOffLock] = [
        await holdRowLock(file, knex, 'client_profiles', unheard.member),
        await holdRowLock(file, knex, 'client_profiles', cutOff.member),
      ];
      refunds = [refund(unheard.id), refund(cutOff.id)];
      return {
        cutOff: [cutOffLock],
        unheard: [{ lock: unheardLock, committed: async () => (await statusOf(unheard.id)) === 'refunded' }],
        reached: async () => (await statusOf(inNotice.id)) === 'notice',
      };
    },
    outcome: async () => {
      const answered = await Promise.all(refunds);
      await until('the notice period over', async () => (await statusOf(inNotice.id)) === 'effective', 90_000);
      return async (t: ExecutionContext) => {
        t.deepEqual(
          answered.map((response) => [response.status, response.body.status, response.body.net_refund]),
          [
            [200, 'refunded', '2000000'],
            [200, 'refunded', '2000000'],
          ],
        );
        await assertRefundedOnce(t, knex, { refunded: [unheard, cutOff], inNotice });
        for (const withdrawal of [unheard, cutOff, inNotice])
          await assertReplays(t, temporal.workflow.getHandle(withdrawal.workflowId));
      };
    },
  };
}

const verify = (name: string) => async (t: ExecutionContext) => {
  t.timeout(180_000);
  await (
    await outcomes[name]!
  )(t);
};

test(
  'a provisioning run over 3 000 loans, its worker killed inside the second batch: completed by the ' +
    'next worker, posted as without a crash',
  verify('provisioning'),
);
test(
  'an event replay, its worker killed after a batch committed unheard: resumed after it, each event reposted once',
  verify('replay'),
);
test(
  'approvals killed between two decisions, after a decision committed unheard, inside a decision: ' +
    'each decision recorded once',
  verify('approvals'),
);
test(
  'share withdrawals killed in their notice period and inside their refund: effective on time, each refund paid once',
  verify('withdrawals'),
);

test(
  'after all of it, the books of the cooperative tie out: balanced, accounts equal to the ledger, ' +
    'capital to the register',
  async (t) => {
    t.timeout(180_000);
    await Promise.all(Object.values(outcomes));
    t.deepEqual(await booksBreaches(setting.world, new Map()), []);
  },
);
