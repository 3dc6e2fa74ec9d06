import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { decideApprovalRequest, expireApprovalRequest } from '../../activities/approvals/approval-request.activity';
import { Money } from '../../domain/money';
import { approveRequest, secondAdmin } from '../helpers/approvals';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app';
import { testClock } from '../helpers/clock';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';
import { newTaskQueue, withWorker } from '../helpers/worker';
import { booksBreaches } from '../model/books';

/**
 * Manual journal entries (docs/domain.md §12.1) through the API: drafted by an accountant, posted only once a
 * second person approves the submission, refused on subledger accounts and mixed classes, sent back with the
 * checker's reason, corrected by a reversal; and the opening entry with its suspense difference. Every figure is
 * written here by hand and compared with the trial balance the API reads.
 */
const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let chartId: string;
const accountant: { id: string; headers: Record<string, string> } = { id: '', headers: {} };
const secondAccountant: { id: string; headers: Record<string, string> } = { id: '', headers: {} };

const businessDate = '2026-06-30';
const rent = new Money(150_000);
const electricity = new Money(45_500);

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'MJE');
  await knex('enterprise_configurations')
    .where({ enterprise_id: world.enterpriseId })
    .update({ business_date: businessDate });
  chartId = (await knex('company_charts').where({ enterprise_id: world.enterpriseId }).first('id')).id as string;
  for (const [user, name] of [
    [accountant, 'accountant_mje'],
    [secondAccountant, 'accountant_two_mje'],
  ] as const) {
    user.id = await createUser(knex, name, [{ role: 'accountant', enterpriseId: world.enterpriseId, branchId: null }]);
    user.headers = await bearer(app, name, `10.63.0.${name.length}`);
  }
});

const base = '/api/v1/accounting/manual-entries/';
const line = (account: string, side: 'debit' | 'credit', amount: Money | number, branch = world.headOffice) => ({
  account,
  branch,
  [side]: new Money(amount).toFixed(0),
});
const draft = (lines: unknown[], fields: Record<string, unknown> = {}, headers = accountant.headers) =>
  app.request('POST', base, {
    headers,
    json: {
      enterprise: world.enterpriseId,
      entry_date: '2026-06-15',
      reference: 'FACT-2026-061',
      label: 'Loyer et électricité de juin',
      lines,
      ...fields,
    },
  });
const submit = (id: string, headers = accountant.headers) =>
  app.request('POST', `${base}${id}/submission/`, { headers });
const read = async (id: string) => (await app.request('GET', `${base}${id}/`, { headers: accountant.headers })).body;
const branchHead = () => ({ id: world.users.branch_head!.id, roles: ['branch_head'] as const });

/** The trial balance's non-zero balances (debit minus credit) of these accounts at the date. */
async function balances(accounts: readonly string[], date = businessDate): Promise<Record<string, string>> {
  const trial = await app.request('GET', `/api/v1/accounts/charts/${chartId}/trial-balance/?date=${date}`, {
    headers: world.users.direction!.headers,
  });
  return Object.fromEntries(
    trial.body.accounts
      .filter((row: { code: string; balance: string }) => accounts.includes(row.code) && row.balance !== '0')
      .map((row: { code: string; balance: string }) => [row.code, row.balance]),
  );
}

/** Drafts, submits and has the branch head approve: the posted entry. */
async function posted(lines: unknown[], fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const created = await draft(lines, fields);
  if (created.status !== 201) throw new Error(created.text);
  await approveRequest(knex, await submit(created.body.id), branchHead());
  return read(created.body.id);
}

const expenseLines = () => [
  line('65234', 'debit', rent),
  line('65211', 'debit', electricity),
  line('5603', 'credit', rent.plus(electricity)),
];

/** Neither the maker nor a second accountant approves a manual entry: the branch head does. */
async function assertAccountantsCannotApprove(t: ExecutionContext, requestId: string) {
  const own = await decideApprovalRequest(knex, testClock(), {
    requestId,
    decision: {
      decision: 'approve',
      deciderId: accountant.id,
      deciderRoles: ['accountant'],
      reason: 'mine',
      requestId: null,
    },
  });
  t.like(own, { outcome: 'refused', code: 'approval_own_request' }, 'the maker never validates their own entry');
  const byAccountant = await decideApprovalRequest(knex, testClock(), {
    requestId,
    decision: {
      decision: 'approve',
      deciderId: secondAccountant.id,
      deciderRoles: ['accountant'],
      reason: 'ok',
      requestId: null,
    },
  });
  t.like(
    byAccountant,
    { outcome: 'refused', code: 'approval_role_required' },
    'a second accountant validates only where the policy says so',
  );
}

