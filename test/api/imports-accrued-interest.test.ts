import fs from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { importFourEyes, importPast, validateImport } from '../helpers/imports';
import { createLoanWorld, memberOf, setBusinessDate, type LoanWorld } from '../helpers/loans';
import { runMonthEnd } from '../helpers/month-ends';
import { testClock } from '../helpers/clock';
import { provisionBatch, startProvisioningRun } from '../../activities/loans/provisioning.activity';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * Issue 31, accrued interest in the go-live import (docs/domain.md §15.2): the loans file's `accrued_interest`, tied
 * out per branch on the product's accrued-interest account (3291 for the short-term CRT), written as standing
 * accruals that name the import, removed by a cancel, and reversed by the first month end after the cut-over, which
 * then accrues afresh. The files are hand-made (test/fixtures/imports/accrued-interest/); every figure below is
 * computed here from their lines.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
const fixture = (name: string) => fs.readFileSync(path.join(__dirname, '../fixtures/imports/accrued-interest', name));
const cutOver = '2026-10-31';
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
/** Another enterprise, whose cut-over falls within a month. */
let midMonth: LoanWorld;
/** A third, whose loan turns doubtful before any month end. */
let downgraded: LoanWorld;

test.before(async () => {
  knex = (await createTestDatabase(file)).knex;
  // Apply's approval wakes the import's workflow; else it would look at the import once a workflow day, here a minute.
  app = await startTestApp(file, { taskQueue, knex, workflowDayMs: 60_000 });
  world = await createLoanWorld(app, knex, 'IAI', { capital: false });
  midMonth = await createLoanWorld(app, knex, 'IAM', { capital: false });
  downgraded = await createLoanWorld(app, knex, 'IAD', { capital: false });
  // The borrowers, already the enterprise's: A-01's in the head office (HQ), A-02's in the other branch (B2).
  for (const coop of [world, midMonth, downgraded]) {
    for (const [number, branch] of [
      ['M301', coop.headOffice],
      ['M302', coop.otherBranch],
    ] as const) {
      await knex('client_profiles')
        .where({ id: await memberOf(coop, branch) })
        .update({ member_number: number });
    }
  }
});

const direction = (coop = world) => coop.users.direction!.headers;
const people = (coop = world) => ({ maker: direction(coop), checker: coop.users.root!.headers });

/**
 * The old system's accruals at the cut-over, as the loans file gives them: A-01's running installment (due
 * 15 November, 7 000 of interest) 16 days into its 31; A-02's (due 20 November, 4 000) 11 days into its 31.
 */
const imported = { 'A-01': 3613, 'A-02': 1419 };

/**
 * An import of the loans, their installments and a trial balance into `coop` at `cutOverDate`, validated by the
 * workflow.
 */
async function validatedImport(
  t: ExecutionContext,
  loans: string,
  trialBalance: string,
  coop = world,
  cutOverDate = cutOver,
) {
  const created = await app.request('POST', '/api/v1/imports/', {
    headers: direction(coop),
    json: { enterprise: coop.enterpriseId, cut_over_date: cutOverDate },
  });
  t.is(created.status, 201, created.text);
  const id = created.body.id as string;
  for (const [kind, name] of [
    ['loans', loans],
    ['loan-installments', 'loan-installments.csv'],
    ['trial-balance', trialBalance],
  ]) {
    const uploaded = await app.request('PUT', `/api/v1/imports/${id}/files/${kind}/`, {
      headers: { ...direction(coop), 'content-type': 'text/csv' },
      body: fixture(name!),
    });
    t.is(uploaded.status, 200, uploaded.text);
  }
  return { id, body: await validateImport(app, id, direction(coop)) };
}

/** The general ledger's debit − credit of an account in a branch of `coop`'s enterprise. */
async function ledger(branchCode: string, account: string, coop = world): Promise<string> {
  const row = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .join('branches as b', 'b.id', 'e.branch_id')
    .where({ 'e.enterprise_id': coop.enterpriseId, 'b.code': branchCode, 'c.code': account })
    .first(knex.raw('coalesce(sum(l.debit - l.credit), 0)::text AS balance'));
  return row.balance as string;
}

