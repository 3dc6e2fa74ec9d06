import fs from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { interestFigures } from '../../activities/members/interest-figures';
import { CompteClient } from '../../db/models/compte-client.model';
import { SavingsProduct } from '../../db/models/savings-product.model';
import { Money } from '../../domain/money';
import type { TestApp } from '../helpers/app';
import type { LoanWorld } from '../helpers/loans';
import { importPast, importWorld, validateImport } from '../helpers/imports';
import { depositTo } from '../helpers/savings';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * An imported account's statement and the members' reconciliation (issue 31, docs/domain.md §15.1): the account
 * starts with its balance at the cut-over, dated then, naming its branch's opening entry; the running balance goes
 * on from it; the reconciliation counts it; a cancelled import's accounts lose it. The files are the pipeline's
 * hand-made ones (test/fixtures/imports/), and every figure below is read off them here.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
const fixture = (name: string) => fs.readFileSync(path.join(__dirname, '../fixtures/imports', name));
const cutOverDate = '2026-10-31';
// The accounts file's balances: A-003 "75 000,00" (M003, HQ), A-004 0 (M-EXIST, HQ).
const a003Opening = 75_000;
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

test.before(async () => {
  ({ app, knex, world } = await importWorld(file, taskQueue, 'IST'));
});

const direction = () => world.users.direction!.headers;

/**
 * The members, accounts and trial balance of the pipeline's files imported at the cut-over, applied under four eyes.
 */
async function appliedImport(t: ExecutionContext): Promise<string> {
  const created = await app.request('POST', '/api/v1/imports/', {
    headers: direction(),
    json: { enterprise: world.enterpriseId, cut_over_date: cutOverDate },
  });
  t.is(created.status, 201, created.text);
  const id = created.body.id as string;
  for (const [kind, name] of [
    ['members', 'members-good.csv'],
    ['member-accounts', 'member-accounts-good.csv'],
    ['trial-balance', 'pipeline/trial-balance.csv'],
  ]) {
    const uploaded = await app.request('PUT', `/api/v1/imports/${id}/files/${kind}/`, {
      headers: { ...direction(), 'content-type': 'text/csv' },
      body: fixture(name!),
    });
    t.is(uploaded.status, 200, uploaded.text);
  }
  t.like(await validateImport(app, id, direction()), { status: 'validated' });
  await fourEyes(t, id, 'application');
  t.like(await importPast(app, id, direction(), ['validated', 'applying']), {
    status: 'applied',
    reconciliation: { reconciled: true },
  });
  return id;
}

/** The import's operation asked by its uploader, approved by the platform's administrator. */
async function fourEyes(t: ExecutionContext, id: string, operation: 'application' | 'cancellation') {
  const asked = await app.request('POST', `/api/v1/imports/${id}/${operation}/`, { headers: direction(), json: {} });
  t.is(asked.status, 202, asked.text);
  const approved = await app.request('POST', `/api/v1/approvals/requests/${asked.body.id as string}/approve/`, {
    headers: world.users.root!.headers,
    json: {},
  });
  t.is(approved.status, 200, approved.text);
}

const accountOf = async (importId: string, number: string) =>
  (await knex('comptes_clients').where({ import_id: importId }).where('number', 'like', `${number}%`).first('id'))
    .id as string;

async function statement(accountId: string, range = '') {
  const answer = await app.request('GET', `/api/v1/members/accounts/${accountId}/statement/?page_size=100${range}`, {
    headers: direction(),
  });
  if (answer.status !== 200) throw new Error(answer.text);
  return answer.body.results as Record<string, unknown>[];
}

const gaps = async () =>
  (
    await app.request('GET', `/api/v1/members/reconciliation/?enterprise=${world.enterpriseId}`, {
      headers: direction(),
    })
  ).body;

/** The journal entry of the import's opening entry in the head office (the à-nouveaux journal's, one per branch). */
async function headOfficeOpening(importId: string): Promise<string> {
  const { opening_entry_id: openingId } = await knex('imports').where({ id: importId }).first('opening_entry_id');
  return (
    await knex('manual_entry_lines')
      .where({ manual_entry_id: openingId, branch_id: world.headOffice })
      .first('journal_entry_id')
  ).journal_entry_id as string;
}