test.serial(
  'an entry posts only once a second person approves it, and shows in the trial balance with the figures written here',
  async (t) => {
    const accounts = ['65234', '65211', '5603'];
    const before = await balances(accounts);
    t.deepEqual(before, {}, 'nothing on these accounts yet');
    const created = await draft(expenseLines());
    t.is(created.status, 201, created.text);
    t.like(created.body, {
      status: 'draft',
      journal: 'OD',
      branch: world.headOffice,
      total_debit: '195500',
      total_credit: '195500',
      created_by: accountant.id,
    });

    const submitted = await submit(created.body.id);
    t.is(submitted.status, 202, submitted.text);
    t.like(submitted.body, { operation: 'manual_entry.post', status: 'pending', maker: accountant.id });
    t.like(await read(created.body.id), { status: 'submitted', approval_request: submitted.body.id });
    t.deepEqual(await balances(accounts), {}, 'nothing posted while it waits');
    const inbox = await app.request('GET', '/api/v1/approvals/pending/', { headers: world.users.branch_head!.headers });
    t.true(
      inbox.body.results.some((item: { id: string }) => item.id === submitted.body.id),
      "the submission is in the branch head's inbox",
    );

    await assertAccountantsCannotApprove(t, submitted.body.id);

    await approveRequest(knex, submitted, branchHead());
    const entry = await read(created.body.id);
    t.like(entry, { status: 'posted', approved_by: world.users.branch_head!.id });
    t.is(entry.journal_entries.length, 1);
    t.regex(entry.journal_entries[0].entry_reference, /^OD-2026-\d{6}$/);
    const journalEntry = await knex('journal_entries')
      .where({ id: entry.journal_entries[0].id })
      .first('journal_code', 'entry_date', 'description', 'branch_id');
    t.like(journalEntry, {
      journal_code: 'OD',
      entry_date: '2026-06-15',
      description: 'FACT-2026-061 Loyer et électricité de juin',
      branch_id: world.headOffice,
    });
    t.deepEqual(await balances(accounts), {
      65234: '150000',
      65211: '45500',
      5603: rent.plus(electricity).negated().toFixed(0),
    });
    t.deepEqual(await knex('audit_events').where({ entity_id: created.body.id }).orderBy('id').pluck('action'), [
      'manual_entry.create',
      'manual_entry.submit',
      'manual_entry.post',
    ]);

    const edit = await app.request('PATCH', `${base}${created.body.id}/`, {
      headers: accountant.headers,
      json: { label: 'changed' },
    });
    t.like(edit.body, { status: 409, code: 'manual_entry_not_editable' }, 'a posted entry is never edited');
  },
);

test.serial(
  'a cashier cannot draft; subledger accounts, mixed classes, ' +
    'a closed year and a date after the business date are refused, naming the field',
  async (t) => {
    const cashier = await draft(expenseLines(), {}, world.users.cashier!.headers);
    t.is(cashier.status, 403);
    const deposits = await draft([line('65234', 'debit', 1000), line('3711', 'credit', 1000)]);
    t.like(deposits.body, {
      status: 422,
      code: 'manual_entry_subledger_account',
      errors: [{ field: 'lines[1].account' }],
    });
    const capital = await draft([line('10000', 'debit', 1000), line('5603', 'credit', 1000)]);
    t.like(capital.body, {
      status: 422,
      code: 'manual_entry_subledger_account',
      errors: [{ field: 'lines[0].account' }],
    });
    const portfolio = await draft([
      line('5603', 'debit', 1000),
      line('65211', 'debit', 1000),
      line('3221', 'credit', 2000),
    ]);
    t.like(portfolio.body, {
      status: 422,
      code: 'manual_entry_subledger_account',
      errors: [{ field: 'lines[2].account' }],
    });
    const mixed = await draft([line('9311', 'debit', 1000), line('5603', 'credit', 1000)]);
    t.like(mixed.body, { status: 422, code: 'off_balance_mixed', errors: [{ field: 'lines[1].account' }] });
    const parent = await draft([line('6523', 'debit', 1000), line('5603', 'credit', 1000)]);
    t.like(parent.body, { status: 422, code: 'account_not_leaf', errors: [{ field: 'lines[0].account' }] });
    const bothSides = await draft([
      { account: '5603', branch: world.headOffice, debit: '5', credit: '5' },
      line('65211', 'credit', 5),
    ]);
    t.like(bothSides.body, { status: 400, errors: [{ field: 'lines[0]' }] });

    await knex('exercices_comptables').insert({
      enterprise_id: world.enterpriseId,
      code: '2025',
      start_date: '2025-01-01',
      end_date: '2025-12-31',
      status: 'closed',
    });
    const closed = await draft(expenseLines(), { entry_date: '2025-12-31' });
    t.like(closed.body, { status: 409, code: 'exercice_closed', errors: [{ field: 'entry_date' }] });
    const later = await draft(expenseLines(), { entry_date: '2026-07-01' });
    t.like(later.body, { status: 422, code: 'as_of_after_business_date', errors: [{ field: 'entry_date' }] });
    t.is(
      await knex('manual_entries')
        .where({ enterprise_id: world.enterpriseId })
        .whereNot({ status: 'posted' })
        .count('* as n')
        .first()
        .then((row) => Number(row!.n)),
      0,
      'no refused draft was saved',
    );
  },
);