/** The import's standing accruals, by loan number. */
const accrualsOf = (id: string) =>
  knex('loan_interest_accruals as a')
    .join('loans as l', 'l.id', 'a.loan_id')
    .where('a.import_id', id)
    .orderBy('l.number')
    .select(
      'l.number',
      'a.period',
      'a.amount',
      'a.accrued_interest_account',
      'a.interest_income_account',
      'a.run_id',
      'a.entry_id',
      'a.reversed_by',
    );

/**
 * November's own accruals at its month end: at 30 November, A-01's running installment (due 15 December, 6 000 of
 * interest) has run 15 of its 30 days; A-02's (due 20 December, 3 000) 10 of its 30; rounded half-up to the franc.
 */
const fresh = {
  'A-01': new Money(6000).times(15).div(30).toDecimalPlaces(0, Money.ROUND_HALF_UP),
  'A-02': new Money(3000).times(10).div(30).toDecimalPlaces(0, Money.ROUND_HALF_UP),
};

async function appliedImport(t: ExecutionContext, coop = world, cutOverDate = cutOver): Promise<string> {
  const { id, body } = await validatedImport(t, 'loans.csv', 'trial-balance.csv', coop, cutOverDate);
  t.like(body, { status: 'validated', problems: 0, differences: 0 });
  await importFourEyes(app, id, 'application', people(coop));
  const applied = await importPast(app, id, direction(coop), ['validated', 'applying']);
  t.like(applied, { status: 'applied', reconciliation: { reconciled: true, suspense: '0' } });
  return id;
}

test.serial(
  "accrued interest ties out per branch on the product's accrued-interest account, and the dry run totals it",
  (t) =>
    withWorker(
      knex,
      async () => {
        const { id, body } = await validatedImport(t, 'loans.csv', 'trial-balance.csv');
        t.like(body, { status: 'validated', problems: 0, differences: 0 });
        const tieOut = await app.request('GET', `/api/v1/imports/${id}/tie-out/?page_size=100`, {
          headers: direction(),
        });
        const accrued = (tieOut.body.results as { account_code: string }[]).filter(
          (pair) => pair.account_code === '3291',
        );
        t.deepEqual(accrued, [
          {
            branch_code: 'B2',
            account_code: '3291',
            what: 'loans in progress, accrued interest',
            trial_balance: String(imported['A-02']),
            detail: String(imported['A-02']),
            difference: '0',
          },
          {
            branch_code: 'HQ',
            account_code: '3291',
            what: 'loans in progress, accrued interest',
            trial_balance: String(imported['A-01']),
            detail: String(imported['A-01']),
            difference: '0',
          },
        ]);
        const detail = (
          body.dry_run as { detail: { branch_code: string; account_code: string; amount: string }[] }
        ).detail.filter((line) => line.account_code === '3291');
        t.deepEqual(
          detail.map((line) => `${line.branch_code} ${line.amount}`),
          [`B2 ${imported['A-02']}`, `HQ ${imported['A-01']}`],
        );
      },
      taskQueue,
    ),
);

test.serial('a difference on accrued interest blocks apply', (t) =>
  withWorker(
    knex,
    async () => {
      const { id, body } = await validatedImport(t, 'loans.csv', 'trial-balance-off.csv');
      t.like(body, { status: 'validated', differences: 1 });
      const tieOut = await app.request('GET', `/api/v1/imports/${id}/tie-out/?differences=true`, {
        headers: direction(),
      });
      // The trial balance's 3 600 on HQ's 3291 against A-01's 3 613.
      t.deepEqual(tieOut.body.results, [
        {
          branch_code: 'HQ',
          account_code: '3291',
          what: 'loans in progress, accrued interest',
          trial_balance: '3600',
          detail: String(imported['A-01']),
          difference: String(3600 - imported['A-01']),
        },
      ]);
      const refused = await app.request('POST', `/api/v1/imports/${id}/application/`, {
        headers: direction(),
        json: {},
      });
      t.like(refused.body, { status: 409, code: 'import_tie_out_difference' });
      t.is(
        await knex('loan_interest_accruals')
          .where({ import_id: id })
          .count({ count: '*' })
          .first()
          .then((row) => Number(row!.count)),
        0,
      );
    },
    taskQueue,
  ),
);

