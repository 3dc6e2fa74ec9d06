import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, ledgerBalanced, memberOf, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * Serving members across branches (issue 29, docs/domain.md §13.4): a member of the head office deposits and
 * withdraws at the other branch's till when the enterprise allows it. The till moves in the other branch's books,
 * the account in the head office's, each branch balances through 45200 and 45200 nets to zero. The other branch's
 * cashier finds the account by its number and sees nothing else of the head office. Figures are computed here.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
/** The other branch's till account, assigned to its cashier, whose session is open. */
let tillAccount: string;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'IBR');
});

const as = (user: string) => world.users[user]!.headers;

/**
 * A head office member's account holding `deposit`, opened by the head office's cashier (before any till: the head
 * office keeps 5710).
 */
async function headOfficeAccount(deposit: string): Promise<{ id: string; number: string }> {
  const opened = await app.request('POST', '/api/v1/members/accounts/', {
    headers: as('cashier'),
    json: { client: await memberOf(world), product: world.savingsProductId, initial_deposit: deposit },
  });
  if (opened.status !== 201) throw new Error(opened.text);
  return { id: opened.body.id as string, number: opened.body.number as string };
}

const serve = (
  direction: 'deposit' | 'withdrawal',
  json: Record<string, unknown>,
  options: { user?: string; key?: string } = {},
) =>
  app.request('POST', `/api/v1/cash/inter-branch/${direction}s/`, {
    headers: {
      ...as(options.user ?? 'other_cashier'),
      ...(options.key === undefined ? {} : { 'idempotency-key': options.key }),
    },
    json: { branch: world.otherBranch, ...json },
  });
const lookup = (number: string, user = 'other_cashier') =>
  app.request(
    'GET',
    `/api/v1/cash/inter-branch/accounts/?branch=${world.otherBranch}&number=${encodeURIComponent(number)}`,
    { headers: as(user) },
  );
const balanceOf = async (account: string) =>
  (await knex('comptes_clients').where({ id: account }).first('balance')).balance as string;
const entryCount = async () =>
  Number((await knex('journal_entries').where({ enterprise_id: world.enterpriseId }).count('* as n').first())!.n);
const allowInterBranch = (allowed: boolean) =>
  app.request('PATCH', `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`, {
    headers: as('direction'),
    json: { inter_branch_service: allowed },
  });

/** Debits less credits of an account code in one branch's books, or in the whole enterprise's. */
async function ledgerBalance(code: string, branchId?: string): Promise<string> {
  const query = knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where({ 'e.enterprise_id': world.enterpriseId, 'c.code': code });
  if (branchId !== undefined) query.where('e.branch_id', branchId);
  return (await query.first(knex.raw('COALESCE(sum(l.debit - l.credit), 0)::text AS balance'))).balance as string;
}

/** Whether each branch's own lines balance. */
async function eachBranchBalanced(): Promise<boolean> {
  const rows = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .where('e.enterprise_id', world.enterpriseId)
    .groupBy('e.branch_id')
    .select(knex.raw('(sum(l.debit) = sum(l.credit)) AS balanced'));
  return rows.every((row) => row.balanced === true);
}

test.serial(
  'refused while the enterprise does not allow it (the default), for the look-up and the operation; nothing posted',
  async (t) => {
    const account = await headOfficeAccount('100000');
    const before = await entryCount();
    t.like((await lookup(account.number)).body, { status: 409, code: 'inter_branch_service_off' });
    t.like((await serve('deposit', { account: account.id, amount: '5000' })).body, {
      status: 409,
      code: 'inter_branch_service_off',
    });
    t.is(await balanceOf(account.id), '100000');
    t.is(await entryCount(), before, 'nothing posted');
    const configuration = await app.request(
      'GET',
      `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`,
      { headers: as('direction') },
    );
    t.is(configuration.body.inter_branch_service, false, 'off by default');
    t.is(
      (
        await app.request('PATCH', `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`, {
          headers: as('branch_head'),
          json: { inter_branch_service: true },
        })
      ).status,
      403,
      'a branch head does not decide it',
    );
    t.is((await allowInterBranch(true)).body.inter_branch_service, true);
  },
);

