import fs from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import type { DetailTotal, ImportScope } from '../../activities/imports/import-steps';
import { importKindSteps } from '../../activities/imports/kinds';
import { provisionBatch, startProvisioningRun } from '../../activities/loans/provisioning.activity';
import { Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { startTestApp, testActivityContext, type TestApp } from '../helpers/app';
import { testClock } from '../helpers/clock';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, type LoanWorld } from '../helpers/loans';
import { validateImport } from '../helpers/imports';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * Issue 31, loans in progress (docs/domain.md §15.2): a small cooperative's loans and installments, hand-made in
 * test/fixtures/imports/small-cooperative/, validated through the API, their detail totals read, applied in batches
 * by the kind's steps (the import workflow is another part's), then provisioned at the cut-over date: every loan's
 * class and provision must be the file's, and the run must find nothing to change. Every expected figure is
 * computed here from the files' figures and the default ladder of R-2017/07 as docs/domain.md §4 states it.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
const fixture = (name: string) => fs.readFileSync(path.join(__dirname, '../fixtures/imports', name));
const cutOver = '2026-10-31';
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
/** Another enterprise: its imports change nothing the small cooperative's provisioning run counts. */
let other: LoanWorld;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'ILN', { capital: false });
  other = await createLoanWorld(app, knex, 'ILO', { capital: false });
  const members: [string, string][] = [
    ['M101', world.headOffice],
    ['M102', world.headOffice],
    ['M103', world.otherBranch],
    ['M104', world.otherBranch],
    ['M105', world.headOffice],
  ];
  for (const number of ['M201', 'M202', 'M203', 'M204', 'M205', 'M206']) members.push([number, world.headOffice]);
  for (const [number, branch] of members)
    await knex('client_profiles')
      .where({ id: await memberOf(world, branch) })
      .update({ member_number: number });
  await knex('client_profiles')
    .where({ id: await memberOf(other) })
    .update({ member_number: 'M-OTHER' });
});

const direction = () => world.users.direction!.headers;
/** The import once its workflow has validated it (a worker runs it meanwhile). */
const validate = (id: string, headers = direction()) =>
  withWorker(knex, () => validateImport(app, id, headers), taskQueue);

async function importOf(t: ExecutionContext, loans: string, installments: string, into = world): Promise<string> {
  const headers = into.users.direction!.headers;
  const created = await app.request('POST', '/api/v1/imports/', {
    headers,
    json: { enterprise: into.enterpriseId, cut_over_date: cutOver },
  });
  t.is(created.status, 201, created.text);
  const id = created.body.id as string;
  for (const [kind, name] of [
    ['loans', loans],
    ['loan-installments', installments],
  ]) {
    const uploaded = await app.request('PUT', `/api/v1/imports/${id}/files/${kind}/`, {
      headers: { ...headers, 'content-type': 'text/csv' },
      body: fixture(name!),
    });
    t.is(uploaded.status, 200, uploaded.text);
  }
  return id;
}

async function problemsOf(id: string): Promise<string[]> {
  const report = await app.request('GET', `/api/v1/imports/${id}/report/?page_size=100`, { headers: direction() });
  return (report.body.results as { kind: string; row: number; column: string; value: string; problem: string }[])
    .map((problem) => `${problem.kind} ${problem.row} ${problem.column} '${problem.value}': ${problem.problem}`)
    .sort();
}

const scopeOf = (importId: string, of = world): ImportScope => ({
  importId,
  enterpriseId: of.enterpriseId,
  cutOverDate: cutOver,
});
const countOf = async (table: string) => Number((await knex(table).count({ count: '*' }).first())!.count);

/**
 * Each loan of the file: its outstanding principal (amount less principal repaid) and, from the ladder rate of its
 * borrower's age, its provision.
 */