test.serial('accrued interest is refused below zero and on a loan not performing', (t) =>
  withWorker(
    knex,
    async () => {
      const { id, body } = await validatedImport(t, 'loans-bad.csv', 'trial-balance.csv');
      t.like(body, { status: 'rejected' });
      const report = await app.request('GET', `/api/v1/imports/${id}/report/?page_size=100`, { headers: direction() });
      const problems = (
        report.body.results as { kind: string; row: number; column: string; value: string; problem: string }[]
      )
        .filter((problem) => problem.column === 'accrued_interest')
        .map((problem) => `${problem.row} '${problem.value}': ${problem.problem}`);
      t.is(problems.length, 2, problems.join('\n'));
      t.regex(problems[0]!, /^2 '-3 613': /);
      t.is(problems[1], "3 '1 419': only a performing loan accrues interest (this one is overdue)");
    },
    taskQueue,
  ),
);

test.serial("applied, each loan's accrued interest stands as an accrual of the import; a cancel removes them", (t) =>
  withWorker(
    knex,
    async () => {
      const id = await appliedImport(t);
      // The opening entry carries the ledger's side: no accrual entry of their own.
      t.deepEqual(
        await accrualsOf(id),
        (['A-01', 'A-02'] as const).map((number) => ({
          number,
          period: cutOver.slice(0, 7),
          amount: String(imported[number]),
          accrued_interest_account: '3291',
          interest_income_account: '713',
          run_id: null,
          entry_id: null,
          reversed_by: null,
        })),
      );
      t.deepEqual(await Promise.all([ledger('HQ', '3291'), ledger('B2', '3291')]), [
        String(imported['A-01']),
        String(imported['A-02']),
      ]);
      await importFourEyes(app, id, 'cancellation', people());
      t.like(await importPast(app, id, direction(), ['applied']), { status: 'cancelled' });
      t.deepEqual(await accrualsOf(id), []);
      t.deepEqual(await Promise.all([ledger('HQ', '3291'), ledger('B2', '3291')]), ['0', '0']);
    },
    taskQueue,
  ),
);

test.serial(
  'no month end of a month before the cut-over; the first after it ' +
    'reverses the imported accruals on its first day and accrues afresh',
  (t) =>
    withWorker(
      knex,
      async () => {
        const id = await appliedImport(t);
        await setBusinessDate(world, '2026-12-01');
        // September ended before the cut-over: the old system's books, never accrued by Coopbank.
        t.like(await runMonthEnd(world, '2026-09'), { status: 409, body: { code: 'month_end_before_cut_over' } });
        t.is(
          (await knex('month_end_runs').where({ enterprise_id: world.enterpriseId }).pluck('id')).length,
          0,
          'the refusal opened no run',
        );
        const run = await runMonthEnd(world, '2026-11');
        t.is(run.body.status, 'done', run.text);
        // Reversed on 1 November by the month end, as its own accruals are.
        t.deepEqual(
          (await accrualsOf(id)).map((row) => `${row.number} ${row.reversed_by}`),
          ['A-01 month_end', 'A-02 month_end'],
        );
        const reversals = await knex('journal_entries as e')
          .join('loan_interest_accruals as a', 'a.reversal_entry_id', 'e.id')
          .where('a.import_id', id)
          .distinct(knex.raw("to_char(e.entry_date, 'YYYY-MM-DD') AS entry_date"), 'e.journal_code');
        t.deepEqual(reversals, [{ entry_date: '2026-11-01', journal_code: 'INT' }]);
        const accrued = await knex('loan_interest_accruals as a')
          .join('loans as l', 'l.id', 'a.loan_id')
          .where({ 'l.import_id': id, 'a.period': '2026-11' })
          .orderBy('l.number')
          .select('l.number', 'a.amount');
        t.deepEqual(
          accrued.map((row) => `${row.number} ${row.amount}`),
          [`A-01 ${fresh['A-01'].toFixed(0)}`, `A-02 ${fresh['A-02'].toFixed(0)}`],
        );
        // The ledger's 3291 holds the fresh accrual only; interest income nets the fresh accrual less the imported one.
        t.deepEqual(await Promise.all([ledger('HQ', '3291'), ledger('B2', '3291')]), [
          fresh['A-01'].toFixed(0),
          fresh['A-02'].toFixed(0),
        ]);
        t.is(await ledger('HQ', '713'), new Money(imported['A-01']).minus(fresh['A-01']).toFixed(0));
      },
      taskQueue,
    ),
);

