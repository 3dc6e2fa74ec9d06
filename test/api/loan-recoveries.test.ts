import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { decideApprovalRequest } from '../../activities/approvals/approval-request.activity';
import { provisionBatch, startProvisioningRun } from '../../activities/loans/provisioning.activity';
import { approveRequest } from '../helpers/approvals';
import { startTestApp, type TestApp } from '../helpers/app';
import { testClock } from '../helpers/clock';
import { createTestDatabase } from '../helpers/database';
import {
  accountBalance,
  approvedLoan,
  createLoanWorld,
  ledgerBalanced,
  memberOf,
  openSavingsAccount,
  putBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';

/**
 * Write-off and recovery (issue 30, docs/domain.md §14.3). Three cash loans of 1 200 000 over 12 months disbursed on
 * 15 January 2026 and never paid are doubtful at the run of 2 April 2026 (46 days late), provisioned at 25 %
 * (300 000) by the default ladder: `written` is written off under four eyes and recovered in part, `waiting` stays
 * doubtful for the 3-year alert, `other` is of the second branch. Every figure is computed here.
 */
const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let stranger: LoanWorld;
const loans: Record<'written' | 'waiting' | 'other', string> = { written: '', waiting: '', other: '' };
let borrower = '';
let recoveryId = '';

const principal = 1_200_000;
const provision = principal / 4;

const as = (name: string) => ({ headers: world.users[name]!.headers });
const writeOff = (loanId: string, user: string) =>
  app.request('POST', `/api/v1/loans/loans/${loanId}/write-off/`, { ...as(user), json: {} });
const recover = (loanId: string, json: Record<string, unknown>, user = 'cashier', key?: string) =>
  app.request('POST', `/api/v1/loans/loans/${loanId}/recoveries/`, {
    headers: { ...world.users[user]!.headers, ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
    json,
  });
const decide = (requestId: string, decider: { id: string; roles: readonly ('direction' | 'branch_head')[] }) =>
  decideApprovalRequest(knex, testClock(), {
    requestId,
    decision: {
      decision: 'approve',
      deciderId: decider.id,
      deciderRoles: decider.roles,
      reason: 'checked',
      requestId: null,
    },
  });

/** The lines of an event's entry: [account, debit, credit]. */
async function entryOf(eventId: string): Promise<[string, string, string][]> {
  const lines = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('e.event_id', eventId)
    .orderBy('l.id')
    .select('c.code', 'l.debit', 'l.credit');
  return lines.map((line) => [line.code as string, line.debit as string, line.credit as string]);
}

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  world = await createLoanWorld(app, knex, 'RCV');
  stranger = await createLoanWorld(app, knex, 'RCX', { capital: false });
  await putBusinessDate(world, '2026-01-15');
  borrower = await memberOf(world);
  loans.written = await approvedLoan(world, borrower, { amount: String(principal), term_periods: 12 });
  loans.waiting = await approvedLoan(world, await memberOf(world), { amount: String(principal), term_periods: 12 });
  loans.other = await approvedLoan(
    world,
    await memberOf(world, world.otherBranch),
    { amount: String(principal), term_periods: 12 },
    'other_cashier',
  );
  for (const [loanId, cashier] of [
    [loans.written, 'cashier'],
    [loans.waiting, 'cashier'],
    [loans.other, 'other_cashier'],
  ] as const) {
    const paid = await app.request('POST', `/api/v1/loans/loans/${loanId}/disbursement/`, {
      ...as(cashier),
      json: { channel: 'cash' },
    });
    if (paid.status !== 200) throw new Error(paid.text);
  }
  await putBusinessDate(world, '2026-04-02');
  const run = await startProvisioningRun(knex, testClock(), {
    enterpriseId: world.enterpriseId,
    asOf: '2026-04-02',
    trigger: 'api',
    requestedBy: null,
  });
  for (let status = 'running'; status === 'running';)
    status = (await provisionBatch(knex, testClock(), { runId: run.id, batchSize: 1000 })).status;
});

