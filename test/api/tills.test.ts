import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { subledgerAccounts } from '../../activities/accounting/subledger-accounts';
import { recordTreasuryTransfer } from '../../activities/accounting/treasury-transfers.activity';
import { openTillSessions } from '../../activities/cash/tills.queries';
import { createReplayRequest, replayEventBatch } from '../../activities/events/event-replay.activity';
import { startTestApp, type TestApp } from '../helpers/app';
import { approveRequest } from '../helpers/approvals';
import { testClock } from '../helpers/clock';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, openSavingsAccount, setBusinessDate, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';

/**
 * Tills, the vault and the till session (issue 29, docs/domain.md §13.1): tills open their own 5712 sub-account,
 * are assigned one cashier each; a branch with a till assigned is under till control, where each cash operation
 * posts to the operator's till and needs their open session; counts post their differences to 4631 and 4632.
 * Every expected figure is computed here by hand.
 */

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
/**
 * A member's account of the head office and one of the other branch, opened before any till (their initial deposits in
 * 5710).
 */
let account: string;
let otherAccount: string;
/** The cashier's first session, closed with a shortage of 500. */
let firstSession: { id: string; business_date: string };

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  world = await createLoanWorld(app, knex, 'TIL');
  account = await openSavingsAccount(world, await memberOf(world));
  otherAccount = await openSavingsAccount(
    { ...world, users: { ...world.users, cashier: world.users.other_cashier! } },
    await memberOf(world, world.otherBranch),
  );
});

const as = (user: string) => world.users[user]!.headers;
const createTill = (json: Record<string, unknown>, user = 'branch_head') =>
  app.request('POST', '/api/v1/cash/tills/', {
    headers: as(user),
    json: { enterprise: world.enterpriseId, branch: world.headOffice, ...json },
  });
const listTills = async (user: string, filter = '') =>
  (await app.request('GET', `/api/v1/cash/tills/?enterprise=${world.enterpriseId}${filter}`, { headers: as(user) }))
    .body;
const openSession = (user: string, count: Record<string, unknown>) =>
  app.request('POST', '/api/v1/cash/till-sessions/', { headers: as(user), json: { count } });
const closeSession = (user: string, id: string, count: Record<string, unknown>) =>
  app.request('POST', `/api/v1/cash/till-sessions/${id}/close/`, { headers: as(user), json: { count } });
const deposit = (user: string, account: string, amount: string) =>
  app.request('POST', `/api/v1/members/accounts/${account}/deposits/`, { headers: as(user), json: { amount } });
const withdraw = (user: string, account: string, amount: string) =>
  app.request('POST', `/api/v1/members/accounts/${account}/withdrawals/`, { headers: as(user), json: { amount } });

/** Debits less credits of an account code in one branch's entries. */
async function branchBalance(code: string, branchId = world.headOffice): Promise<string> {
  const row = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where({ 'e.enterprise_id': world.enterpriseId, 'e.branch_id': branchId, 'c.code': code })
    .first(knex.raw('COALESCE(sum(l.debit - l.credit), 0)::text AS balance'));
  return row.balance as string;
}

/** A till's code, cash limit and cashier are checked; a cashier and another branch open none; nothing written. */
async function assertTillsRefused(t: ExecutionContext) {
  t.like((await createTill({ code: 'G1', label: 'Twin' })).body, {
    status: 409,
    code: 'till_code_taken',
    errors: [{ field: 'code' }],
  });
  t.like((await createTill({ code: 'G 3', label: 'Spaced' })).body, { status: 400, errors: [{ field: 'code' }] });
  t.like((await createTill({ code: 'G3', label: 'Cents', cash_limit: '12.5' })).body, {
    status: 400,
    errors: [{ field: 'cash_limit' }],
  });
  t.like((await createTill({ code: 'G3', label: 'Stranger', cashier: world.users.other_cashier!.id })).body, {
    status: 422,
    code: 'till_cashier_refused',
    errors: [{ field: 'cashier' }],
  });
  t.like((await createTill({ code: 'G3', label: 'Taken', cashier: world.users.cashier!.id })).body, {
    status: 409,
    code: 'till_cashier_taken',
  });
  t.is((await createTill({ code: 'G3', label: 'By a cashier' }, 'cashier')).status, 403, 'a cashier opens no till');
  t.is(
    (await createTill({ code: 'G3', label: 'Elsewhere' }, 'other_head')).status,
    404,
    "another branch's head does not see the head office",
  );
  t.is(
    (await knex('tills').where({ enterprise_id: world.enterpriseId, kind: 'till' })).length,
    2,
    'nothing written by the refusals',
  );
}