const openingLine = (amount: number, journalEntry: string) => ({
  kind: 'import.opening_balance',
  event: null,
  journal_entry: journalEntry,
  description: `Solde d'ouverture à la bascule (IMPORT-${cutOverDate})`,
  entry_date: cutOverDate,
  line: '0',
  amount: String(amount),
  running_balance: String(amount),
});

test.serial(
  "an imported account's statement starts with its opening balance; cancelled, the line goes with the account",
  (t) =>
    withWorker(
      knex,
      async () => {
        const id = await appliedImport(t);
        const hq = await headOfficeOpening(id);
        t.deepEqual(await statement(await accountOf(id, 'A-003')), [openingLine(a003Opening, hq)]);
        t.deepEqual(
          await statement(await accountOf(id, 'A-004')),
          [openingLine(0, hq)],
          'an account brought in empty starts at zero',
        );
        t.deepEqual(
          await statement(await accountOf(id, 'A-003'), '&date_to=2026-10-30'),
          [],
          'nothing before the cut-over',
        );
        t.like(await gaps(), { count: 0, results: [] });

        await fourEyes(t, id, 'cancellation');
        t.like(await importPast(app, id, direction(), ['applied']), { status: 'cancelled' });
        t.deepEqual(
          await statement(await accountOf(id, 'A-003')),
          [],
          'closed at zero, the account shows no opening balance',
        );
        t.like(await gaps(), { count: 0, results: [] });
      },
      taskQueue,
    ),
);

test.serial('a deposit after the cut-over runs on from the opening balance, and the reconciliation counts both', (t) =>
  withWorker(
    knex,
    async () => {
      const id = await appliedImport(t);
      const account = await accountOf(id, 'A-003');
      const deposit = 40_000;
      await depositTo(world, account, String(deposit));
      const lines = await statement(account);
      t.deepEqual(
        lines.map((line) => [line.kind, line.amount, line.running_balance]),
        [
          ['import.opening_balance', String(a003Opening), String(a003Opening)],
          ['deposit', String(deposit), String(a003Opening + deposit)],
        ],
      );
      t.truthy(lines[1]!.event, 'the deposit names its event');
      // A window after the cut-over: the deposit carries the opening balance brought forward.
      const later = await statement(account, '&date_from=2026-11-01');
      t.deepEqual(
        later.map((line) => [line.kind, line.running_balance]),
        [['deposit', String(a003Opening + deposit)]],
      );
      t.is(
        (await knex('comptes_clients').where({ id: account }).first('balance')).balance,
        String(a003Opening + deposit),
      );
      t.like(await gaps(), { count: 0, results: [] });
      await interestOnTheOpeningBalance(t, await accountOf(id, 'A-001'));
    },
    taskQueue,
  ),
);

/**
 * The savings interest's balance history starts from the imported balance at the cut-over, and holds nothing before.
 */
async function interestOnTheOpeningBalance(t: ExecutionContext, accountId: string) {
  const account = (await CompteClient.query(knex).findById(accountId))!;
  const product = (await SavingsProduct.query(knex).findById(account.productId))!;
  const rates = [{ from: '2026-01-01', annualRate: new Money('0.036') }];
  const grossOver = async (from: string, to: string) =>
    (await knex.transaction((trx) => interestFigures(trx, account, product, { from, to }, rates))).gross.toString();
  // November at 3.6 % a year, the product's minimum monthly balance and 30/360: A-001's 1 234 567 all month, 3 703.70
  // rounded.
  const [numerator, denominator] = [1_234_567n * 36n * 30n, 1000n * 360n];
  t.is(await grossOver('2026-11-01', '2026-11-30'), String((numerator * 2n + denominator) / (2n * denominator)));
  t.is(await grossOver('2026-10-01', '2026-10-30'), '0', "before the cut-over, the old system's");
}
