import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import type { TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, openSavingsAccount } from '../helpers/loans';
import { startApiProcess } from '../helpers/processes';
import { holdRowLock } from '../helpers/row-lock';
import { until } from '../helpers/until';
import { newTaskQueue } from '../helpers/worker';
import { booksBreaches } from '../model/books';

/** The burst: this many deposits, each with its own Idempotency-Key, all sent at once. */
const deposits = 120;
/**
 * Deposits 0, 40 and 80 go to the first account, which the test holds locked: they are inside their transaction when
 * the API dies.
 */
const heldAccountDeposits = [0, 40, 80];

interface Deposit {
  key: string;
  account: string;
  amount: string;
  /** The operation id of the first 201 the client received, if any. */
  answeredId?: string;
}

const send = (api: TestApp, headers: Record<string, string>, deposit: Deposit) =>
  api.request('POST', `/api/v1/members/accounts/${deposit.account}/deposits/`, {
    headers: { ...headers, 'idempotency-key': deposit.key },
    json: { amount: deposit.amount, reference: deposit.key },
  });

/** The client retries what got no answer, then sends everything once more: each is answered by its first operation. */
async function retriedUntilAnswered(
  t: ExecutionContext,
  api: TestApp,
  cashier: Record<string, string>,
  burst: Deposit[],
) {
  await Promise.all(
    burst
      .filter((candidate) => candidate.answeredId === undefined)
      .map(async (deposit) => {
        const retried = await send(api, cashier, deposit);
        t.is(retried.status, 201, retried.text);
        deposit.answeredId = retried.body.id as string;
      }),
  );
  await Promise.all(
    burst.map(async (deposit) => {
      const again = await send(api, cashier, deposit);
      t.is(again.status, 201, again.text);
      t.is(again.headers.get('idempotent-replayed'), 'true', `${deposit.key} answered as a replay`);
      t.is(again.body.id, deposit.answeredId, `${deposit.key} answers its first operation`);
    }),
  );
}

/** One journal entry per deposit; each account's balance is its opening deposit and the burst's. */
async function assertOneEntryAndBalances(
  t: ExecutionContext,
  {
    knex,
    events,
    accounts,
    burst,
    api,
    cashier,
  }: {
    knex: Knex;
    events: { id: string }[];
    accounts: string[];
    burst: Deposit[];
    api: TestApp;
    cashier: Record<string, string>;
  },
) {
  const entries = await knex('journal_entries')
    .whereIn(
      'event_id',
      events.map((event) => event.id),
    )
    .count({ n: '*' })
    .first();
  t.is(Number(entries!.n), deposits, 'one journal entry per deposit');
  for (const account of accounts) {
    const expected = burst
      .filter((deposit) => deposit.account === account)
      .reduce((sum, deposit) => sum + BigInt(deposit.amount), 1000n);
    const shown = await api.request('GET', `/api/v1/members/accounts/${account}/`, { headers: cashier });
    t.is(shown.body.balance, expected.toString());
  }
}

test(
  "the API process killed (SIGKILL) during a burst of deposits: the client's retries with the same " +
    'Idempotency-Keys after the restart produce each deposit exactly once',
  async (t) => {
    t.timeout(180_000);
    const { knex, url } = await createTestDatabase(t);
    const options = { databaseUrl: url, taskQueue: newTaskQueue() };
    const started = Date.now();
    const first = await startApiProcess(t, options);
    const world = await createLoanWorld(first.client, knex, 'DPK', { capital: false });
    const accounts: string[] = [];
    for (let index = 0; index < 4; index += 1)
      accounts.push(await openSavingsAccount(world, await memberOf(world), '1000'));
    const burst: Deposit[] = Array.from({ length: deposits }, (_, index) => ({
      key: `burst-${index}`,
      account: heldAccountDeposits.includes(index) ? accounts[0]! : accounts[1 + (index % 3)]!,
      amount: String(1000 + index),
    }));
    const cashier = world.users.cashier!.headers;
    const depositEvents = () =>
      knex('business_event_logs')
        .where({ enterprise_id: world.enterpriseId, kind: 'deposit' })
        .whereLike('idempotency_key', '%:burst-%');

    // The burst, the API killed once half of it is committed and the held account's three deposits are waiting inside
    // their transactions.
    const lock = await holdRowLock(t, knex, 'comptes_clients', accounts[0]!);
    const answers = burst.map(async (deposit) => {
      const response = await send(first.client, cashier, deposit).catch(() => undefined);
      if (response?.status === 201) deposit.answeredId = response.body.id as string;
      return response?.status;
    });
    await lock.waiters(heldAccountDeposits.length);
    await until('half of the burst committed', async () => (await depositEvents()).length >= deposits / 2);
    await first.kill();
    // Counted before the lock goes: a held deposit is one statement, which PostgreSQL completes and commits once it
    // gets the lock, dead client or not (it finds the client gone only when it answers); the retries then replay it.
    const committedAtCrash = (await depositEvents()).length;
    await lock.release();
    const statuses = await Promise.all(answers);
    t.log(
      `at the crash: ${statuses.filter((status) => status === 201).length} deposits answered, ` +
        `${committedAtCrash} committed, ${statuses.filter((status) => status === undefined).length} cut off`,
    );
    t.true(
      statuses.every((status) => status === 201 || status === undefined),
      `only 201s or cut connections: ${statuses.join(' ')}`,
    );
    t.true(committedAtCrash < deposits, 'the crash cut the burst');
    t.true(
      heldAccountDeposits.every((index) => burst[index]!.answeredId === undefined),
      'the deposits inside their transactions were not answered',
    );

    const crashed = Date.now();
    // The API back on the same port; the client retries what got no answer, then sends everything once more.
    const second = await startApiProcess(t, { ...options, port: first.port });
    await retriedUntilAnswered(t, second.client, cashier, burst);

    t.log(`set-up and burst ${(crashed - started) / 1000} s, restart and retries ${(Date.now() - crashed) / 1000} s`);
    // Counted in the ledger: one event and one entry per key, each account's balance its opening deposit and the
    // burst's, the books true.
    const events = await depositEvents();
    t.is(events.length, deposits);
    t.is(new Set(events.map((event) => event.idempotency_key)).size, deposits);
    await assertOneEntryAndBalances(t, { knex, events, accounts, burst, api: second.client, cashier });
    t.deepEqual(await booksBreaches(world, new Map()), []);
  },
);