/** A vault is never assigned, a cashier holds one till; another branch sees only its own vault. */
async function assertAssignmentsAndIsolation(
  t: ExecutionContext,
  vaults: { id: string; branch: string }[],
  tillIds: { first: string; second: string },
) {
  const vault = vaults.find((row: { branch: string }) => row.branch === world.headOffice);
  t.like(
    (
      await app.request('POST', `/api/v1/cash/tills/${vault!.id}/assign/`, {
        headers: as('branch_head'),
        json: { cashier: world.users.cashier!.id },
      })
    ).body,
    { status: 409, code: 'till_is_vault' },
  );
  t.like(
    (
      await app.request('POST', `/api/v1/cash/tills/${tillIds.second}/assign/`, {
        headers: as('branch_head'),
        json: { cashier: world.users.cashier!.id },
      })
    ).body,
    { code: 'till_cashier_taken' },
  );
  t.deepEqual(
    (await listTills('other_head')).results.map((row: { account: string; branch: string }) => [
      row.account,
      row.branch,
    ]),
    [['5710', world.otherBranch]],
    'another branch sees its vault only',
  );
  t.is(
    (await app.request('GET', `/api/v1/cash/tills/${tillIds.first}/`, { headers: as('other_head') })).status,
    404,
    "another branch's till",
  );
}

test.serial(
  'each branch has its vault; tills open the next 5712 sub-accounts; roles, bad input and branch isolation',
  async (t) => {
    const vaults = await listTills('direction', '&kind=vault');
    t.deepEqual(
      vaults.results
        .map((row: { account: string; branch: string; cashier: null }) => [row.account, row.branch, row.cashier])
        .sort(),
      [
        ['5710', world.headOffice, null],
        ['5710', world.otherBranch, null],
      ].sort(),
      "one vault per branch, the branch's 5710, made with the branch",
    );

    const first = await createTill({
      code: 'G1',
      label: 'Guichet 1',
      cash_limit: '2000000',
      cashier: world.users.cashier!.id,
    });
    t.is(first.status, 201, first.text);
    t.like(first.body, {
      kind: 'till',
      account: '5712001',
      cash_limit: '2000000',
      cashier: world.users.cashier!.id,
      is_active: true,
      balance: '0',
    });
    const chart = await knex('company_chart_entries')
      .where({ enterprise_id: world.enterpriseId })
      .whereIn('code', ['5712', '5712001'])
      .orderBy('code')
      .select('code', 'parent_code', 'label');
    t.deepEqual(chart, [
      { code: '5712', parent_code: '571', label: 'Caisses des guichets' },
      { code: '5712001', parent_code: '5712', label: 'Caisse Guichet 1' },
    ]);
    const second = await createTill({ code: 'G2', label: 'Guichet 2', cashier: world.users.teller!.id });
    t.like(second.body, { account: '5712002', cash_limit: null });
    t.is(
      (await subledgerAccounts(knex, world.enterpriseId)).get('5712002'),
      'tills',
      'manual entries may not touch a till',
    );

    await assertTillsRefused(t);

    await assertAssignmentsAndIsolation(t, vaults.results, { first: first.body.id, second: second.body.id });
  },
);

/** A session opens only on a count of whole notes, and not for the direction. */
async function assertSessionOpeningRefused(t: ExecutionContext) {
  t.like((await openSession('cashier', { note_10000: -1 })).body, {
    status: 400,
    errors: [{ field: 'count.note_10000' }],
  });
  t.like((await openSession('cashier', { note_10000: '3' })).body, {
    status: 400,
    errors: [{ field: 'count.note_10000' }],
  });
  t.like(
    (await app.request('POST', '/api/v1/cash/till-sessions/', { headers: as('cashier'), json: {} })).body,
    { status: 400, errors: [{ field: 'count' }] },
    'no count, no session',
  );
  t.like((await openSession('direction', {})).body, { status: 403 }, 'the direction counts no till');
}

/** The business date does not move while a session is open. */
async function assertBusinessDateHeld(t: ExecutionContext) {
  const move = () =>
    app.request('PATCH', `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`, {
      headers: as('direction'),
      json: { business_date: '2026-11-27' },
    });
  t.like(
    (await move()).body,
    { status: 409, code: 'business_date_till_sessions_open', errors: [{ field: 'business_date' }] },
    'the date stays while a session is open',
  );
}