const expectedLoans = [
  // Installment of 31 October due on the cut-over date: not yet late.
  { number: 'P-0101', branch: 'head', outstanding: 600_000 - 300_000, class: 'performing', days: 0, rate: 0 },
  // 30 September unpaid: 31 days, overdue (up to 45), provisioned at 0 %.
  { number: 'P-0102', branch: 'head', outstanding: 1_200_000 - 500_000, class: 'overdue', days: 31, rate: 0 },
  // 31 May unpaid: 153 days, doubtful, 50 % (91 to 180 days).
  { number: 'P-0103', branch: 'other', outstanding: 900_000 - 300_000, class: 'doubtful', days: 153, rate: 0.5 },
  // 31 July unpaid: 92 days, but litigious: 100 % at once (R-2017/07 Arts. 17, 22).
  { number: 'P-0104', branch: 'other', outstanding: 500_000 - 200_000, class: 'doubtful', days: 92, rate: 1 },
  // 14 April unpaid: 200 days, 75 % (181 to 365 days).
  { number: 'P-0105', branch: 'head', outstanding: 400_000 - 200_000, class: 'doubtful', days: 200, rate: 0.75 },
  // Up to date, but its borrower's other loan is 200 days late: doubtful by contagion, at the borrower's 75 %.
  { number: 'P-0106', branch: 'head', outstanding: 300_000, class: 'doubtful', days: 0, rate: 0.75 },
].map((loan) => ({ ...loan, provision: Math.round(loan.outstanding * loan.rate) }));

test(
  "a small cooperative's loans in progress validate, tie out per branch and account, " +
    "apply, and provision at the cut-over to the file's classes and provisions",
  async (t) => {
    const id = await importOf(t, 'small-cooperative/loans.csv', 'small-cooperative/loan-installments.csv');
    const validated = await validate(id);
    t.deepEqual(await problemsOf(id), []);
    t.like(validated, { status: 'validated', problems: 0 });
    const scope = scopeOf(id);
    await assertDetailTotals(t, scope);

    // Applied two loans a batch: nothing posted (the opening entry carries the ledger).
    const [events, lines] = [await countOf('business_event_logs'), await countOf('journal_lines')];
    t.deepEqual(await appliedBatches(scope), [3, 5, 7, null]);
    t.deepEqual([await countOf('business_event_logs'), await countOf('journal_lines')], [events, lines]);
    await assertLoansAsFiled(t, id);

    await assertProvisioningChangesNothing(t);
    t.deepEqual([await countOf('business_event_logs'), await countOf('journal_lines')], [events, lines]);
    await assertLoansAsFiled(t, id);
    await assertProvisionsAsFiled(t, id);

    // Cancelled: the loans leave the active portfolio, their numbers free for a corrected import.
    await inTransaction(knex, async (trx) => importKindSteps.loans!.cancel!(trx, scope));
    t.deepEqual(await knex('loans').where({ import_id: id }).distinct('status', 'disbursed_on'), [
      { status: 'cancelled', disbursed_on: null },
    ]);
    t.like(
      await knex('loan_guarantees as g')
        .join('loans as l', 'l.id', 'g.loan_id')
        .where('l.import_id', id)
        .first(knex.raw(`to_char(g.end_date, 'YYYY-MM-DD') AS end_date`)),
      { end_date: cutOver },
    );
    const again = await importOf(t, 'small-cooperative/loans.csv', 'small-cooperative/loan-installments.csv');
    t.like(await validate(again), { status: 'validated', problems: 0 });
  },
);

/**
 * Detail totals: principal by class (performing on the product's portfolio account, overdue 3312, doubtful 3352) and
 * provisions on 3931, a credit.
 */
