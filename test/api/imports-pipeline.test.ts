import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import test, { type ExecutionContext } from 'ava';
import ExcelJS from 'exceljs';
import { importWorkflowId } from '../../workflows/identities';
import type { Knex } from 'knex';
import type { TestApp } from '../helpers/app';
import { testEnvironment } from '../helpers/environment';
import type { LoanWorld } from '../helpers/loans';
import { importFourEyes, importPast, importWorld, validateImport } from '../helpers/imports';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * The go-live import's pipeline (issue 31, docs/domain.md §15.1) through the API: the trial balance's validation,
 * the tie-out of the members' deposits to it, the dry run. The files are hand-made (test/fixtures/imports/) and
 * every expected figure below is added up here from their lines.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
// Recorded with RECORD_HISTORIES=1: a change to the workflow that breaks the histories of imports in flight fails here.
const historyFile = path.join(__dirname, '../workflows/histories', 'import-applied.json');
const fixture = (name: string) => fs.readFileSync(path.join(__dirname, '../fixtures/imports', name));
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

test.before(async () => {
  ({ app, knex, world } = await importWorld(file, taskQueue, 'IPL'));
});

const direction = () => world.users.direction!.headers;
const journalLines = async () => Number((await knex('journal_lines').count({ count: '*' }).first())!.count);

/** Asks for the import's operation (apply or cancel) as the uploader and has the platform administrator approve it. */
async function fourEyes(
  t: ExecutionContext,
  id: string,
  operation: 'application' | 'cancellation',
  json: Record<string, string> = {},
) {
  await t.notThrowsAsync(
    importFourEyes(app, id, operation, { maker: direction(), checker: world.users.root!.headers }, json),
  );
}

/** The general ledger's debit − credit of an account in a branch of the world's enterprise. */
async function ledger(branchCode: string, account: string): Promise<string> {
  const row = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .join('branches as b', 'b.id', 'e.branch_id')
    .where({ 'e.enterprise_id': world.enterpriseId, 'b.code': branchCode, 'c.code': account })
    .first(knex.raw('coalesce(sum(l.debit - l.credit), 0)::text AS balance'));
  return row.balance as string;
}

/** An import with the members, member accounts and the trial balance given, validated. */
async function validatedImport(t: ExecutionContext, trialBalance: string) {
  const created = await app.request('POST', '/api/v1/imports/', {
    headers: direction(),
    json: { enterprise: world.enterpriseId, cut_over_date: '2026-10-31' },
  });
  t.is(created.status, 201, created.text);
  const id = created.body.id as string;
  const files: [string, string][] = [
    ['members', 'members-good.csv'],
    ['member-accounts', 'member-accounts-good.csv'],
    ['trial-balance', trialBalance],
  ];
  for (const [kind, name] of files) {
    const uploaded = await app.request('PUT', `/api/v1/imports/${id}/files/${kind}/`, {
      headers: { ...direction(), 'content-type': 'text/csv' },
      body: fixture(name),
    });
    t.is(uploaded.status, 200, uploaded.text);
  }
  // Inside the test's worker, or one of its own.
  return { id, body: await withWorker(knex, () => validateImport(app, id, direction()), taskQueue) };
}

test(
  'a trial balance is refused line by line: unknown branch, account ' +
    'not postable, both sides, a line twice, a branch not balanced',
  async (t) => {
    const { id, body } = await validatedImport(t, 'pipeline/trial-balance-bad.csv');
    t.like(body, { status: 'rejected', problems: 7, differences: 0, dry_run: null });
    const report = await app.request('GET', `/api/v1/imports/${id}/report/?kind=trial-balance&page_size=50`, {
      headers: direction(),
    });
    const problems = (report.body.results as { row: number; column: string; value: string; problem: string }[]).map(
      (p) => `${p.row} ${p.column} '${p.value}': ${p.problem}`,
    );
    // HQ's lines: debits 1000 + 10 + 5 + 0, credits 900 + 5; XX's one line a debit of 50.
    t.deepEqual(problems, [
      "2 account_code '5710': the same branch and account as another line of the file",
      "2 branch_code 'HQ': the branch's balance-sheet and result lines are not balanced: debit 1015, credit 905",
      "4 branch_code 'XX': neither a branch of the enterprise nor in the branches-users file",
      "4 branch_code 'XX': the branch's balance-sheet and result lines are not balanced: debit 50, credit 0",
      "5 account_code '57': not a postable account of the enterprise's chart (an active account without sub-accounts)",
      "6 credit '5': a debit and a credit on one line: give the balance on one side",
      "7 account_code '5710': the same branch and account as another line of the file",
    ]);
  },
);