test.serial('the other branch under till control: its cashier opens a till session', async (t) => {
  const till = await app.request('POST', '/api/v1/cash/tills/', {
    headers: as('other_head'),
    json: {
      enterprise: world.enterpriseId,
      branch: world.otherBranch,
      code: 'G1',
      label: 'Guichet 1',
      cashier: world.users.other_cashier!.id,
    },
  });
  t.is(till.status, 201, till.text);
  tillAccount = till.body.account as string;
  const session = await app.request('POST', '/api/v1/cash/till-sessions/', {
    headers: as('other_cashier'),
    json: { count: {} },
  });
  t.is(session.status, 201, session.text);
});

/** The look-up by number finds the account and answers nothing beyond what the operation needs. */
async function assertLookupFindsOnlyWhatIsNeeded(t: ExecutionContext, account: { id: string; number: string }) {
  const found = await lookup(account.number);
  t.is(found.status, 200, found.text);
  t.deepEqual(
    Object.keys(found.body).sort(),
    ['account', 'branch', 'holder_name', 'number', 'status'],
    'only what the operation needs: no balance',
  );
  t.like(found.body, { account: account.id, number: account.number, status: 'open', branch: world.headOffice });
  t.is((await lookup('NO-SUCH-NUMBER')).status, 404);
}

/** Both branches' vault balances (5710), which serving across branches must not move. */
const vaultBalances = async () => ({
  head: await ledgerBalance('5710', world.headOffice),
  other: await ledgerBalance('5710', world.otherBranch),
});

/** One entry's lines as [code, debit, credit], in order. */
async function entryLines(entryId: string): Promise<string[][]> {
  const lines = await knex('journal_lines as l')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('l.entry_id', entryId)
    .orderBy('l.id')
    .select('c.code', 'l.debit', 'l.credit');
  return lines.map((line) => [line.code, line.debit, line.credit]);
}

/** Deposits 250000 under a key, checks the retry and the reused key, and returns the deposit's body. */
async function depositOnceUnderKey(t: ExecutionContext, account: { id: string; number: string }) {
  const deposited = await serve(
    'deposit',
    { account: account.id, amount: '250000', reference: 'marché' },
    { key: 'ib-1' },
  );
  t.is(deposited.status, 201, deposited.text);
  t.like(deposited.body, {
    direction: 'deposit',
    account: account.id,
    account_number: account.number,
    account_branch: world.headOffice,
    counter_branch: world.otherBranch,
    amount: '250000',
    reference: 'marché',
  });
  const replay = await serve(
    'deposit',
    { account: account.id, amount: '250000', reference: 'marché' },
    { key: 'ib-1' },
  );
  t.is(replay.body.id, deposited.body.id, 'a retry answers the first deposit');
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.is(
    (await serve('deposit', { account: account.id, amount: '250001', reference: 'marché' }, { key: 'ib-1' })).body.code,
    'idempotency_key_reused',
  );
  t.is(await balanceOf(account.id), String(100000 + 250000), 'moved once');
  return deposited.body;
}

/** The deposit's two entries: the other branch's till against 45200, the head office's 45200 against 3711. */
async function assertDepositEntries(t: ExecutionContext, deposit: { cash_entry: string; account_entry: string }) {
  t.deepEqual(
    await entryLines(deposit.cash_entry),
    [
      [tillAccount, '250000', '0'],
      ['45200', '0', '250000'],
    ],
    'the other branch: its till against 45200',
  );
  t.deepEqual(
    await entryLines(deposit.account_entry),
    [
      ['45200', '250000', '0'],
      ['3711', '0', '250000'],
    ],
    "the head office: 45200 against the member's deposits",
  );
}

/** After the deposit and the withdrawal: the till, the vaults, the liaison and the books. */
async function assertBooksAfterService(t: ExecutionContext, vaults: { head: string; other: string }) {
  t.is(
    await ledgerBalance(tillAccount, world.otherBranch),
    String(250000 - 80000),
    'the till holds what it took less what it paid',
  );
  t.deepEqual(await vaultBalances(), vaults, 'neither vault moves');
  t.is(
    await ledgerBalance('45200', world.headOffice),
    String(250000 - 80000),
    'the other branch owes the head office the cash it holds for it',
  );
  t.is(await ledgerBalance('45200', world.otherBranch), String(-(250000 - 80000)));
  t.is(await ledgerBalance('45200'), '0', 'consolidated, the liaison nets to zero');
  t.true(await eachBranchBalanced());
  t.true(await ledgerBalanced(knex, world.enterpriseId));
}

