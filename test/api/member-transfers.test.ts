import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, ledgerBalanced, memberOf, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * Transfers between members (issue 29, docs/domain.md §13.5): within a branch through 459, across branches each
 * branch's part through 45200 so that each branch's books balance and 45200 nets to zero; idempotent, refused when
 * funds are short, under four eyes from the policy's threshold, and seen only by the staff of its branches.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'MTR');
});

const as = (user: string) => world.users[user]!.headers;

/** A member of the branch with an account holding `deposit`, opened by that branch's cashier. */
async function accountIn(branch: 'head' | 'other', deposit: string): Promise<string> {
  const client = await memberOf(world, branch === 'head' ? world.headOffice : world.otherBranch);
  const opened = await app.request('POST', '/api/v1/members/accounts/', {
    headers: as(branch === 'head' ? 'cashier' : 'other_cashier'),
    json: { client, product: world.savingsProductId, ...(deposit === '0' ? {} : { initial_deposit: deposit }) },
  });
  if (opened.status !== 201) throw new Error(opened.text);
  return opened.body.id as string;
}

const transfer = (user: string, json: Record<string, unknown>, key?: string) =>
  app.request('POST', '/api/v1/cash/transfers/', {
    headers: { ...as(user), ...(key === undefined ? {} : { 'idempotency-key': key }) },
    json,
  });
const balanceOf = async (account: string) =>
  (await knex('comptes_clients').where({ id: account }).first('balance')).balance as string;

/** The balance (debit − credit) of an account code in one branch's books, or in the whole enterprise's. */
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

const statementOf = async (account: string, user: string) =>
  (await app.request('GET', `/api/v1/members/accounts/${account}/statement/?page_size=100`, { headers: as(user) })).body
    .results as { kind: string; amount: string; running_balance: string }[];

test.serial(
  'within a branch: both accounts move, through 459 which nets to zero, 45200 untouched; both statements show it',
  async (t) => {
    const from = await accountIn('head', '300000');
    const to = await accountIn('head', '50000');
    const before45200 = await ledgerBalance('45200');
    const made = await transfer('cashier', {
      from_account: from,
      to_account: to,
      amount: '120000',
      reference: 'loyer',
    });
    t.is(made.status, 201, made.text);
    t.like(made.body, {
      from_account: from,
      to_account: to,
      from_branch: world.headOffice,
      to_branch: world.headOffice,
      amount: '120000',
      reference: 'loyer',
      between_branches: false,
    });
    t.truthy(made.body.debit_entry);
    t.truthy(made.body.credit_entry);
    t.is(await balanceOf(from), String(300000 - 120000));
    t.is(await balanceOf(to), String(50000 + 120000));
    t.is(await ledgerBalance('459'), '0');
    t.is(await ledgerBalance('45200'), before45200, 'no liaison within a branch');
    const lines = await knex('journal_lines as l')
      .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
      .where('l.entry_id', made.body.debit_entry)
      .orderBy('l.id')
      .select('c.code', 'l.debit', 'l.credit');
    t.deepEqual(
      lines.map((line) => [line.code, line.debit, line.credit]),
      [
        ['3711', '120000', '0'],
        ['459', '0', '120000'],
      ],
    );
    t.deepEqual(
      (await statementOf(from, 'cashier')).map((line) => [line.kind, line.amount]),
      [
        ['deposit', '300000'],
        ['member_transfer_debit', '-120000'],
      ],
    );
    t.deepEqual(
      (await statementOf(to, 'cashier')).map((line) => [line.kind, line.amount]),
      [
        ['deposit', '50000'],
        ['member_transfer_credit', '120000'],
      ],
    );
    const detail = await app.request('GET', `/api/v1/cash/transfers/${made.body.id}/`, { headers: as('branch_head') });
    t.deepEqual(detail.body, made.body);
    t.true(await ledgerBalanced(knex, world.enterpriseId));
  },
);