/** Closed, the date moves (under four eyes, as always) and the move is audited. */
async function assertBusinessDateMoved(t: ExecutionContext) {
  await setBusinessDate(world, '2026-11-27');
  t.is(
    (
      await knex('audit_events')
        .where({ enterprise_id: world.enterpriseId, action: 'configuration.update' })
        .orderBy('id', 'desc')
        .first('details')
    ).details.businessDate,
    '2026-11-27',
  );
}

/** The cashier's session opened on an empty till; a second one and unassigning the till are refused. */
async function openEmptySession(t: ExecutionContext) {
  const opened = await openSession('cashier', {});
  t.is(opened.status, 201, opened.text);
  t.like(opened.body, {
    status: 'open',
    account: '5712001',
    opening_total: '0',
    opening_book_balance: '0',
    opening_difference: '0',
    opening_entry: null,
    closing_total: null,
  });
  t.like((await openSession('cashier', {})).body, { status: 409, code: 'till_session_open' });
  const till = opened.body.till as string;
  t.like(
    (await app.request('POST', `/api/v1/cash/tills/${till}/unassign/`, { headers: as('branch_head'), json: {} })).body,
    { status: 409, code: 'till_session_open' },
  );
  return opened;
}

test.serial(
  "a cashier's day: no session no cash, counts and their differences, " +
    'a closed session refuses, a second close changes nothing',
  async (t) => {
    const vaultBefore = await branchBalance('5710');
    const refused = await deposit('cashier', account, '150000');
    t.like(refused.body, { status: 409, code: 'till_session_required' }, 'the head office is under till control');

    await assertSessionOpeningRefused(t);
    const opened = await openEmptySession(t);

    for (const [move, amount] of [
      [deposit, '150000'],
      [deposit, '35000'],
      [withdraw, '20000'],
    ] as const)
      t.is((await move('cashier', account, amount)).status, 201);
    // 150 000 + 35 000 − 20 000 in the till; the vault untouched.
    t.is(await branchBalance('5712001'), '165000');
    t.is(await branchBalance('5710'), vaultBefore);
    t.deepEqual(
      (await openTillSessions(knex, world.headOffice, opened.body.business_date)).map((row) => row.id),
      [opened.body.id],
    );
    await assertBusinessDateHeld(t);

    // Counted: 16 notes of 10 000, 2 of 2 000, one 500 coin = 164 500, a shortage of 500 (debit 4631, credit the till).
    const count = { note_10000: 16, note_2000: 2, coin_500: 1 };
    t.is((await closeSession('other_head', opened.body.id, count)).status, 404, "another branch's session");
    const shortageBefore = await branchBalance('4631');
    const closed = await closeSession('cashier', opened.body.id, count);
    firstSession = opened.body;
    t.is(closed.status, 200, closed.text);
    t.like(closed.body, {
      status: 'closed',
      closing_total: '164500',
      closing_book_balance: '165000',
      closing_difference: '-500',
      closing_count: { note_10000: 16, note_2000: 2, coin_500: 1, note_5000: 0 },
    });
    t.is(await branchBalance('5712001'), '164500');
    t.is(Number(await branchBalance('4631')) - Number(shortageBefore), 500);

    t.like(
      (await deposit('cashier', account, '1000')).body,
      { status: 409, code: 'till_session_required' },
      'a closed session refuses operations',
    );
    const again = await closeSession('cashier', opened.body.id, { note_10000: 99 });
    t.deepEqual(again.body, closed.body, 'a second close changes nothing');
    t.is(await branchBalance('5712001'), '164500');
    t.deepEqual(await openTillSessions(knex, world.headOffice, opened.body.business_date), []);
    await assertBusinessDateMoved(t);

    // The next opening counts 164 000: 500 more missing, posted at the opening.
    const reopened = await openSession('cashier', { note_10000: 16, note_2000: 2 });
    t.like(reopened.body, { opening_total: '164000', opening_book_balance: '164500', opening_difference: '-500' });
    t.is(await branchBalance('5712001'), '164000');
  },
);