test.serial('an unbalanced draft is saved but not submitted; each branch balances on its own', async (t) => {
  const unbalanced = await draft([line('65234', 'debit', 1000), line('5603', 'credit', 900)]);
  t.is(unbalanced.status, 201, unbalanced.text);
  t.like((await submit(unbalanced.body.id)).body, {
    status: 422,
    code: 'manual_entry_unbalanced',
    errors: [{ field: 'lines' }],
  });
  const acrossBranches = await app.request('PATCH', `${base}${unbalanced.body.id}/`, {
    headers: accountant.headers,
    json: { lines: [line('65234', 'debit', 1000, world.otherBranch), line('5603', 'credit', 1000)] },
  });
  t.like(acrossBranches.body, { status: 'draft', version: 2, branch: null });
  t.like((await submit(unbalanced.body.id)).body, {
    status: 422,
    code: 'manual_entry_unbalanced',
    errors: [{ field: 'lines[0].branch' }],
  });
  const liaison = await app.request('PATCH', `${base}${unbalanced.body.id}/`, {
    headers: accountant.headers,
    json: {
      lines: [
        line('65234', 'debit', 1000, world.otherBranch),
        line('45200', 'credit', 1000, world.otherBranch),
        line('45200', 'debit', 1000),
        line('5603', 'credit', 1000),
      ],
    },
  });
  t.is(liaison.status, 200, liaison.text);
  const submitted = await submit(unbalanced.body.id);
  t.is(submitted.status, 202, submitted.text);
  t.is(
    await knex('approval_requests')
      .where({ id: submitted.body.id })
      .first('branch_id')
      .then((row) => row.branch_id),
    null,
    'an entry of two branches is approved over the enterprise',
  );
  await approveRequest(knex, submitted, { id: world.users.direction!.id, roles: ['direction'] });
  const entry = await read(unbalanced.body.id);
  t.is(entry.status, 'posted');
  t.deepEqual(
    entry.journal_entries.map((posting: { branch: string }) => posting.branch).sort(),
    [world.headOffice, world.otherBranch].sort(),
    'one journal entry per branch',
  );
  const cancelled = await app.request('DELETE', `${base}${unbalanced.body.id}/`, { headers: accountant.headers });
  t.like(cancelled.body, { status: 409, code: 'manual_entry_not_editable' });
});