test.serial(
  'a write-off is proposed by a branch head and approved by the direction, ' +
    'never by one person; a cashier cannot propose it',
  async (t) => {
    const loan = await knex('loans').where({ id: loans.written }).first('classification', 'provision_amount');
    t.like(loan, { classification: 'doubtful', provision_amount: String(provision) });
    t.is((await writeOff(loans.written, 'cashier')).status, 403, 'a cashier proposes no write-off');
    t.is((await writeOff(loans.written, 'other_head')).status, 404, "another branch's head does not see the loan");
    const proposed = await writeOff(loans.written, 'branch_head');
    t.is(proposed.status, 202, proposed.text);
    t.like(proposed.body, { operation: 'loan.write_off', status: 'pending' });
    const head = world.users.branch_head!;
    t.like(
      await decide(proposed.body.id, { id: head.id, roles: ['branch_head'] }),
      { outcome: 'refused', code: 'approval_own_request' },
      'the proposer cannot approve',
    );
    t.like(
      await decide(proposed.body.id, { id: world.users.other_head!.id, roles: ['branch_head'] }),
      { outcome: 'refused', code: 'approval_role_required' },
      'a branch head does not approve',
    );
    t.is(
      (await knex('loans').where({ id: loans.written }).first('status')).status,
      'active',
      'nothing applied while it waits',
    );

    // The direction alone: its own proposal waits for another approver too.
    const alone = await writeOff(loans.other, 'direction');
    t.is(alone.status, 202, alone.text);
    const direction = world.users.direction!;
    t.like(await decide(alone.body.id, { id: direction.id, roles: ['direction'] }), {
      outcome: 'refused',
      code: 'approval_own_request',
    });

    const approved = await approveRequest(knex, proposed, { id: direction.id, roles: ['direction'] });
    t.is(approved.status, 200);
    t.like(await knex('loans').where({ id: loans.written }).first('status', 'written_off_amount', 'written_off_by'), {
      status: 'written_off',
      written_off_amount: String(principal),
      written_off_by: head.id,
    });
  },
);

/** The written-off loan shows the 350 000 recovered; the recoveries are listed, filtered and shown. */
async function assertRecoveriesShown(t: ExecutionContext) {
  const detail = await app.request('GET', `/api/v1/loans/loans/${loans.written}/`, as('branch_head'));
  t.like(detail.body, { status: 'written_off', recovered_total: '350000', outstanding_principal: '0' });
  t.is(
    (await app.request('GET', `/api/v1/loans/loans/${loans.waiting}/`, as('branch_head'))).body.recovered_total,
    '0',
  );
  const list = await app.request('GET', `/api/v1/loans/recoveries/?loan=${loans.written}`, as('branch_head'));
  t.deepEqual(
    list.body.results.map((row: { amount: string }) => row.amount),
    ['100000', '250000'],
    'newest first',
  );
  t.deepEqual(
    (
      await app.request('GET', `/api/v1/loans/recoveries/?loan=${loans.written}&channel=cash`, as('branch_head'))
    ).body.results.map((row: { id: string }) => row.id),
    [recoveryId],
  );
  t.is((await app.request('GET', `/api/v1/loans/recoveries/${recoveryId}/`, as('branch_head'))).body.amount, '250000');
}