test.serial(
  'across branches: each branch posts its part through 45200 and balances; ' +
    '45200 nets to zero; the liaison report shows the pair',
  async (t) => {
    const from = await accountIn('head', '400000');
    const to = await accountIn('other', '10000');
    const made = await transfer('cashier', { from_account: from, to_account: to, amount: '250000' });
    t.is(made.status, 201, made.text);
    t.like(made.body, { from_branch: world.headOffice, to_branch: world.otherBranch, between_branches: true });
    t.is(await balanceOf(from), '150000');
    t.is(await balanceOf(to), '260000');
    const [debitEntry, creditEntry] = await Promise.all(
      [made.body.debit_entry, made.body.credit_entry].map((id: string) =>
        knex('journal_entries').where({ id }).first('branch_id'),
      ),
    );
    t.is(debitEntry.branch_id, world.headOffice, "the giving account's branch posts the debit");
    t.is(creditEntry.branch_id, world.otherBranch, "the receiving account's branch posts the credit");
    t.is(await ledgerBalance('45200', world.headOffice), '-250000', 'the head office owes the other branch');
    t.is(await ledgerBalance('45200', world.otherBranch), '250000', 'the other branch is owed');
    t.is(await ledgerBalance('45200'), '0', 'consolidated, the liaison nets to zero');
    t.true(await eachBranchBalanced(), "each branch's own books balance");

    // A transfer back, smaller: the pair's open balance is the difference of the two.
    t.is((await transfer('other_cashier', { from_account: to, to_account: from, amount: '70000' })).status, 201);
    const report = await app.request(
      'GET',
      `/api/v1/cash/liaison-balances/?enterprise=${world.enterpriseId}&date=2026-12-31`,
      { headers: as('direction') },
    );
    t.is(report.status, 200, report.text);
    const headFirst = world.headOffice < world.otherBranch;
    const headOwes = String(-250000 + 70000);
    const otherOwed = String(250000 - 70000);
    t.like(report.body, { consolidated: true, total: '0' });
    t.is(report.body.pairs.length, 1);
    t.like(report.body.pairs[0], {
      branch_a: headFirst ? world.headOffice : world.otherBranch,
      balance_a: headFirst ? headOwes : otherOwed,
      balance_b: headFirst ? otherOwed : headOwes,
      difference: '0',
    });
    t.is(await ledgerBalance('45200', world.headOffice), headOwes, "the report agrees with the head office's ledger");
    t.is(await ledgerBalance('45200', world.otherBranch), otherOwed);

    await assertLiaisonReportReaders(t, headOwes, otherOwed);
  },
);

/** The liaison report seen by the other branch's head, downloaded as CSV and XLSX, and not read by a cashier. */
async function assertLiaisonReportReaders(t: ExecutionContext, headOwes: string, otherOwed: string) {
  const mine = await app.request(
    'GET',
    `/api/v1/cash/liaison-balances/?enterprise=${world.enterpriseId}&date=2026-12-31`,
    { headers: as('other_head') },
  );
  t.like(mine.body, { consolidated: false, total: otherOwed }, "a branch head sees only their branch's books");
  const csv = await app.request(
    'GET',
    `/api/v1/cash/liaison-balances/?enterprise=${world.enterpriseId}&date=2026-12-31&format=csv`,
    { headers: as('direction') },
  );
  t.is(csv.status, 200);
  t.regex(csv.text, /Soldes des comptes de liaison/);
  t.true(csv.text.includes(`${headOwes};${otherOwed};0`) || csv.text.includes(`${otherOwed};${headOwes};0`), csv.text);
  const xlsx = await app.request(
    'GET',
    `/api/v1/cash/liaison-balances/?enterprise=${world.enterpriseId}&date=2026-12-31&format=xlsx`,
    { headers: as('direction') },
  );
  t.is(xlsx.status, 200);
  t.is(
    (
      await app.request('GET', `/api/v1/cash/liaison-balances/?enterprise=${world.enterpriseId}&date=2026-12-31`, {
        headers: as('cashier'),
      })
    ).status,
    403,
    'a cashier does not read the books',
  );
}