test.serial(
  "a rejection through the request's workflow needs a reason and returns the draft, editable and resubmittable",
  async (t) => {
    await withWorker(
      knex,
      async () => {
        const created = await draft([line('65236', 'debit', 80_000), line('5603', 'credit', 80_000)], {
          reference: 'FACT-REP-7',
        });
        const submitted = await submit(created.body.id);
        t.is(submitted.status, 202, submitted.text);
        const noReason = await app.request(
          'POST',
          `/api/v1/approvals/requests/${submitted.body.id as string}/reject/`,
          { headers: world.users.branch_head!.headers, json: {} },
        );
        t.is(noReason.status, 400);
        const rejected = await app.request(
          'POST',
          `/api/v1/approvals/requests/${submitted.body.id as string}/reject/`,
          {
            headers: world.users.branch_head!.headers,
            json: { reason: 'the invoice is not attached' },
          },
        );
        t.like(rejected.body, { status: 'rejected', reason: 'the invoice is not attached' });
        t.like(await read(created.body.id), {
          status: 'rejected',
          rejection_reason: 'the invoice is not attached',
          journal_entries: [],
        });
        t.deepEqual(await balances(['65236']), {}, 'nothing posted');

        const edited = await app.request('PATCH', `${base}${created.body.id}/`, {
          headers: accountant.headers,
          json: { reference: 'FACT-REP-7 (jointe)' },
        });
        t.like(edited.body, { status: 'draft', version: 2, reference: 'FACT-REP-7 (jointe)' });
        const again = await submit(created.body.id);
        t.is(again.status, 202);
        const approved = await app.request('POST', `/api/v1/approvals/requests/${again.body.id as string}/approve/`, {
          headers: world.users.branch_head!.headers,
          json: { reason: 'invoice seen' },
        });
        t.like(approved.body, { status: 'approved', failure: null });
        t.like(await read(created.body.id), { status: 'posted', rejection_reason: null });
        t.deepEqual(await balances(['65236']), { 65236: '80000' });
      },
      taskQueue,
    );
  },
);

test.serial(
  'no one who wrote the entry validates it: its author and an editor are refused, though another person submitted it',
  async (t) => {
    await withWorker(
      knex,
      async () => {
        const created = await draft(
          [line('65231', 'debit', 30_000), line('5603', 'credit', 30_000)],
          { reference: 'FACT-TEL-3' },
          world.users.branch_head!.headers,
        );
        t.is(created.status, 201, created.text);
        const edited = await app.request('PATCH', `${base}${created.body.id}/`, {
          headers: world.users.direction!.headers,
          json: { label: 'Téléphone de mars' },
        });
        t.like(edited.body, { status: 'draft', version: 2 }, edited.text);
        const submitted = await submit(created.body.id);
        t.like(
          submitted.body,
          { status: 'pending', maker: accountant.id },
          'the accountant submits the entry the branch head wrote',
        );
        const decisionPath = `/api/v1/approvals/requests/${submitted.body.id as string}/approve/`;

        const authorsInbox = await app.request('GET', '/api/v1/approvals/pending/', {
          headers: world.users.branch_head!.headers,
        });
        t.false(
          authorsInbox.body.results.some((item: { id: string }) => item.id === submitted.body.id),
          "not in its author's inbox",
        );
        for (const writer of ['branch_head', 'direction']) {
          const refused = await app.request('POST', decisionPath, {
            headers: world.users[writer]!.headers,
            json: { reason: 'looks right' },
          });
          t.like(
            refused.body,
            { status: 403, code: 'approval_own_request' },
            `the ${writer}, who wrote it, cannot validate it`,
          );
        }
        const byActivity = await decideApprovalRequest(knex, testClock(), {
          requestId: submitted.body.id,
          decision: {
            decision: 'approve',
            deciderId: world.users.branch_head!.id,
            deciderRoles: ['branch_head'],
            reason: 'mine',
            requestId: null,
          },
        });
        t.like(
          byActivity,
          { outcome: 'refused', code: 'approval_own_request' },
          'the activity that writes the decision asks the same question',
        );
        t.deepEqual(await balances(['65231']), {}, 'nothing posted');

        const approved = await app.request('POST', decisionPath, {
          headers: world.users.root!.headers,
          json: { reason: 'invoice seen' },
        });
        t.like(approved.body, { status: 'approved', decided_by: world.rootId });
        t.like(await read(created.body.id), { status: 'posted' });
        t.deepEqual(await balances(['65231']), { 65231: '30000' });
      },
      taskQueue,
    );
  },
);