test.serial(
  'a branch with no till keeps 5710; two cashiers deposit at once and each deposit lands in its own till',
  async (t) => {
    const before5710 = await branchBalance('5710', world.otherBranch);
    t.is(
      (await deposit('other_cashier', otherAccount, '7000')).status,
      201,
      'no session needed in a branch with no till',
    );
    t.is(Number(await branchBalance('5710', world.otherBranch)) - Number(before5710), 7000);

    const resolve = async (actor: string | null) =>
      (await knex.raw('SELECT coopbank_cash_account(?, ?, ?) AS account', [world.headOffice, actor, '5710'])).rows[0]
        .account as string;
    t.is(await resolve(null), '5710', "the system's work (no actor) keeps 5710 in a branch under till control");
    t.is(await resolve(world.users.cashier!.id), '5712001', "the cashier's open session names their till");
    const opened = await openSession('teller', { note_1000: 3 });
    t.like(
      opened.body,
      { account: '5712002', opening_total: '3000', opening_book_balance: '0', opening_difference: '3000' },
      'an excess at the opening: debit the till, credit 4632',
    );
    const before = { cashier: Number(await branchBalance('5712001')), teller: Number(await branchBalance('5712002')) };
    const amounts = { cashier: [1000, 2000, 3000, 4000, 5000, 6000], teller: [100, 200, 300, 400, 500, 600] };
    const answers = await Promise.all([
      ...amounts.cashier.map((amount) => deposit('cashier', account, String(amount))),
      ...amounts.teller.map((amount) => deposit('teller', account, String(amount))),
    ]);
    t.true(
      answers.every((answer) => answer.status === 201),
      answers.map((answer) => answer.text).join(),
    );
    t.is(Number(await branchBalance('5712001')) - before.cashier, 21000);
    t.is(Number(await branchBalance('5712002')) - before.teller, 2100);
    const misplaced = await knex('business_event_logs as ev')
      .join('journal_entries as e', 'e.event_id', 'ev.id')
      .join('journal_lines as l', 'l.entry_id', 'e.id')
      .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
      .join('tills as t', 't.account_code', 'c.code')
      .where({
        'ev.enterprise_id': world.enterpriseId,
        't.enterprise_id': world.enterpriseId,
        't.kind': 'till',
        'ev.kind': 'deposit',
      })
      .whereRaw('t.cashier_id IS DISTINCT FROM ev.actor_id')
      .count({ n: '*' });
    t.is(Number(misplaced[0]!.n), 0, 'every deposit on a till was made by its cashier');
    t.is(
      await knex('journal_lines as l')
        .join('journal_entries as e', 'e.id', 'l.entry_id')
        .join('business_event_logs as ev', 'ev.id', 'e.event_id')
        .where({ 'ev.kind': 'deposit', 'e.enterprise_id': world.enterpriseId })
        .whereIn('ev.actor_id', [world.users.cashier!.id, world.users.teller!.id])
        .where('e.branch_id', world.headOffice)
        .count({ n: '*' })
        .then((rows) => Number(rows[0]!.n)),
      2 * (1 + 2 + 12),
      "two lines a deposit (the account's initial one, two of the day before, twelve now): none lost",
    );
  },
);

test.serial(
  "an approved large withdrawal posts to its maker's till; " +
    "a transfer from the till is the maker's till, refused without a session",
  async (t) => {
    // The cashier's session is open since the last test: 6 000 000 in, then 6 000 000 out under four eyes.
    const tillBefore = Number(await branchBalance('5712001'));
    t.is((await deposit('cashier', account, '6000000')).status, 201);
    const requested = await withdraw('cashier', account, '6000000');
    t.is(requested.status, 202, requested.text);
    t.is(
      (await approveRequest(knex, requested, { id: world.users.branch_head!.id, roles: ['branch_head'] })).status,
      200,
    );
    t.is(Number(await branchBalance('5712001')), tillBefore, "6 000 000 in and out of the maker's till");

    const bank = await app.request('POST', '/api/v1/accounting/bank-accounts/', {
      headers: as('direction'),
      json: { enterprise: world.enterpriseId, bank_name: 'Banque', account_number: 'TIL-0001' },
    });
    const transfer = {
      enterpriseId: world.enterpriseId,
      branchId: world.headOffice,
      fromBankAccountId: null,
      toBankAccountId: bank.body.id,
      transferDate: '2026-11-27',
      amount: '50000',
      reference: 'dégagement',
    };
    const context = { knex, clock: testClock };
    const cashier = { userId: world.users.cashier!.id, grants: [], requestId: 'tills-test' };
    await recordTreasuryTransfer(context, cashier, transfer);
    t.is(Number(await branchBalance('5712001')), tillBefore - 50000, "the cashier's transfer leaves their till");
    t.is(await branchBalance(bank.body.account), '50000');
    const direction = { userId: world.users.direction!.id, grants: [], requestId: 'tills-test' };
    await t.throwsAsync(
      recordTreasuryTransfer(context, direction, transfer),
      { message: /till control/ },
      'the direction has no till session in a branch under till control',
    );
    t.is(await branchBalance(bank.body.account), '50000', 'nothing posted by the refusal');
  },
);