async function assertDetailTotals(t: ExecutionContext, scope: ImportScope): Promise<void> {
  const branchCode = async (branchId: string) =>
    (await knex('branches').where({ id: branchId }).first('code')).code as string;
  const [head, other] = [await branchCode(world.headOffice), await branchCode(world.otherBranch)];
  const portfolio = (await knex('loan_products').where({ id: world.productId }).first('portfolio_account_code'))
    .portfolio_account_code as string;
  const sum = (
    branch: string,
    filter: (loan: (typeof expectedLoans)[number]) => boolean,
    figure: 'outstanding' | 'provision',
  ) =>
    expectedLoans
      .filter((loan) => loan.branch === branch && filter(loan))
      .reduce((total, loan) => total + loan[figure], 0);
  const expectedTotals = [
    [head, portfolio, sum('head', (loan) => loan.class === 'performing', 'outstanding')],
    [head, '3312', sum('head', (loan) => loan.class === 'overdue', 'outstanding')],
    [head, '3352', sum('head', (loan) => loan.class === 'doubtful', 'outstanding')],
    [head, '3931', -sum('head', () => true, 'provision')],
    [other, '3352', sum('other', (loan) => loan.class === 'doubtful', 'outstanding')],
    [other, '3931', -sum('other', () => true, 'provision')],
  ]
    .map(([branch, account, balance]) => `${branch} ${account} ${balance}`)
    .sort();
  for (const written of [
    `${head} ${portfolio} 300000`,
    `${head} 3312 700000`,
    `${head} 3931 -375000`,
    `${other} 3352 900000`,
  ])
    t.true(expectedTotals.includes(written), written);
  const totals = await inTransaction(knex, async (trx) => importKindSteps.loans!.detailTotals!(trx, scope));
  t.deepEqual(
    totals.map((total: DetailTotal) => `${total.branchCode} ${total.accountCode} ${total.balance.toFixed(0)}`).sort(),
    expectedTotals,
  );
}

/** Applies the import's loans in batches of a size, each in its transaction; returns each batch's last row. */
async function appliedBatches(scope: ImportScope, size = 2): Promise<(number | null)[]> {
  const applied: (number | null)[] = [];
  for (let after: number | null = 0; after !== null;) {
    const last: number | null = await inTransaction(knex, async (trx) =>
      importKindSteps.loans!.applyBatch!(trx, testActivityContext(knex), scope, after!, size),
    );
    applied.push(last);
    after = last;
  }
  return applied;
}

/** The provisioning run at the cut-over finds what the old system had: no class, provision or account to change. */
async function assertProvisioningChangesNothing(t: ExecutionContext): Promise<void> {
  const run = await startProvisioningRun(knex, testClock(), {
    enterpriseId: world.enterpriseId,
    asOf: cutOver,
    trigger: 'api',
    requestedBy: null,
  });
  for (let status = 'running'; status === 'running';)
    status = (await provisionBatch(knex, testClock(), { runId: run.id, batchSize: 1000 })).status;
  t.like(await knex('provisioning_runs').where({ id: run.id }).first(), {
    status: 'completed',
    loans_processed: 6,
    provisions_changed: 0,
    loans_reclassified: 0,
  });
}

/** Every loan not performing has its provision of the file's class and amount, unchanged by the run. */
async function assertProvisionsAsFiled(t: ExecutionContext, importId: string): Promise<void> {
  const rows = await knex('loan_provisions as p')
    .join('loans as l', 'l.id', 'p.loan_id')
    .where('l.import_id', importId)
    .orderBy('l.number')
    .select('l.number', 'p.classification', 'p.amount', 'p.delta');
  t.deepEqual(
    rows.map((row) => `${row.number} ${row.classification} ${row.amount} ${row.delta}`),
    expectedLoans
      .filter((loan) => loan.class !== 'performing')
      .map((loan) => `${loan.number} ${loan.class} ${loan.provision} 0`),
  );
}

/**
 * Every loan as the file gives it: active, its class, days past due, outstanding principal and provision, its schedule
 * and version 1, its guarantor.
 */