test.serial(
  'a posted entry is corrected by its reversal, a draft of the mirror lines, posted on approval; once only',
  async (t) => {
    const original = await posted([line('65233', 'debit', 12_000), line('5603', 'credit', 12_000)], {
      reference: 'RECU-12',
    });
    t.deepEqual(await balances(['65233']), { 65233: '12000' });
    const reversal = await app.request('POST', `${base}${original.id as string}/reversal/`, {
      headers: accountant.headers,
      json: { entry_date: businessDate, reference: 'CORR-12' },
    });
    t.is(reversal.status, 201, reversal.text);
    t.like(reversal.body, { status: 'draft', reverses: original.id, journal: 'OD', label: 'Extourne de RECU-12' });
    t.deepEqual(
      reversal.body.lines.map((mirror: { account: string; debit: string; credit: string }) => [
        mirror.account,
        mirror.debit,
        mirror.credit,
      ]),
      [
        ['65233', '0', '12000'],
        ['5603', '12000', '0'],
      ],
    );
    t.like(
      (
        await app.request('POST', `${base}${original.id as string}/reversal/`, {
          headers: accountant.headers,
          json: { entry_date: businessDate, reference: 'CORR-12b' },
        })
      ).body,
      { status: 409, code: 'manual_entry_reversed' },
    );
    await approveRequest(knex, await submit(reversal.body.id), branchHead());
    const posting = await read(reversal.body.id);
    t.is(posting.status, 'posted');
    const reversedEntry = (original.journal_entries as { id: string }[])[0]!.id;
    t.is(
      await knex('journal_entries')
        .where({ id: posting.journal_entries[0].id })
        .first('reverses_entry_id')
        .then((row) => row.reverses_entry_id),
      reversedEntry,
    );
    t.deepEqual(await balances(['65233']), {}, 'the account is back to zero');
    const draftOnly = await draft([line('65233', 'debit', 1), line('5603', 'credit', 1)]);
    t.like(
      (
        await app.request('POST', `${base}${draftOnly.body.id as string}/reversal/`, {
          headers: accountant.headers,
          json: { entry_date: businessDate, reference: 'X' },
        })
      ).body,
      {
        status: 409,
        code: 'manual_entry_not_posted',
      },
    );
  },
);

async function assertOpeningSuspenseAccount(t: ExecutionContext) {
  const configuration = await app.request(
    'GET',
    `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`,
    { headers: world.users.direction!.headers },
  );
  t.is(
    configuration.body.opening_suspense_account_code,
    '4780',
    "the suspense account is the enterprise's configuration",
  );
}

/** An opening entry is neither drafted nor moved outside the first open year. */
async function assertOpeningInFirstYear(t: ExecutionContext, entryId: string) {
  const outside = await app.request('POST', `${base}opening/`, {
    headers: accountant.headers,
    json: {
      enterprise: world.enterpriseId,
      reference: 'B',
      entry_date: '2027-01-01',
      lines: [line('5603', 'debit', 1)],
    },
  });
  t.like(outside.body, { status: 400, errors: [{ field: 'entry_date' }] });
  const movedOut = await app.request('PATCH', `${base}${entryId}/`, {
    headers: accountant.headers,
    json: { entry_date: '2027-01-01' },
  });
  t.like(
    movedOut.body,
    { status: 400, errors: [{ field: 'entry_date' }] },
    'an opening entry stays in the first open year',
  );
}

test.serial(
  'the opening entry: the trial balance at the cut-over date, ' +
    "each branch's difference on the suspense account, once per enterprise",
  async (t) => {
    const opening = (lines: unknown[]) =>
      app.request('POST', `${base}opening/`, {
        headers: accountant.headers,
        json: { enterprise: world.enterpriseId, reference: 'BILAN-2025', lines },
      });
    const refused = await opening([line('5603', 'debit', 1_000_000), line('3711', 'credit', 1_000_000)]);
    t.like(refused.body, {
      status: 422,
      code: 'manual_entry_subledger_account',
      errors: [{ field: 'lines[1].account' }],
    });

    await assertOpeningSuspenseAccount(t);
    const bank = new Money(2_000_000);
    const otherDebtors = new Money(300_000);
    const otherBranchBank = new Money(400_000);
    const created = await opening([
      line('5603', 'debit', bank),
      line('46800', 'credit', otherDebtors),
      line('5602', 'debit', otherBranchBank, world.otherBranch),
    ]);
    t.is(created.status, 201, created.text);
    t.like(created.body, { kind: 'opening', journal: 'AN', entry_date: '2026-01-01', status: 'draft' });
    // What the go-live import will justify: per branch, debits minus credits, credited to 4780.
    const headOfficeGap = bank.minus(otherDebtors);
    t.deepEqual(
      created.body.lines
        .slice(3)
        .map((gap: { account: string; branch: string; credit: string }) => [gap.account, gap.branch, gap.credit]),
      [
        ['4780', world.headOffice, headOfficeGap.toFixed(0)],
        ['4780', world.otherBranch, otherBranchBank.toFixed(0)],
      ],
    );
    await assertOpeningInFirstYear(t, created.body.id as string);

    await approveRequest(knex, await submit(created.body.id), { id: world.users.direction!.id, roles: ['direction'] });
    t.like(await read(created.body.id), { status: 'posted' });
    const atOpening = await balances(['5603', '5602', '46800', '4780'], '2026-01-01');
    t.deepEqual(atOpening, {
      5603: bank.toFixed(0),
      5602: otherBranchBank.toFixed(0),
      46800: otherDebtors.negated().toFixed(0),
      4780: headOfficeGap.plus(otherBranchBank).negated().toFixed(0),
    });
    // The opening balance sheet is the year's opening in the six columns, not a movement of its first day.
    const trial = await app.request('GET', `/api/v1/accounts/charts/${chartId}/trial-balance/?date=2026-01-01`, {
      headers: world.users.direction!.headers,
    });
    t.like(
      trial.body.accounts.find((row: { code: string }) => row.code === '5603'),
      { opening_debit: bank.toFixed(0), movement_debit: '0', closing_debit: bank.toFixed(0) },
    );
    t.like(
      trial.body.accounts.find((row: { code: string }) => row.code === '4780'),
      { opening_credit: headOfficeGap.plus(otherBranchBank).toFixed(0), movement_credit: '0' },
    );
    const second = await opening([line('5603', 'debit', 1), line('46800', 'credit', 1)]);
    t.like(second.body, { status: 409, code: 'opening_entry_exists' });
  },
);