test(
  "members' deposits tie out to the trial balance by branch and product " +
    'account; the dry run counts and totals what applying would make',
  async (t) => {
    const linesBefore = await journalLines();
    const { id, body } = await validatedImport(t, 'pipeline/trial-balance.csv');
    t.like(body, { status: 'validated', problems: 0, differences: 0 });
    // The accounts file: A-001 1 234 567 (M001, HQ) + A-003 75 000 (M003, HQ) + A-004 0 (M-EXIST, HQ); A-002 250 000
    // (M002, B2).
    const hq = 1_234_567 + 75_000 + 0;
    const tieOut = await app.request('GET', `/api/v1/imports/${id}/tie-out/`, { headers: direction() });
    t.is(tieOut.status, 200, tieOut.text);
    t.deepEqual(tieOut.body.results, [
      {
        branch_code: 'B2',
        account_code: '3711',
        what: 'member deposits, product EPA',
        trial_balance: '-250000',
        detail: '-250000',
        difference: '0',
      },
      {
        branch_code: 'HQ',
        account_code: '3711',
        what: 'member deposits, product EPA',
        trial_balance: `-${hq}`,
        detail: `-${hq}`,
        difference: '0',
      },
    ]);
    const dryRun = body.dry_run as Record<string, unknown>;
    t.deepEqual(dryRun.rows, [
      { kind: 'member-accounts', branch_code: '', rows: 4 },
      { kind: 'members', branch_code: 'B2', rows: 1 },
      { kind: 'members', branch_code: 'HQ', rows: 2 },
      { kind: 'trial-balance', branch_code: 'B2', rows: 2 },
      { kind: 'trial-balance', branch_code: 'HQ', rows: 3 },
    ]);
    // HQ: cash 1 409 567 = deposits 1 309 567 + reserves 100 000; B2: cash 250 000 = deposits 250 000.
    t.deepEqual(dryRun.opening_entries, [
      { branch_code: 'B2', debit: '250000', credit: '250000' },
      { branch_code: 'HQ', debit: '1409567', credit: '1409567' },
    ]);
    const sheet = dryRun.opening_balance_sheet as { totals: Record<string, string> };
    t.deepEqual(sheet.totals, {
      assets: String(1_409_567 + 250_000),
      liabilities: String(1_309_567 + 250_000 + 100_000),
    });
    t.is(await journalLines(), linesBefore, 'the dry run posts nothing');
  },
);

test(
  'a difference between the trial balance and the detail is ' +
    'reported per branch and account, and named in the XLSX report',
  async (t) => {
    const { id, body } = await validatedImport(t, 'pipeline/trial-balance-off.csv');
    t.like(body, { status: 'validated', differences: 1 });
    const tieOut = await app.request('GET', `/api/v1/imports/${id}/tie-out/?differences=true`, {
      headers: direction(),
    });
    // HQ's deposits: 1 310 000 in the trial balance, 1 309 567 in the accounts file.
    t.deepEqual(tieOut.body.results, [
      {
        branch_code: 'HQ',
        account_code: '3711',
        what: 'member deposits, product EPA',
        trial_balance: '-1310000',
        detail: '-1309567',
        difference: String(-(1_310_000 - 1_309_567)),
      },
    ]);
    // The opening entry would keep the detail on 3711 and put the difference on the suspense account 4780.
    const hqEntry = (
      body.dry_run as { opening_entries: { branch_code: string; debit: string; credit: string }[] }
    ).opening_entries.find((entry) => entry.branch_code === 'HQ');
    t.deepEqual(hqEntry, { branch_code: 'HQ', debit: '1410000', credit: '1410000' });
    const xlsx = await fetch(`${app.baseUrl}/api/v1/imports/${id}/report/?format=xlsx`, { headers: direction() });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await xlsx.arrayBuffer());
    const sheet = workbook.getWorksheet('Tie-out')!;
    t.deepEqual((sheet.getRow(3).values as string[]).slice(1), [
      'HQ',
      '3711',
      'member deposits, product EPA',
      '-1310000',
      '-1309567',
      '-433',
    ]);
    t.is(
      (sheet.getRow(3).getCell(1).fill as ExcelJS.FillPattern).fgColor?.argb,
      'FFFFC7CE',
      'the difference is filled red',
    );
  },
);

test.serial(
  'a small cooperative through the whole workflow: validated, ' +
    'tied out, applied under four eyes, reconciled, then cancelled',
  (t) =>
    withWorker(
      knex,
      async ({ client }) => {
        const { id } = await validatedImport(t, 'pipeline/trial-balance.csv');
        await fourEyes(t, id, 'application');
        // Within the wait's 45 s, while the workflow would look at its status after a minute: the approval woke it.
        const applied = await importPast(app, id, direction(), ['validated', 'applying']);
        t.like(applied, {
          status: 'applied',
          reconciliation: {
            reconciled: true,
            suspense: '0',
            subledgers: { pairs: 2, differing: [] },
            trial_balance: { lines: 5, differing: [] },
          },
        });
        await assertAppliedAsFiled(t, id);
        await assertHistoryReplays(t, client, id);

        await assertCancelled(t, id);
        const again = await app.request('POST', `/api/v1/imports/${id}/cancellation/`, {
          headers: direction(),
          json: {},
        });
        t.like(again.body, { status: 409, code: 'import_not_cancellable' });
      },
      taskQueue,
    ),
);

