import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { unsettledTillSessions, vaultCounted } from '../../activities/cash/cash-differences.queries';
import { decideRequest } from '../helpers/accounting';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, openSavingsAccount, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * The scenario (issue 29, docs/domain.md §13.2): a day with two cashiers, one vault, an approvisionnement
 * of each till, twenty operations, a 1 000 XAF shortage and a 500 XAF excess at the close, their settlement under
 * four eyes, and the vault's count. Every till's book balance and the 571 balances equal the test's own count. Then
 * both branches close the day and the end of day moves the business date to the next working day.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let accounts: string[];

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'DAY');
  accounts = [
    await openSavingsAccount(world, await memberOf(world)),
    await openSavingsAccount(world, await memberOf(world)),
  ];
});

const as = (user: string) => world.users[user]!.headers;
const post = (user: string, path: string, json: Record<string, unknown>) =>
  app.request('POST', path, { headers: as(user), json });

/**
 * Debits less credits of accounts in the head office's entries, by code prefix or exact code, as a number of francs.
 */
async function balance(code: string, prefix = false): Promise<number> {
  const row = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where({ 'e.enterprise_id': world.enterpriseId, 'e.branch_id': world.headOffice })
    .where('c.code', prefix ? 'like' : '=', prefix ? `${code}%` : code)
    .first(knex.raw('COALESCE(sum(l.debit - l.credit), 0)::text AS balance'));
  return Number(row.balance);
}

/** A count of notes and coins adding up to a sum, largest first: written here, not taken from the product. */
function countOf(sum: number): Record<string, number> {
  const faces: [string, number][] = [
    ['note_10000', 10000],
    ['note_5000', 5000],
    ['note_2000', 2000],
    ['note_1000', 1000],
    ['note_500', 500],
    ['coin_100', 100],
    ['coin_50', 50],
    ['coin_25', 25],
    ['coin_10', 10],
    ['coin_5', 5],
    ['coin_1', 1],
  ];
  let left = sum;
  const count: Record<string, number> = {};
  for (const [name, face] of faces) {
    count[name] = Math.floor(left / face);
    left -= count[name] * face;
  }
  return count;
}

/** Makes the settlement as the branch head (202, a request) and approves it as the direction, through the API. */
async function settle(json: Record<string, unknown>): Promise<Record<string, unknown>> {
  const asked = await post('branch_head', '/api/v1/cash/difference-settlements/', {
    enterprise: world.enterpriseId,
    ...json,
  });
  if (asked.status !== 202) throw new Error(asked.text);
  const approved = await decideRequest(
    app,
    asked.body.id as string,
    'approve',
    as('direction'),
    'counted with the cashier',
  );
  if (approved.status !== 200) throw new Error(approved.text);
  const settled = await app.request('GET', `/api/v1/cash/difference-settlements/?enterprise=${world.enterpriseId}`, {
    headers: as('branch_head'),
  });
  return settled.body.results.find(
    (row: { difference_entry: string }) => row.difference_entry === json.difference_entry,
  );
}

test.serial(
  'two cashiers, one vault: approvisionnement, twenty operations, a shortage and an excess ' +
    'settled, the vault counted; the branches close and the end of day moves the date',
  async (t) => {
    await withWorker(knex, async () => closeTheDay(t, await cashierDay(t)), taskQueue);
  },
);

async function cashierDay(t: ExecutionContext): Promise<string> {
  const vault0 = await balance('5710');
  const sessions = await openSuppliedTills(t);
  const { expected, net } = await twentyOperations(t);
  const { counted, closed, today } = await closeTills(t, sessions, expected);
  await settleTillDifferences(t, closed, sessions, today);
  const vaultBooks = await countTheVault(t, vault0, today);

  // The test's own count: every till, the vault, and 571 as a whole; nothing left in transit or in the error accounts.
  t.deepEqual(
    { g1: await balance('5712001'), g2: await balance('5712002'), vault: await balance('5710') },
    { g1: counted.cashier, g2: counted.teller, vault: vaultBooks - 2000 },
  );
  t.is(await balance('571', true), vault0 + net - 1000 + 500 + 1000 - 2000);
  t.deepEqual(
    [await balance('459'), await balance('4631'), await balance('4632'), await balance('7786'), await balance('6798')],
    [0, 0, 0, -500, 2000],
  );
  return today;
}

/** The approvisionnement: 200 000 to G1, 100 000 to G2, each counted in by its cashier. */
const supplied: Record<string, number> = { cashier: 200000, teller: 100000 };