async function assertLoansAsFiled(t: ExecutionContext, importId: string): Promise<void> {
  const loans = await knex('loans')
    .where({ import_id: importId })
    .orderBy('number')
    .select(
      'id',
      'number',
      'status',
      'classification',
      'days_past_due',
      'outstanding_principal',
      'provision_amount',
      'application_id',
      'loan_officer_id',
      'branch_id',
    );
  t.deepEqual(
    loans.map(
      (loan) =>
        `${loan.number} ${loan.status} ${loan.classification} ${loan.days_past_due} ` +
        `${loan.outstanding_principal} ${loan.provision_amount}`,
    ),
    expectedLoans.map(
      (loan) => `${loan.number} active ${loan.class} ${loan.days} ${loan.outstanding} ${loan.provision}`,
    ),
  );
  t.true(loans.every((loan) => loan.application_id === null && loan.loan_officer_id === world.users.direction!.id));
  t.is(loans.find((loan) => loan.number === 'P-0103')!.branch_id, world.otherBranch);
  const installments = await knex('loan_installments')
    .whereIn(
      'loan_id',
      loans.map((loan) => loan.id),
    )
    .count({ count: '*' })
    .first();
  t.is(Number(installments!.count), 6 + 12 + 9 + 5 + 4 + 3);
  const versions = await knex('loan_schedule_versions')
    .whereIn(
      'loan_id',
      loans.map((loan) => loan.id),
    )
    .where({ version: 1, reason: 'original' })
    .select('outstanding_principal');
  const disbursed = 600_000 + 1_200_000 + 900_000 + 500_000 + 400_000 + 300_000;
  t.is(
    versions.reduce((total, version) => total.plus(version.outstanding_principal), new Money(0)).toFixed(0),
    String(disbursed),
  );
  const guaranteed = loans.find((loan) => loan.number === 'P-0104')!.id;
  const guarantee = await knex('loan_guarantees as g')
    .join('client_profiles as c', 'c.id', 'g.guarantor_client_id')
    .where('g.loan_id', guaranteed)
    .first('g.kind', 'g.value', 'c.member_number');
  t.like(guarantee, { kind: 'personal_guarantor', value: '200000', member_number: 'M101' });
}

test(
  'bad loans get their problems and nothing is written: payments over the amount, ' +
    "a schedule off its amount, an unknown product, a loan twice, another enterprise's member",
  async (t) => {
    const loansBefore = await countOf('loans');
    const id = await importOf(t, 'loans-bad.csv', 'loan-installments-bad.csv');
    t.like(await validate(id), { status: 'rejected', problems: 10 });
    t.deepEqual(
      await problemsOf(id),
      [
        "loan-installments 11 loan_number 'B-9': not a loan of the loans file",
        "loan-installments 2 principal_paid '150000': over the principal due (100000)",
        "loans 2 principal_paid '350 000': payments exceed the loan's amount (300 000)",
        "loans 3 original_amount '500 000': the schedule's principal sums to 400000",
        "loans 4 product_code 'XYZ': not a loan product of the enterprise",
        "loans 5 loan_number 'B-4': twice in the file",
        "loans 6 loan_number 'B-4': twice in the file",
        "loans 7 member_number 'M-OTHER': neither in the members file nor a member of the enterprise",
        // 31 August unpaid: 61 days at the cut-over, beyond the 45 of an overdue loan.
        "loans 8 classification 'performing': COBAC R-2017/07 gives doubtful: " +
          "61 days past due, the borrower's oldest arrears 61 days",
        "loans 9 provision '150 000': over the outstanding principal (100000)",
      ].sort(),
    );
    t.is(await countOf('loans'), loansBefore);
  },
);

test(
  'a loan the installments file leaves out gets its schedule regenerated from its ' +
    'terms and its product: monthly annuities from a month after the disbursement',
  async (t) => {
    const id = await importOf(t, 'regenerated/loans.csv', 'regenerated/loan-installments.csv', other);
    t.like(await validate(id, other.users.direction!.headers), { status: 'validated', problems: 0 });
    await appliedBatches(scopeOf(id, other), 10);
    const loan = await knex('loans')
      .where({ enterprise_id: other.enterpriseId, number: 'R-0201' })
      .first('id', 'term_periods', 'days_past_due', 'outstanding_principal');
    t.like(loan, { term_periods: 12, days_past_due: 0, outstanding_principal: '120000' });
    const installments = await knex('loan_installments')
      .where({ loan_id: loan.id })
      .orderBy('number')
      .select(knex.raw("to_char(due_date, 'YYYY-MM-DD') AS due_date"), 'principal_due', 'interest_due');
    t.deepEqual([installments[0].due_date, installments[11].due_date], ['2026-11-15', '2027-10-15']);
    // The product's constant annuity at 12 % a year: 1 % a month on 120 000, the level rounded once to the franc.
    const level = Math.round((120_000 * 0.01) / (1 - 1.01 ** -12));
    t.deepEqual([Number(installments[0].interest_due), Number(installments[0].principal_due)], [1200, level - 1200]);
    t.is(
      installments.reduce((total, installment) => total + Number(installment.principal_due), 0),
      120_000,
    );
  },
);