test.serial(
  'an Idempotency-Key: the same request answers the first transfer, another request under it is 409',
  async (t) => {
    const from = await accountIn('head', '100000');
    const to = await accountIn('other', '0');
    const body = { from_account: from, to_account: to, amount: '30000', reference: 'r1' };
    const first = await transfer('cashier', body, 'mt-1');
    t.is(first.status, 201, first.text);
    const [again, concurrent] = await Promise.all([
      transfer('cashier', body, 'mt-1'),
      transfer('cashier', body, 'mt-1'),
    ]);
    for (const replay of [again, concurrent]) {
      t.is(replay.status, 201);
      t.is(replay.body.id, first.body.id);
      t.is(replay.headers.get('idempotent-replayed'), 'true');
    }
    t.is((await transfer('cashier', { ...body, amount: '31000' }, 'mt-1')).body.code, 'idempotency_key_reused');
    t.is(await balanceOf(from), '70000', 'moved once');
    t.is(Number((await knex('member_transfers').where({ from_account_id: from }).count('* as n').first())!.n), 1);
  },
);

test.serial(
  'refusals: short funds (minimum balance), a frozen or closed account, ' +
    'the same account, an unknown one; nothing posted',
  async (t) => {
    const from = await accountIn('head', '60000');
    const to = await accountIn('head', '0');
    const minimum = (await knex('savings_products').where({ id: world.savingsProductId }).first('minimum_balance'))
      .minimum_balance as string;
    const available = 60000 - Number(minimum);
    const entriesBefore = Number(
      (await knex('journal_entries').where({ enterprise_id: world.enterpriseId }).count('* as n').first())!.n,
    );
    const short = await transfer('cashier', { from_account: from, to_account: to, amount: String(available + 1) });
    t.is(short.status, 409);
    t.is(short.body.code, 'insufficient_funds');
    t.is(short.body.errors[0].field, 'amount');
    t.is(
      (await transfer('cashier', { from_account: from, to_account: from, amount: '100' })).body.errors[0].field,
      'to_account',
    );
    t.is(
      (
        await transfer('cashier', {
          from_account: from,
          to_account: '7d0f3c2a-1b4e-4c5d-8e9f-0a1b2c3d4e5f',
          amount: '100',
        })
      ).body.code,
      'transfer_account_invalid',
    );
    t.is((await transfer('cashier', { from_account: from, to_account: to, amount: 'abc' })).status, 400);
    await knex('comptes_clients').where({ id: from }).update({ status: 'frozen' });
    t.is(
      (await transfer('cashier', { from_account: from, to_account: to, amount: '100' })).body.code,
      'account_frozen',
      'a frozen account gives nothing',
    );
    await knex('comptes_clients').where({ id: from }).update({ status: 'open' });
    await knex('comptes_clients').where({ id: to }).update({ status: 'closed', closed_on: '2026-11-26' });
    const closed = await transfer('cashier', { from_account: from, to_account: to, amount: '100' });
    t.is(closed.body.code, 'account_closed', 'a closed account receives nothing');
    t.is(closed.body.errors[0].field, 'to_account');
    await knex('comptes_clients').where({ id: to }).update({ status: 'open', closed_on: null });
    t.is(await balanceOf(from), '60000');
    t.is(
      Number((await knex('journal_entries').where({ enterprise_id: world.enterpriseId }).count('* as n').first())!.n),
      entriesBefore,
      'nothing posted',
    );
    const exact = await transfer('cashier', { from_account: from, to_account: to, amount: String(available) });
    t.is(exact.status, 201, 'the whole available balance may leave');
  },
);