/** Opens the two tills and their sessions, then supplies them from the vault. Returns each cashier's session. */
async function openSuppliedTills(t: ExecutionContext): Promise<Record<string, string>> {
  const tills: Record<string, string> = {};
  for (const [code, cashier] of [
    ['G1', 'cashier'],
    ['G2', 'teller'],
  ] as const) {
    tills[cashier] = (
      await post('branch_head', '/api/v1/cash/tills/', {
        enterprise: world.enterpriseId,
        branch: world.headOffice,
        code,
        label: `Guichet ${code}`,
        cashier: world.users[cashier]!.id,
      })
    ).body.id;
  }
  const sessions: Record<string, string> = {};
  for (const cashier of ['cashier', 'teller'])
    sessions[cashier] = (await post(cashier, '/api/v1/cash/till-sessions/', { count: {} })).body.id;

  for (const cashier of ['cashier', 'teller']) {
    const asked = await post('branch_head', '/api/v1/cash/till-transfers/', {
      till: tills[cashier],
      kind: 'to_till',
      amount: String(supplied[cashier]),
      count: countOf(supplied[cashier]!),
    });
    t.is(
      (
        await post(cashier, `/api/v1/cash/till-transfers/${asked.body.id as string}/confirm/`, {
          count: countOf(supplied[cashier]!),
        })
      ).status,
      200,
    );
  }
  return sessions;
}

/** Twenty operations, ten at each till: deposits and withdrawals on the two members' accounts. */
async function twentyOperations(t: ExecutionContext) {
  const expected = { ...supplied };
  let net = 0;
  for (let index = 0; index < 20; index += 1) {
    const cashier = index % 2 === 0 ? 'cashier' : 'teller';
    const amount = 1000 * (index + 1) + 25 * index;
    const withdrawal = index % 4 === 3;
    const answer = await post(
      cashier,
      `/api/v1/members/accounts/${accounts[index % 2]!}/${withdrawal ? 'withdrawals' : 'deposits'}/`,
      { amount: String(amount) },
    );
    t.is(answer.status, 201, answer.text);
    expected[cashier]! += withdrawal ? -amount : amount;
    net += withdrawal ? -amount : amount;
  }
  t.deepEqual(
    { cashier: await balance('5712001'), teller: await balance('5712002') },
    expected,
    "each operation in its cashier's till",
  );
  return { expected, net };
}

/** The close: G1 counts 1 000 less than its books, G2 500 more. */
async function closeTills(t: ExecutionContext, sessions: Record<string, string>, expected: Record<string, number>) {
  const counted = { cashier: expected.cashier! - 1000, teller: expected.teller! + 500 };
  const closed = {} as Record<'cashier' | 'teller', Record<string, unknown>>;
  for (const cashier of ['cashier', 'teller'] as const)
    closed[cashier] = (
      await post(cashier, `/api/v1/cash/till-sessions/${sessions[cashier]!}/close/`, {
        count: countOf(counted[cashier]),
      })
    ).body;
  t.like(closed.cashier, { closing_difference: '-1000', closing_total: String(counted.cashier) });
  t.like(closed.teller, { closing_difference: '500', closing_total: String(counted.teller) });
  t.deepEqual(
    { cashier: await balance('5712001'), teller: await balance('5712002') },
    counted,
    "each till's books equal its count",
  );
  t.deepEqual([await balance('4631'), await balance('4632')], [1000, -500]);
  const today = closed.cashier.business_date as string;
  t.deepEqual(
    (await unsettledTillSessions(knex, world.headOffice, today)).sort(),
    [sessions.cashier!, sessions.teller!].sort(),
    'closed, not settled',
  );
  return { counted, closed, today };
}