test.serial(
  'the policy may let a second accountant validate, never lift the four eyes; the subledgers still equal the ledger',
  async (t) => {
    const policyPath = `/api/v1/enterprise/enterprises/${world.enterpriseId}/approval-policy/`;
    const rule = (fourEyes: boolean) => ({
      operation: 'manual_entry.post',
      four_eyes: fourEyes,
      approver_roles: ['accountant', 'direction'],
      threshold: null,
      lifetime_days: 7,
    });
    const lifted = await app.request('PUT', policyPath, {
      headers: world.users.root!.headers,
      json: { rules: [rule(false)] },
    });
    t.like(lifted.body, { status: 422, code: 'approval_always_four_eyes', errors: [{ field: 'rules[0].four_eyes' }] });
    const withAccountants = await app.request('PUT', policyPath, {
      headers: world.users.root!.headers,
      json: { rules: [rule(true)] },
    });
    await approveRequest(knex, withAccountants, await secondAdmin(knex, world));

    const created = await draft([line('65213', 'debit', 7_500), line('5603', 'credit', 7_500)], {
      reference: 'TICKET-88',
    });
    const submitted = await submit(created.body.id);
    t.deepEqual(submitted.body.approver_roles, ['accountant', 'direction']);
    const approved: TestResponse = await approveRequest(knex, submitted, {
      id: secondAccountant.id,
      roles: ['accountant'],
    });
    t.is(approved.status, 200);
    t.like(await read(created.body.id), { status: 'posted', approved_by: secondAccountant.id });
    t.deepEqual(await balances(['65213']), { 65213: '7500' });
    t.deepEqual(await booksBreaches(world, new Map()), [], 'deposits, loans and capital still tie out with the ledger');
  },
);

test.serial(
  'an approval the books refuse by then fails the request and returns the entry with the refusal',
  async (t) => {
    const created = await draft([line('5604', 'debit', 3_000), line('5603', 'credit', 3_000)], { reference: 'VIR-3' });
    const submitted = await submit(created.body.id);
    t.is(submitted.status, 202, submitted.text);
    // The chart changes meanwhile: 5604 gets a sub-account, so it is no longer postable.
    const detailed = await app.request('POST', `/api/v1/accounts/charts/${chartId}/entries/`, {
      headers: world.users.direction!.headers,
      json: { parent_code: '5604', code: '56041', label: 'CCP Douala' },
    });
    t.is(detailed.status, 201, detailed.text);
    const decided = await decideApprovalRequest(knex, testClock(), {
      requestId: submitted.body.id,
      decision: {
        decision: 'approve',
        deciderId: world.users.direction!.id,
        deciderRoles: ['direction'],
        reason: 'ok',
        requestId: null,
      },
    });
    t.like(decided, { status: 'failed', failure: { code: 'account_not_leaf' } });
    t.like(await read(created.body.id), { status: 'rejected', journal_entries: [] });
    t.regex((await read(created.body.id)).rejection_reason, /5604 has sub-accounts/);
    t.deepEqual(await balances(['5604']), {}, 'nothing posted');
  },
);