test.serial(
  "from the threshold a transfer waits for a branch head's approval, which makes it once, as the maker's",
  async (t) => {
    const from = await accountIn('head', '12000000');
    const to = await accountIn('other', '0');
    t.is(
      (await transfer('cashier', { from_account: from, to_account: to, amount: '4999999' })).status,
      201,
      'under the threshold: at once',
    );
    const left = 12000000 - 4999999;
    await withWorker(
      knex,
      async () => {
        const large = { from_account: from, to_account: to, amount: '6000000' };
        const requested = await transfer('cashier', large, 'big-1');
        t.is(requested.status, 202, requested.text);
        t.like(requested.body, {
          operation: 'member_account.transfer',
          status: 'pending',
          maker: world.users.cashier!.id,
          approver_roles: ['branch_head', 'direction'],
        });
        t.is(await balanceOf(from), String(left), 'nothing moves until the approval');
        const retried = await transfer('cashier', large, 'big-1');
        t.is(retried.status, 202);
        t.is(retried.body.id, requested.body.id, 'a retry while it waits answers the same request');
        t.is((await transfer('cashier', { ...large, amount: '6000001' }, 'big-1')).body.code, 'idempotency_key_reused');
        const tooMuch = await transfer('cashier', { ...large, amount: String(left + 1) });
        t.is(tooMuch.status, 409, 'no request for money that is not there');
        t.is(tooMuch.body.code, 'insufficient_funds');
        const decide = (user: string) =>
          app.request('POST', `/api/v1/approvals/requests/${requested.body.id}/approve/`, {
            headers: as(user),
            json: { reason: 'checked' },
          });
        t.is((await decide('teller')).status, 403, 'a cashier does not approve');
        const approved = await decide('branch_head');
        t.is(approved.status, 200, approved.text);
        t.like(approved.body, { status: 'approved', failure: null });
        t.is(await balanceOf(from), String(left - 6000000));
        t.is(await balanceOf(to), String(4999999 + 6000000));
        const made = await knex('member_transfers').where({ from_account_id: from, amount: '6000000' });
        t.is(made.length, 1, 'made once');
        t.is(made[0].recorded_by, world.users.cashier!.id, "the transfer is the maker's");
        const replayed = await transfer('cashier', large, 'big-1');
        t.is(replayed.status, 201, 'the key after the approval answers the transfer made');
        t.is(replayed.body.id, made[0].id);
        t.is(replayed.headers.get('idempotent-replayed'), 'true');
      },
      taskQueue,
    );
    t.is(await ledgerBalance('45200'), '0');
  },
);

test.serial(
  'branch isolation: the staff of a third branch neither sees nor makes a transfer of the two others',
  async (t) => {
    const from = await accountIn('head', '100000');
    const to = await accountIn('other', '0');
    const made = await transfer('cashier', { from_account: from, to_account: to, amount: '1000' });
    t.is(made.status, 201);
    t.is(
      (await app.request('GET', `/api/v1/cash/transfers/${made.body.id}/`, { headers: as('other_head') })).status,
      200,
      'the receiving branch sees it',
    );
    const third = (
      await app.request('POST', '/api/v1/enterprise/branches/', {
        headers: world.users.root!.headers,
        json: { enterprise: world.enterpriseId, code: 'B3', name: 'Branch three' },
      })
    ).body.id as string;
    await createUser(knex, 'mtr-third', [{ role: 'branch_head', enterpriseId: world.enterpriseId, branchId: third }]);
    const headers = await bearer(app, 'mtr-third', '10.77.0.3');
    t.is((await app.request('GET', `/api/v1/cash/transfers/${made.body.id}/`, { headers })).status, 404);
    t.is(
      (await app.request('GET', `/api/v1/cash/transfers/?enterprise=${world.enterpriseId}`, { headers })).body.count,
      0,
    );
    t.is(
      (
        await app.request('POST', '/api/v1/cash/transfers/', {
          headers,
          json: { from_account: from, to_account: to, amount: '10' },
        })
      ).status,
      404,
      "nor moves money from another branch's account",
    );
    const listed = await app.request('GET', `/api/v1/cash/transfers/?account=${to}`, { headers: as('other_cashier') });
    t.deepEqual(
      listed.body.results.map((row: { id: string }) => row.id),
      [made.body.id],
    );
  },
);