/** The shortage recovered from the cashier, the excess written off, each once and by the branch head only. */
async function settleTillDifferences(
  t: ExecutionContext,
  closed: Record<'cashier' | 'teller', Record<string, unknown>>,
  sessions: Record<string, string>,
  today: string,
) {
  t.like(
    (
      await post('branch_head', '/api/v1/cash/difference-settlements/', {
        enterprise: world.enterpriseId,
        difference_entry: closed.cashier.closing_entry,
        mode: 'returned',
      })
    ).body,
    { status: 422, code: 'cash_settlement_mode_refused', errors: [{ field: 'mode' }] },
    'a shortage is not returned',
  );
  t.like(
    (
      await post('cashier', '/api/v1/cash/difference-settlements/', {
        enterprise: world.enterpriseId,
        difference_entry: closed.cashier.closing_entry,
        mode: 'recovered',
      })
    ).body,
    { status: 403 },
  );
  t.like(await settle({ difference_entry: closed.cashier.closing_entry, mode: 'recovered' }), {
    kind: 'shortage',
    mode: 'recovered',
    amount: '1000',
    account: '5710',
  });
  t.deepEqual(await unsettledTillSessions(knex, world.headOffice, today), [sessions.teller], 'one difference left');
  t.like(await settle({ difference_entry: closed.teller.closing_entry, mode: 'written_off' }), {
    kind: 'excess',
    mode: 'written_off',
    amount: '500',
    account: '7786',
  });
  t.deepEqual(await unsettledTillSessions(knex, world.headOffice, today), []);
  t.like(
    (
      await post('branch_head', '/api/v1/cash/difference-settlements/', {
        enterprise: world.enterpriseId,
        difference_entry: closed.teller.closing_entry,
        mode: 'returned',
      })
    ).body,
    { status: 409, code: 'cash_difference_settled' },
  );
}

/**
 * The vault: its books are the start, less the approvisionnements, plus the 1 000 handed in by the cashier. Counted
 * 2 000 short. Returns its books before the count.
 */
async function countTheVault(t: ExecutionContext, vault0: number, today: string): Promise<number> {
  const vaultBooks = vault0 - 300000 + 1000;
  t.is(await balance('5710'), vaultBooks);
  t.false(await vaultCounted(knex, world.headOffice, today));
  const vaultCount = await post('branch_head', '/api/v1/cash/vault-counts/', {
    enterprise: world.enterpriseId,
    branch: world.headOffice,
    count: countOf(vaultBooks - 2000),
  });
  t.is(vaultCount.status, 201, vaultCount.text);
  t.like(vaultCount.body, {
    book_balance: String(vaultBooks),
    total: String(vaultBooks - 2000),
    difference: '-2000',
    settlement: null,
  });
  t.true(await vaultCounted(knex, world.headOffice, today));
  t.like(
    (
      await post('branch_head', '/api/v1/cash/vault-counts/', {
        enterprise: world.enterpriseId,
        branch: world.headOffice,
        count: {},
      })
    ).body,
    { status: 409, code: 'vault_counted' },
  );
  t.like(await settle({ difference_entry: vaultCount.body.difference_entry, mode: 'written_off' }), {
    kind: 'shortage',
    account: '6798',
    amount: '2000',
  });
  return vaultBooks;
}

/**
 * The next working day after `date`, Saturdays and Sundays skipped: computed here, apart from the workflow's calendar.
 */
function nextWorkingDay(date: string): string {
  const day = new Date(`${date}T00:00:00Z`);
  do day.setUTCDate(day.getUTCDate() + 1);
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6);
  return day.toISOString().slice(0, 10);
}

/**
 * Both branches close the day (the head office's sessions settled and its vault counted), then the end of day moves the
 * date.
 */
async function closeTheDay(t: ExecutionContext, today: string): Promise<void> {
  t.is(
    (
      await post('branch_head', '/api/v1/cash/branch-days/', {
        enterprise: world.enterpriseId,
        branch: world.headOffice,
        date: today,
      })
    ).status,
    201,
  );
  t.is(
    (
      await post('other_head', '/api/v1/cash/branch-days/', {
        enterprise: world.enterpriseId,
        branch: world.otherBranch,
        date: today,
      })
    ).status,
    201,
  );
  const started = await post('direction', '/api/v1/enterprise/end-of-days/', { enterprise: world.enterpriseId });
  t.is(started.status, 202, started.text);
  let run = started.body as { id: string; status: string; next_date: string | null };
  for (let attempt = 0; run.status === 'running' && attempt < 300; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    run = (await app.request('GET', `/api/v1/enterprise/end-of-days/${run.id}/`, { headers: as('direction') })).body;
  }
  t.like(run, { status: 'done', next_date: nextWorkingDay(today) });
  const configuration = await app.request(
    'GET',
    `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`,
    { headers: as('direction') },
  );
  t.is(configuration.body.business_date, nextWorkingDay(today), 'the business date moved to the next working day');
  const late = await post('cashier', `/api/v1/members/accounts/${accounts[0]!}/deposits/`, { amount: '1000' });
  t.is(late.status, 409, "no session is open on the new day: the closed day's till takes nothing more");
}
