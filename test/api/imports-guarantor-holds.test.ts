import fs from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { heldAmount } from '../../activities/members/account-holds';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { importFourEyes, importPast, validateImport } from '../helpers/imports';
import { createLoanWorld, memberOf, openSavingsAccount, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * Issue 31, guarantors' holds in the go-live import (docs/domain.md §15.2): a loans row's `guarantee_held_account`
 * holds the guarantee's value on the guarantor's own account, as a guarantee brought in force through the API does
 * (§14.4). Validated against the member-accounts file and the enterprise's accounts, applied as the guarantee's
 * hold, released by a cancel. The files are hand-made (test/fixtures/imports/guarantor-holds/).
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
const fixture = (name: string) =>
  fs.readFileSync(path.join(__dirname, '../fixtures/imports/guarantor-holds', name), 'utf8');
let app: TestApp;
let knex: Knex;
/** The enterprise the import is applied to: none of its accounts but the import's, so its deposits reconcile. */
let applied: LoanWorld;
/** An enterprise whose guarantor M403 already has an account, of 100 000. */
let judged: LoanWorld;
let existingAccount: string;

test.before(async () => {
  knex = (await createTestDatabase(file)).knex;
  // The approval wakes the import's workflow at once; a workflow day of a minute is its fallback.
  app = await startTestApp(file, { knex, taskQueue, workflowDayMs: 60_000 });
  applied = await createLoanWorld(app, knex, 'IGH', { capital: false });
  judged = await createLoanWorld(app, knex, 'IGV', { capital: false });
  for (const coop of [applied, judged]) {
    for (const number of ['M401', 'M402', 'M403', 'M404'])
      await knex('client_profiles')
        .where({ id: await memberOf(coop) })
        .update({ member_number: number });
  }
  const guarantor = await knex('client_profiles')
    .where({ enterprise_id: judged.enterpriseId, member_number: 'M403' })
    .first('id');
  const accountId = await openSavingsAccount(judged, guarantor.id, '100000');
  existingAccount = (await knex('comptes_clients').where({ id: accountId }).first('number')).number as string;
});

/**
 * An import of the member accounts, the loans (`{EXISTING}` read as M403's account) and, when given, a trial balance,
 * validated.
 */
async function validatedImport(t: ExecutionContext, coop: LoanWorld, loans: string, trialBalance?: string) {
  const headers = coop.users.direction!.headers;
  const created = await app.request('POST', '/api/v1/imports/', {
    headers,
    json: { enterprise: coop.enterpriseId, cut_over_date: '2026-10-31' },
  });
  t.is(created.status, 201, created.text);
  const id = created.body.id as string;
  const files = [
    ['member-accounts', 'member-accounts.csv'],
    ['loans', loans],
    ...(trialBalance === undefined ? [] : [['trial-balance', trialBalance]]),
  ];
  for (const [kind, name] of files) {
    const body = fixture(name!).replace('{EXISTING}', existingAccount);
    const uploaded = await app.request('PUT', `/api/v1/imports/${id}/files/${kind}/`, {
      headers: { ...headers, 'content-type': 'text/csv' },
      body,
    });
    t.is(uploaded.status, 200, uploaded.text);
  }
  return { id, body: await validateImport(app, id, headers) };
}

test.serial(
  "a held account is the guarantor's own, known, and its balance at the cut-over covers every hold on it",
  (t) =>
    withWorker(
      knex,
      async () => {
        const { id, body } = await validatedImport(t, judged, 'loans-bad.csv');
        t.like(body, { status: 'rejected' });
        const report = await app.request('GET', `/api/v1/imports/${id}/report/?page_size=100`, {
          headers: judged.users.direction!.headers,
        });
        const problems = (
          report.body.results as { kind: string; row: number; column: string; value: string; problem: string }[]
        )
          .map((problem) => `${problem.kind} ${problem.row} ${problem.column} '${problem.value}': ${problem.problem}`)
          .sort();
        const notCovered =
          "its balance at the cut-over, less its product's minimum balance and " +
          'the holds already on it, does not cover the holds of the file on it';
        t.deepEqual(
          problems,
          [
            // H-402's 300 000 hold 200 000 for B-01 and 150 000 for B-02: both rows are told.
            `loans 2 guarantee_held_account 'H-402': ${notCovered}`,
            `loans 3 guarantee_held_account 'H-402': ${notCovered}`,
            "loans 4 guarantee_held_account 'H-999': neither in the " +
              'member-accounts file nor an open account of the enterprise',
            "loans 5 guarantee_held_account 'H-401': not the guarantor's own account",
            "loans 6 guarantee_held_account 'H-401': a held account without a guarantor",
            // M403's account of the enterprise: 100 000, for a hold of 150 000.
            `loans 7 guarantee_held_account '${existingAccount}': ${notCovered}`,
          ].sort(),
        );
      },
      taskQueue,
    ),
);

test.serial("applied, a guarantee holds its value on the guarantor's account; a cancel releases it", (t) =>
  withWorker(
    knex,
    async () => {
      const { id, body } = await validatedImport(t, applied, 'loans.csv', 'trial-balance.csv');
      t.like(body, { status: 'validated', problems: 0, differences: 0 });
      const people = { maker: applied.users.direction!.headers, checker: applied.users.root!.headers };
      await importFourEyes(app, id, 'application', people);
      t.like(await importPast(app, id, people.maker, ['validated', 'applying']), {
        status: 'applied',
        reconciliation: { reconciled: true },
      });
      const account = await knex('comptes_clients')
        .where({ enterprise_id: applied.enterpriseId, number: 'H-402' })
        .first('id', 'balance');
      const guarantees = await knex('loan_guarantees as g')
        .join('loans as l', 'l.id', 'g.loan_id')
        .where('l.import_id', id)
        .orderBy('l.number')
        .select('l.number', 'g.value', 'g.compte_client_id', 'g.status');
      t.deepEqual(guarantees, [
        { number: 'G-01', value: '200000', compte_client_id: account.id, status: 'in_force' },
        { number: 'G-02', value: '100000', compte_client_id: account.id, status: 'in_force' },
      ]);
      // Both holds, 200 000 + 100 000: the whole of the account's 300 000.
      t.is((await heldAmount(knex, account.id)).toFixed(0), String(200_000 + 100_000));
      t.is(account.balance, '300000');
      await importFourEyes(app, id, 'cancellation', people);
      t.like(await importPast(app, id, people.maker, ['applied']), { status: 'cancelled' });
      t.is((await heldAmount(knex, account.id)).toFixed(0), '0');
    },
    taskQueue,
  ),
);