test.serial(
  'a recovery after the write-off is income on 792, ' +
    "from the till or the member's account; the loan shows what was recovered",
  async (t) => {
    const before = {
      cash: await accountBalance(knex, world.enterpriseId, '5710'),
      income: await accountBalance(knex, world.enterpriseId, '792'),
    };
    const cash = await recover(loans.written, { amount: '250000', reference: 'bailiff' }, 'cashier', 'rc-1');
    t.is(cash.status, 201, cash.text);
    t.like(cash.body, {
      loan: loans.written,
      amount: '250000',
      channel: 'cash',
      account: null,
      reference: 'bailiff',
      business_date: '2026-04-02',
    });
    t.is(cash.headers.get('location'), `/api/v1/loans/recoveries/${cash.body.id as string}/`);
    t.deepEqual(await entryOf(cash.body.event), [
      ['5710', '250000', '0'],
      ['792', '0', '250000'],
    ]);
    recoveryId = cash.body.id as string;

    const again = await recover(loans.written, { amount: '250000', reference: 'bailiff' }, 'cashier', 'rc-1');
    t.is(again.body.id, cash.body.id, 'a retry answers the first recovery');
    t.is(again.headers.get('idempotent-replayed'), 'true');
    t.is(
      (await recover(loans.written, { amount: '250001', reference: 'bailiff' }, 'cashier', 'rc-1')).body.code,
      'idempotency_key_reused',
    );

    const account = await openSavingsAccount(world, borrower, '300000');
    const fromAccount = await recover(loans.written, { amount: '100000', channel: 'account', account }, 'cashier');
    t.is(fromAccount.status, 201, fromAccount.text);
    t.deepEqual(await entryOf(fromAccount.body.event), [
      ['3711', '100000', '0'],
      ['792', '0', '100000'],
    ]);
    t.is((await knex('comptes_clients').where({ id: account }).first('balance')).balance, String(300_000 - 100_000));

    t.is(
      await accountBalance(knex, world.enterpriseId, '792'),
      String(Number(before.income) - 350_000),
      '792 credited with both',
    );
    t.is(
      await accountBalance(knex, world.enterpriseId, '5710'),
      String(Number(before.cash) + 250_000 + 300_000),
      'the till: the recovery and the opening deposit',
    );
    await assertRecoveriesShown(t);

    const reconciliation = await app.request(
      'GET',
      `/api/v1/members/reconciliation/?enterprise=${world.enterpriseId}`,
      as('direction'),
    );
    t.deepEqual(reconciliation.body.results, [], 'member balances still equal the ledger');
    t.true(await ledgerBalanced(knex, world.enterpriseId));
  },
);

test.serial(
  'a recovery is refused on a loan not written off, ' +
    'for an amount of zero or less, and on bad fields; nothing is posted',
  async (t) => {
    const income = await accountBalance(knex, world.enterpriseId, '792');
    const refused = await recover(loans.waiting, { amount: '1000' });
    t.is(refused.status, 409);
    t.is(refused.body.code, 'loan_not_written_off');
    for (const [json, field] of [
      [{ amount: '0' }, 'amount'],
      [{ amount: '-5' }, 'amount'],
      [{ amount: 1000 }, 'amount'],
      [{ amount: '12.5' }, 'amount'],
      [{}, 'amount'],
      [{ amount: '1000', channel: 'card' }, 'channel'],
      [{ amount: '1000', channel: 'account' }, 'account'],
    ] as const) {
      const answer = await recover(loans.written, json);
      t.is(answer.status, 400, JSON.stringify(json));
      t.true(
        (answer.body.errors as { field: string }[]).some((error) => error.field === field),
        `${JSON.stringify(json)}: ${answer.text}`,
      );
    }
    t.is(await accountBalance(knex, world.enterpriseId, '792'), income);
    t.is(
      (await app.request('GET', `/api/v1/loans/recoveries/?loan=${loans.written}`, as('branch_head'))).body.count,
      2,
    );
  },
);

test.serial(
  "branch isolation: another branch's staff and another enterprise see no recovery and record none",
  async (t) => {
    t.is((await recover(loans.written, { amount: '1000' }, 'other_cashier')).status, 404);
    t.is((await app.request('GET', `/api/v1/loans/recoveries/${recoveryId}/`, as('other_head'))).status, 404);
    t.is((await app.request('GET', `/api/v1/loans/recoveries/?loan=${loans.written}`, as('other_head'))).body.count, 0);
    const outsider = stranger.users.direction!.headers;
    t.is((await app.request('GET', `/api/v1/loans/recoveries/${recoveryId}/`, { headers: outsider })).status, 404);
    t.is(
      (
        await app.request('POST', `/api/v1/loans/loans/${loans.written}/recoveries/`, {
          headers: stranger.users.branch_head!.headers,
          json: { amount: '1000' },
        })
      ).status,
      404,
    );
    t.is(
      (
        await app.request(
          'GET',
          `/api/v1/loans/write-off-register/?enterprise=${world.enterpriseId}&from=2026-01-01&to=2026-12-31`,
          { headers: outsider },
        )
      ).status,
      404,
    );
    t.is(
      (
        await app.request(
          'GET',
          `/api/v1/loans/write-off-candidates/?enterprise=${world.enterpriseId}` +
            `&date=2030-01-01&branch=${world.headOffice}`,
          as('other_head'),
        )
      ).status,
      404,
    );
  },
);