test.serial(
  "a cut-over within a month: that month's own month end reverses the " +
    'imported accruals on the cut-over date and accrues afresh beside them',
  (t) =>
    withWorker(
      knex,
      async () => {
        const id = await appliedImport(t, midMonth, '2026-11-14');
        await setBusinessDate(midMonth, '2026-12-01');
        const run = await runMonthEnd(midMonth, '2026-11');
        t.is(run.body.status, 'done', run.text);
        // Reversed on the cut-over, never before the opening entry that carries them.
        const reversals = await knex('journal_entries as e')
          .join('loan_interest_accruals as a', 'a.reversal_entry_id', 'e.id')
          .where('a.import_id', id)
          .distinct(knex.raw("to_char(e.entry_date, 'YYYY-MM-DD') AS entry_date"), 'a.reversed_by');
        t.deepEqual(reversals, [{ entry_date: '2026-11-14', reversed_by: 'month_end' }]);
        // The month's own accruals stand beside the imported ones of the same period.
        const november = await knex('loan_interest_accruals as a')
          .join('loans as l', 'l.id', 'a.loan_id')
          .where({ 'l.import_id': id, 'a.period': '2026-11' })
          .orderBy(['l.number', 'a.id'])
          .select('l.number', 'a.amount', knex.raw('a.import_id IS NOT NULL AS imported'));
        t.deepEqual(
          november.map((row) => `${row.number} ${row.amount} ${row.imported ? 'imported' : 'month end'}`),
          [
            `A-01 ${imported['A-01']} imported`,
            `A-01 ${fresh['A-01'].toFixed(0)} month end`,
            `A-02 ${imported['A-02']} imported`,
            `A-02 ${fresh['A-02'].toFixed(0)} month end`,
          ],
        );
        t.deepEqual(await Promise.all([ledger('HQ', '3291', midMonth), ledger('B2', '3291', midMonth)]), [
          fresh['A-01'].toFixed(0),
          fresh['A-02'].toFixed(0),
        ]);
      },
      taskQueue,
    ),
);

test.serial(
  'a loan reclassified doubtful before the first month end has ' +
    "its imported accrual reversed at once, on the run's date",
  (t) =>
    withWorker(
      knex,
      async () => {
        const id = await appliedImport(t, downgraded);
        await setBusinessDate(downgraded, '2026-12-31');
        // At 31 December, A-01's installment of 15 November is 46 days unpaid: doubtful (beyond 45); A-02's of 20
        // November 41: overdue.
        const run = await startProvisioningRun(knex, testClock(), {
          enterpriseId: downgraded.enterpriseId,
          asOf: '2026-12-31',
          trigger: 'api',
          requestedBy: null,
        });
        for (let status = 'running'; status === 'running';)
          status = (await provisionBatch(knex, testClock(), { runId: run.id, batchSize: 1000 })).status;
        t.deepEqual(
          (await accrualsOf(id)).map((row) => `${row.number} ${row.reversed_by}`),
          ['A-01 reclassification', 'A-02 null'],
        );
        const reversal = await knex('journal_entries as e')
          .join('loan_interest_accruals as a', 'a.reversal_entry_id', 'e.id')
          .where('a.import_id', id)
          .first(knex.raw("to_char(e.entry_date, 'YYYY-MM-DD') AS entry_date"));
        t.is(reversal.entry_date, '2026-12-31');
        t.deepEqual(await Promise.all([ledger('HQ', '3291', downgraded), ledger('B2', '3291', downgraded)]), [
          '0',
          String(imported['A-02']),
        ]);
      },
      taskQueue,
    ),
);