/** The members and accounts the files describe, their batches, and the opening entry of the trial balance. */
async function assertAppliedAsFiled(t: ExecutionContext, id: string): Promise<void> {
  // The members and accounts the files describe, each account with its balance at the cut-over; nothing twice.
  t.deepEqual(await knex('client_profiles').where({ import_id: id }).orderBy('member_number').pluck('member_number'), [
    'M001',
    'M002',
    'M003',
  ]);
  const accounts = await knex('comptes_clients')
    .where({ import_id: id })
    .orderBy('number')
    .select('number', knex.raw('balance::text AS balance'), knex.raw("to_char(opened_on, 'YYYY-MM-DD') AS opened_on"));
  t.deepEqual(accounts, [
    { number: 'A-001', balance: '1234567', opened_on: '2020-01-15' },
    { number: 'A-002', balance: '250000', opened_on: '2021-03-15' },
    { number: 'A-003', balance: '75000', opened_on: '2019-07-01' },
    { number: 'A-004', balance: '0', opened_on: '2026-01-20' },
  ]);
  t.deepEqual(
    await knex('import_batches').where({ import_id: id }).orderBy('kind').select('kind', 'last_row', 'rows'),
    [
      { kind: 'member-accounts', last_row: 5, rows: 4 },
      { kind: 'members', last_row: 4, rows: 3 },
    ],
  );
  // The opening entry in the à-nouveaux journal at the cut-over, one journal entry per branch: the trial balance.
  const entries = await knex('journal_entries')
    .where({ enterprise_id: world.enterpriseId, journal_code: 'AN' })
    .select(knex.raw("to_char(entry_date, 'YYYY-MM-DD') AS entry_date"));
  t.deepEqual(
    entries.map((entry: { entry_date: string }) => entry.entry_date),
    ['2026-10-31', '2026-10-31'],
  );
  t.deepEqual(
    await Promise.all([ledger('HQ', '3711'), ledger('HQ', '5710'), ledger('HQ', '111'), ledger('B2', '3711')]),
    ['-1309567', '1409567', '-100000', '-250000'],
  );
}

/** The import's workflow ends applied and its history replays (recorded with RECORD_HISTORIES=1). */
async function assertHistoryReplays(t: ExecutionContext, client: Client, id: string): Promise<void> {
  const handle = client.workflow.getHandle(importWorkflowId(id));
  t.like(await handle.result(), { status: 'applied', reconciliation: { reconciled: true } });
  const { events } = await handle.fetchHistory();
  await t.notThrowsAsync(
    Worker.runReplayHistory(
      { workflowBundle: { codePath: testEnvironment().bundlePath } },
      { events },
      importWorkflowId(id),
    ),
  );
  if (process.env.RECORD_HISTORIES === '1')
    fs.writeFileSync(historyFile, historyToJSON(temporal.api.history.v1.History.create({ events })));
}

/** Cancelled under four eyes: the reversal takes the balances out, the accounts close and the members leave. */
async function assertCancelled(t: ExecutionContext, id: string): Promise<void> {
  await fourEyes(t, id, 'cancellation');
  t.like(await importPast(app, id, direction(), ['applied']), { status: 'cancelled' });
  t.deepEqual(
    await Promise.all([ledger('HQ', '3711'), ledger('HQ', '5710'), ledger('B2', '3711')]),
    ['0', '0', '0'],
    'the reversal takes the balances out',
  );
  t.deepEqual(await knex('comptes_clients').where({ import_id: id }).distinct('status').pluck('status'), ['closed']);
  t.deepEqual(await knex('client_profiles').where({ import_id: id }).distinct('status').pluck('status'), ['left']);
}

test.serial(
  'a tie-out difference blocks apply; accepted with its reason, it is posted to the suspense account 4780',
  (t) =>
    withWorker(
      knex,
      async () => {
        const { id } = await validatedImport(t, 'pipeline/trial-balance-off.csv');
        const refused = await app.request('POST', `/api/v1/imports/${id}/application/`, {
          headers: direction(),
          json: {},
        });
        t.like(refused.body, { status: 409, code: 'import_tie_out_difference' });
        await fourEyes(t, id, 'application', {
          difference_reason: 'Écart de 433 F sur les dépôts, justifié par le PV du 31/10',
        });
        const applied = await importPast(app, id, direction(), ['validated', 'applying']);
        t.like(applied, { status: 'applied', reconciliation: { reconciled: true, suspense: '-433' } });
        // 3711 keeps the accounts' 1 309 567; the 433 the trial balance had more is credited to the suspense account.
        t.deepEqual(await Promise.all([ledger('HQ', '3711'), ledger('HQ', '4780'), ledger('HQ', '5710')]), [
          '-1309567',
          '-433',
          '1410000',
        ]);
        // Cancelled, the members' numbers are free again for the other tests' files.
        await fourEyes(t, id, 'cancellation');
        t.like(await importPast(app, id, direction(), ['applied']), { status: 'cancelled' });
        t.is(await ledger('HQ', '4780'), '0');
      },
      taskQueue,
    ),
);

test('a recorded history of an import applied replays against the current workflow code', async (t) => {
  const history = JSON.parse(fs.readFileSync(historyFile, 'utf8'));
  await t.notThrowsAsync(
    Worker.runReplayHistory({ workflowBundle: { codePath: testEnvironment().bundlePath } }, history, 'recorded-import'),
  );
});