test.serial(
  'the alert lists a doubtful loan from its third year doubtful (R-2017/07 Art. 10), ' +
    'with its outstanding and provision',
  async (t) => {
    const since = (
      await knex('loans').where({ id: loans.waiting }).first(knex.raw(`to_char(doubtful_since, 'YYYY-MM-DD') AS since`))
    ).since as string;
    const third = `${Number(since.slice(0, 4)) + 3}${since.slice(4)}`;
    const dayBefore = new Date(Date.parse(`${third}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const alert = (date: string, user = 'direction', format = '') =>
      app.request(
        'GET',
        `/api/v1/loans/write-off-candidates/?enterprise=${world.enterpriseId}&date=${date}${format}`,
        as(user),
      );
    const early = await alert(dayBefore);
    t.is(early.status, 200, early.text);
    t.deepEqual(early.body.loans, [], 'two years and 364 days doubtful: not yet');
    const due = await alert(third);
    const numberOf = async (loanId: string) =>
      (await knex('loans').where({ id: loanId }).first('number')).number as string;
    const [waiting, other] = [await numberOf(loans.waiting), await numberOf(loans.other)];
    // The written-off loan is gone; the other branch's, whose write-off waits for its approver, is still doubtful.
    t.deepEqual(due.body.loans.map((row: { number: string }) => row.number).sort(), [waiting, other].sort());
    for (const row of due.body.loans)
      t.like(row, {
        doubtful_since: since,
        years_doubtful: 3,
        outstanding_principal: String(principal),
        provision_amount: String(provision),
      });
    t.like(due.body, { outstanding_principal: String(2 * principal), provision_amount: String(2 * provision) });
    t.deepEqual(
      (await alert(third, 'other_head')).body.loans.map((row: { number: string }) => row.number),
      [other],
      'a branch sees its own loans only',
    );
    const csv = await alert(third, 'direction', '&format=csv');
    t.is(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
    t.true(csv.text.includes(waiting) && csv.text.includes(other));
  },
);

test.serial('the write-off register: amount, date, proposer and approver, recoveries and net loss', async (t) => {
  const register = await app.request(
    'GET',
    `/api/v1/loans/write-off-register/?enterprise=${world.enterpriseId}&from=2026-04-01&to=2026-04-30`,
    as('direction'),
  );
  t.is(register.status, 200, register.text);
  t.is(register.body.loans.length, 1);
  t.like(register.body.loans[0], {
    loan: loans.written,
    written_off_on: '2026-04-02',
    written_off_amount: String(principal),
    proposed_by: world.users.branch_head!.id,
    approved_by: world.users.direction!.id,
    recovered: '350000',
    net_loss: String(principal - 350_000),
  });
  t.like(register.body, {
    written_off_amount: String(principal),
    recovered: '350000',
    net_loss: String(principal - 350_000),
  });
  t.deepEqual(
    (
      await app.request(
        'GET',
        `/api/v1/loans/write-off-register/?enterprise=${world.enterpriseId}&from=2026-05-01&to=2026-12-31`,
        as('direction'),
      )
    ).body.loans,
    [],
  );
  t.deepEqual(
    (
      await app.request(
        'GET',
        `/api/v1/loans/write-off-register/?enterprise=${world.enterpriseId}` +
          `&from=2026-01-01&to=2026-12-31&branch=${world.otherBranch}`,
        as('direction'),
      )
    ).body.loans,
    [],
  );
  const reversed = await app.request(
    'GET',
    `/api/v1/loans/write-off-register/?enterprise=${world.enterpriseId}&from=2026-05-01&to=2026-04-01`,
    as('direction'),
  );
  t.is(reversed.status, 400);
  const xlsx = await app.request(
    'GET',
    `/api/v1/loans/write-off-register/?enterprise=${world.enterpriseId}&from=2026-04-01&to=2026-04-30&format=xlsx`,
    as('direction'),
  );
  t.is(xlsx.status, 200);
  t.is(xlsx.headers.get('content-type'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
});