test.serial('a submission left undecided expires and returns the entry to its maker', async (t) => {
  const created = await draft([line('65213', 'debit', 2_000), line('5603', 'credit', 2_000)], {
    reference: 'TICKET-90',
  });
  const submitted = await submit(created.body.id);
  t.is(submitted.status, 202, submitted.text);
  // What the request's workflow runs when its timer fires.
  t.like(await expireApprovalRequest(knex, testClock(), { requestId: submitted.body.id }), { status: 'expired' });
  t.like(await read(created.body.id), {
    status: 'rejected',
    rejection_reason: 'The request expired undecided.',
    journal_entries: [],
  });
  t.is((await submit(created.body.id)).status, 202, 'submitted again');
});

test.serial(
  "a supplier's own account and a fixed-asset category's accounts are refused: " +
    "the suppliers' books and the register are their detail",
  async (t) => {
    const supplier = await app.request('POST', '/api/v1/accounting/suppliers/', {
      headers: accountant.headers,
      json: { enterprise: world.enterpriseId, branch: world.headOffice, name: 'Bailleur MJE' },
    });
    t.is(supplier.status, 201, supplier.text);
    const category = await app.request('POST', '/api/v1/accounting/fixed-asset-categories/', {
      headers: accountant.headers,
      json: {
        enterprise: world.enterpriseId,
        name: 'Matériel de transport',
        depreciation_months: 36,
        asset_account: '225',
        depreciation_account: '2825',
        charge_account: '6824',
      },
    });
    t.is(category.status, 201, category.text);
    const owed = await draft([line('65234', 'debit', 1000), line(supplier.body.account as string, 'credit', 1000)]);
    t.like(owed.body, { status: 422, code: 'manual_entry_subledger_account', errors: [{ field: 'lines[1].account' }] });
    const asset = await draft([line('225', 'debit', 1000), line('5603', 'credit', 1000)]);
    t.like(asset.body, {
      status: 422,
      code: 'manual_entry_subledger_account',
      errors: [{ field: 'lines[0].account' }],
    });
    const depreciation = await draft([line('6824', 'debit', 1000), line('2825', 'credit', 1000)]);
    t.like(depreciation.body, {
      status: 422,
      code: 'manual_entry_subledger_account',
      errors: [{ field: 'lines[1].account' }],
    });
  },
);

test.serial('a reversed opening entry no longer blocks a new one; a reversal not yet posted still does', async (t) => {
  const openingId = (
    await knex('manual_entries')
      .where({ enterprise_id: world.enterpriseId, kind: 'opening', status: 'posted' })
      .first('id')
  ).id as string;
  const opening = (lines: unknown[]) =>
    app.request('POST', `${base}opening/`, {
      headers: accountant.headers,
      json: { enterprise: world.enterpriseId, reference: 'BILAN-2025-BIS', lines },
    });
  const reversal = await app.request('POST', `${base}${openingId}/reversal/`, {
    headers: accountant.headers,
    json: { entry_date: '2026-01-01', reference: 'ANNUL-BILAN' },
  });
  t.is(reversal.status, 201, reversal.text);
  t.like(
    (await opening([line('5603', 'debit', 1), line('46800', 'credit', 1)])).body,
    { status: 409, code: 'opening_entry_exists' },
    'its reversal is only a draft',
  );
  await approveRequest(knex, await submit(reversal.body.id), { id: world.users.direction!.id, roles: ['direction'] });
  t.like(await read(reversal.body.id), { status: 'posted' });
  t.deepEqual(await balances(['5602', '46800', '4780'], '2026-01-01'), {}, 'the first opening balance sheet is undone');

  const bank = new Money(1_250_000);
  const created = await opening([line('5602', 'debit', bank), line('46800', 'credit', bank)]);
  t.is(created.status, 201, created.text);
  await approveRequest(knex, await submit(created.body.id), { id: world.users.direction!.id, roles: ['direction'] });
  t.like(await read(created.body.id), { status: 'posted', kind: 'opening' });
  t.deepEqual(await balances(['5602', '46800', '4780'], '2026-01-01'), {
    5602: bank.toFixed(0),
    46800: bank.negated().toFixed(0),
  });
  t.like(
    (await opening([line('5603', 'debit', 1), line('46800', 'credit', 1)])).body,
    { status: 409, code: 'opening_entry_exists' },
    'the new one stands',
  );
});