/** The head office's till journal of the first session's day: its session, its lines and the vault's. */
async function assertDayJournal(t: ExecutionContext, sessionLines: unknown[]) {
  const day = await app.request(
    'GET',
    `/api/v1/cash/till-journal/?branch=${world.headOffice}&date=${firstSession.business_date}`,
    { headers: as('branch_head') },
  );
  t.is(day.status, 200, day.text);
  t.deepEqual(
    day.body.sessions.map((session: { id: string }) => session.id),
    [firstSession.id],
    'the sessions of that business date',
  );
  t.deepEqual(
    day.body.lines.filter((line: { till_code: string }) => line.till_code === 'G1'),
    sessionLines,
    "the till's lines of the day are its session's",
  );
  t.true(
    day.body.lines.some(
      (line: { account: string; amount: string }) => line.account === '5710' && line.amount === '100000',
    ),
    "the vault's lines too: the account's initial deposit, before the tills",
  );
  t.is(
    (
      await app.request(
        'GET',
        `/api/v1/cash/till-journal/?branch=${world.headOffice}&date=${firstSession.business_date}`,
        { headers: as('other_head') },
      )
    ).status,
    404,
    "another branch's day",
  );
  t.like(
    (
      await app.request('GET', `/api/v1/cash/till-journal/?branch=${world.headOffice}&date=26-11-2026`, {
        headers: as('branch_head'),
      })
    ).body,
    { status: 400, errors: [{ field: 'date' }] },
  );
}

test.serial(
  "the till journal of a session and of a branch's day: its lines, counts and differences, as JSON, CSV and XLSX",
  async (t) => {
    const journal = await app.request('GET', `/api/v1/cash/till-sessions/${firstSession.id}/journal/`, {
      headers: as('branch_head'),
    });
    t.is(journal.status, 200, journal.text);
    // The first session: 150 000 and 35 000 in, 20 000 out, then the 500 missing at the close.
    t.deepEqual(
      journal.body.lines.map((line: { amount: string; account: string }) => [line.account, line.amount]),
      [
        ['5712001', '150000'],
        ['5712001', '35000'],
        ['5712001', '-20000'],
        ['5712001', '-500'],
      ],
    );
    t.deepEqual(journal.body.totals, { cash_in: '185000', cash_out: '20500' });
    t.like(journal.body.sessions[0], {
      id: firstSession.id,
      opening_total: '0',
      closing_total: '164500',
      closing_difference: '-500',
    });
    t.regex(journal.body.lines[3].number, /^CAI-\d{6}$/);

    await assertDayJournal(t, journal.body.lines);

    const csv = await app.request('GET', `/api/v1/cash/till-sessions/${firstSession.id}/journal/?format=csv`, {
      headers: as('branch_head'),
    });
    t.is(csv.status, 200);
    t.regex(csv.headers.get('content-type') ?? '', /text\/csv/);
    t.true(
      csv.text.includes('Brouillard de caisse') && csv.text.includes('164500') && csv.text.includes('Billets de 10000'),
      csv.text.slice(0, 300),
    );
    const xlsx = await app.request(
      'GET',
      `/api/v1/cash/till-journal/?branch=${world.headOffice}&date=${firstSession.business_date}&format=xlsx`,
      { headers: as('branch_head') },
    );
    t.is(xlsx.status, 200);
    t.regex(xlsx.headers.get('content-type') ?? '', /spreadsheetml/);
  },
);

test.serial("a replay of the events under their rules leaves the tills' cash where it was posted", async (t) => {
  const root = {
    userId: world.rootId,
    grants: [{ role: 'admin' as const, enterpriseId: null, branchId: null }],
    requestId: 'tills-replay',
  };
  const request = await createReplayRequest(knex, root, {
    enterpriseId: world.enterpriseId,
    dateFrom: '2026-01-01',
    dateTo: '2026-12-31',
    kinds: ['deposit', 'withdrawal'],
    mode: 'dry_run',
  });
  const progress = await replayEventBatch(knex, testClock(), { requestId: request.id, batchSize: 500 });
  // The deposits and withdrawals of this file: every one in a till or the vault stays as it was posted.
  t.true(progress.eventsSeen >= 20, `${progress.eventsSeen} events seen`);
  t.like(progress, { status: 'completed', eventsChanged: 0, eventsFailed: 0 });
});