/** The member's statement shows both operations, and the liaison report has one pair with no difference. */
async function assertStatementAndLiaisonReport(t: ExecutionContext, accountId: string) {
  const statement = await app.request('GET', `/api/v1/members/accounts/${accountId}/statement/?page_size=100`, {
    headers: as('cashier'),
  });
  t.deepEqual(
    statement.body.results.map((line: { kind: string; amount: string }) => [line.kind, line.amount]),
    [
      ['deposit', '100000'],
      ['inter_branch_deposit', '250000'],
      ['inter_branch_withdrawal', '-80000'],
    ],
  );
  const report = await app.request(
    'GET',
    `/api/v1/cash/liaison-balances/?enterprise=${world.enterpriseId}&date=2026-12-31`,
    { headers: as('direction') },
  );
  t.like(report.body, { total: '0', pairs: [{ difference: '0' }] });
  t.is(report.body.pairs.length, 1);
}

test.serial(
  "a deposit and a withdrawal at the other branch's till: the till and the " +
    'account move, each branch balances through 45200, which nets to zero',
  async (t) => {
    const account = await headOfficeAccount('100000');
    await assertLookupFindsOnlyWhatIsNeeded(t, account);
    const vaults = await vaultBalances();

    const deposited = await depositOnceUnderKey(t, account);
    await assertDepositEntries(t, deposited);

    const withdrawn = await serve('withdrawal', { account: account.id, amount: '80000' });
    t.is(withdrawn.status, 201, withdrawn.text);
    t.is(await balanceOf(account.id), String(350000 - 80000));
    await assertBooksAfterService(t, vaults);
    await assertStatementAndLiaisonReport(t, account.id);
  },
);

test.serial(
  "a withdrawal at another branch follows the account's rules: " +
    'short funds, the same branch, no session, nothing posted',
  async (t) => {
    const account = await headOfficeAccount('60000');
    const minimum = (await knex('savings_products').where({ id: world.savingsProductId }).first('minimum_balance'))
      .minimum_balance as string;
    const available = 60000 - Number(minimum);
    const before = await entryCount();
    const short = await serve('withdrawal', { account: account.id, amount: String(available + 1) });
    t.like(short.body, { status: 409, code: 'insufficient_funds', errors: [{ field: 'amount' }] });
    t.like(
      (await serve('deposit', { account: account.id, amount: '1000', branch: world.headOffice }, { user: 'cashier' }))
        .body,
      { status: 422, code: 'inter_branch_same_branch', errors: [{ field: 'branch' }] },
    );
    await createUser(knex, 'ibr-second', [
      { role: 'cashier', enterpriseId: world.enterpriseId, branchId: world.otherBranch },
    ]);
    const sessionless = await app.request('POST', '/api/v1/cash/inter-branch/deposits/', {
      headers: await bearer(app, 'ibr-second', '10.78.0.2'),
      json: { account: account.id, branch: world.otherBranch, amount: '1000' },
    });
    t.like(
      sessionless.body,
      { status: 409, code: 'till_session_required' },
      'under till control the cashier needs an open session',
    );
    t.is((await serve('deposit', { account: account.id, amount: '12.5' })).status, 400);
    t.is(await entryCount(), before, 'nothing posted');
    t.is(await balanceOf(account.id), '60000');
    t.is(
      (await serve('withdrawal', { account: account.id, amount: String(available) })).status,
      201,
      'the whole available balance may leave',
    );
  },
);

test.serial(
  "isolation: the other branch's cashier serves the account but " +
    "reads neither the head office's members nor its statements",
  async (t) => {
    const account = await headOfficeAccount('40000');
    const made = await serve('deposit', { account: account.id, amount: '1000' });
    t.is(made.status, 201);
    t.is(
      (await app.request('GET', `/api/v1/members/accounts/${account.id}/`, { headers: as('other_cashier') })).status,
      404,
    );
    t.is(
      (await app.request('GET', `/api/v1/members/accounts/${account.id}/statement/`, { headers: as('other_cashier') }))
        .status,
      404,
    );
    t.is(
      (await app.request('GET', `/api/v1/members/accounts/${account.id}/deposits/`, { headers: as('other_cashier') }))
        .status,
      404,
    );
    const accounts = await app.request('GET', `/api/v1/members/accounts/?branch=${world.headOffice}`, {
      headers: as('other_cashier'),
    });
    t.like(accounts, { status: 200, body: { count: 0 } }, 'no head office account listed');
    const clients = await app.request('GET', `/api/v1/members/clients/?branch=${world.headOffice}`, {
      headers: as('other_cashier'),
    });
    t.like(clients, { status: 200, body: { count: 0 } }, 'no head office member listed');
    t.is(
      (await app.request('GET', `/api/v1/cash/inter-branch/operations/${made.body.id}/`, { headers: as('cashier') }))
        .status,
      200,
      "the account's branch sees it",
    );
    const third = (
      await app.request('POST', '/api/v1/enterprise/branches/', {
        headers: world.users.root!.headers,
        json: { enterprise: world.enterpriseId, code: 'B3', name: 'Branch three' },
      })
    ).body.id as string;
    await createUser(knex, 'ibr-third', [{ role: 'cashier', enterpriseId: world.enterpriseId, branchId: third }]);
    const headers = await bearer(app, 'ibr-third', '10.78.0.3');
    t.is(
      (await app.request('GET', `/api/v1/cash/inter-branch/operations/${made.body.id}/`, { headers })).status,
      404,
      'a third branch does not',
    );
    t.is(
      (await app.request('GET', `/api/v1/cash/inter-branch/operations/?enterprise=${world.enterpriseId}`, { headers }))
        .body.count,
      0,
    );
    t.is(
      (
        await app.request('POST', '/api/v1/cash/inter-branch/deposits/', {
          headers,
          json: { account: account.id, branch: world.otherBranch, amount: '10' },
        })
      ).status,
      404,
      "nor works at another branch's counter",
    );
    const listed = await app.request('GET', `/api/v1/cash/inter-branch/operations/?account=${account.id}`, {
      headers: as('other_cashier'),
    });
    t.deepEqual(
      listed.body.results.map((row: { id: string }) => row.id),
      [made.body.id],
    );
  },
);

test.serial(
  'from the threshold a withdrawal at another branch waits for ' +
    "that branch's head, then is made once from the maker's till",
  async (t) => {
    const account = await headOfficeAccount('9000000');
    const tillBefore = Number(await ledgerBalance(tillAccount, world.otherBranch));
    await withWorker(
      knex,
      async () => {
        const large = { account: account.id, amount: '6000000' };
        const requested = await serve('withdrawal', large, { key: 'ib-big' });
        t.is(requested.status, 202, requested.text);
        t.like(requested.body, {
          operation: 'member_account.inter_branch_withdrawal',
          status: 'pending',
          maker: world.users.other_cashier!.id,
          approver_roles: ['branch_head', 'direction'],
        });
        t.is(await balanceOf(account.id), '9000000', 'nothing moves until the approval');
        const decide = (user: string) =>
          app.request('POST', `/api/v1/approvals/requests/${requested.body.id}/approve/`, {
            headers: as(user),
            json: { reason: 'checked' },
          });
        t.is(
          (await decide('branch_head')).status,
          404,
          "the head office's head does not decide the other branch's payout",
        );
        const approved = await decide('other_head');
        t.is(approved.status, 200, approved.text);
        t.like(approved.body, { status: 'approved', failure: null });
        t.is(await balanceOf(account.id), String(9000000 - 6000000));
        const replayed = await serve('withdrawal', large, { key: 'ib-big' });
        t.is(replayed.status, 201, 'the key after the approval answers the withdrawal made');
        t.is(replayed.headers.get('idempotent-replayed'), 'true');
      },
      taskQueue,
    );
    t.is(
      await ledgerBalance(tillAccount, world.otherBranch),
      String(tillBefore - 6000000),
      "paid from the maker's till",
    );
    t.is(await ledgerBalance('45200'), '0');
    t.true(await eachBranchBalanced());
  },
);
