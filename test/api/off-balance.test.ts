import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { postLoanEngagements, postEngagementsAtMonthEnd } from '../../activities/loans/off-balance';
import {
  carryForwardBalances,
  closeIncomeAndExpenses,
  requestExerciceClosing,
} from '../../activities/enterprise/year-end-closing.activity';
import { postJournalEntry } from '../../activities/events/post-entry';
import { provisionBatch, startProvisioningRun } from '../../activities/loans/provisioning.activity';
import { inTransaction } from '../../db/transaction';
import { openingEntries } from '../../domain/enterprise/year-end-closing';
import { Money } from '../../domain/money';
import { startTestApp, testActivityContext, type TestApp } from '../helpers/app';
import { testClock } from '../helpers/clock';
import { createTestDatabase } from '../helpers/database';
import { approveRequest } from '../helpers/approvals';
import {
  accountBalance,
  approvedLoan,
  asApprover,
  confirmedGuarantee,
  createLoanWorld,
  memberOf,
  openSavingsAccount,
  setBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let chartId: string;
let loanId: string;

const principal = new Money(1_000_000);
const mortgage = new Money(800_000);
const pledge = new Money(200_000);

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  world = await createLoanWorld(app, knex, 'OFB');
  await setBusinessDate(world, '2026-01-15');
  chartId = (await knex('company_charts').where({ enterprise_id: world.enterpriseId }).first('id')).id as string;
});

const statement = async (date: string, query = '') => {
  const response = await app.request('GET', `/api/v1/accounts/charts/${chartId}/off-balance/?date=${date}${query}`, {
    headers: world.users.direction!.headers,
  });
  if (response.status !== 200) throw new Error(response.text);
  return response.body as {
    balanced: boolean;
    provisional: boolean;
    sections: { key: string; total: string; accounts: { account: string; amount: string }[] }[];
  };
};
const section = (body: Awaited<ReturnType<typeof statement>>, key: string) =>
  body.sections.find((row) => row.key === key)!;
const amounts = (body: Awaited<ReturnType<typeof statement>>, key: string) =>
  Object.fromEntries(section(body, key).accounts.map((row) => [row.account, row.amount]));

test.serial(
  'a loan approved is a financing commitment given (922 / 9922) until it is paid out; ' +
    'guarantees in force are received (9311, 9321)',
  async (t) => {
    const client = await memberOf(world);
    loanId = await approvedLoan(world, client, { amount: principal.toFixed(0), term_periods: 12 });
    t.is(
      await accountBalance(knex, world.enterpriseId, '922'),
      principal.toFixed(0),
      '922 debited by the principal at approval',
    );
    t.is(await accountBalance(knex, world.enterpriseId, '9922'), principal.negated().toFixed(0));
    const approved = await statement('2026-01-15');
    t.deepEqual(amounts(approved, 'given'), { 922: principal.toFixed(0) });
    t.true(approved.balanced);

    const disbursed = await app.request('POST', `/api/v1/loans/loans/${loanId}/disbursement/`, {
      headers: world.users.cashier!.headers,
      json: { channel: 'cash' },
    });
    t.is(disbursed.status, 200, disbursed.text);
    t.is(await accountBalance(knex, world.enterpriseId, '922'), '0', 'released at the disbursement');

    const savings = await openSavingsAccount(world, client, '300000');
    await confirmedGuarantee(world, {
      loan: loanId,
      kind: 'mortgage',
      value: mortgage.toFixed(0),
      start_date: '2026-01-15',
    });
    await confirmedGuarantee(world, {
      loan: loanId,
      kind: 'pledged_deposit',
      value: pledge.toFixed(0),
      start_date: '2026-01-15',
      account: savings,
    });
    const secured = await statement('2026-01-15');
    t.deepEqual(amounts(secured, 'given'), {});
    t.deepEqual(amounts(secured, 'received'), { 9311: mortgage.toFixed(0), 9321: pledge.toFixed(0) });
    t.is(section(secured, 'received').total, mortgage.plus(pledge).toFixed(0));
    t.is(
      await accountBalance(knex, world.enterpriseId, '9931'),
      mortgage.toFixed(0),
      'the counterpart of a guarantee received is debited',
    );
    t.true(secured.balanced);
    t.is(
      await inTransaction(knex, (trx) => postLoanEngagements(trx, { loanId, date: '2026-01-15', createdBy: null })),
      null,
      'brought again to its position: nothing to post',
    );
    const entries = await knex('journal_entries')
      .where({ enterprise_id: world.enterpriseId, journal_code: 'HB' })
      .count<{ count: string }[]>('* as count');
    t.is(Number(entries[0]!.count), 4, 'approval, disbursement, mortgage, pledge: one HB entry each');
  },
);

/**
 * By hand from the schedule: every interest fallen due by 30 September, and the October installment's interest for
 * the 15 days run of its 30 (15 September to 15 October), rounded half up.
 */
async function unpaidInterestAt30September(t: ExecutionContext): Promise<Money> {
  const schedule: { due_date: string; interest_due: string }[] = await knex('loan_installments')
    .where({ loan_id: loanId })
    .orderBy('number')
    .select(knex.raw(`to_char(due_date, 'YYYY-MM-DD') AS due_date`), 'interest_due');
  const fallenDue = schedule
    .filter((row) => row.due_date <= '2026-09-30')
    .reduce((sum, row) => sum.plus(row.interest_due), new Money(0));
  const october = schedule.find((row) => row.due_date === '2026-10-15')!;
  const expected = fallenDue.plus(
    new Money(october.interest_due).times(15).div(30).toDecimalPlaces(0, Money.ROUND_HALF_UP),
  );
  t.is(schedule.filter((row) => row.due_date <= '2026-09-30').length, 8);
  return expected;
}

test.serial(
  "a doubtful loan's unpaid earned interest is followed in 9841 / 9984 at the month end, to the franc",
  async (t) => {
    await setBusinessDate(world, '2026-10-01');
    const run = await startProvisioningRun(knex, testClock(), {
      enterpriseId: world.enterpriseId,
      asOf: '2026-09-30',
      trigger: 'api',
      requestedBy: null,
    });
    for (let status = 'running'; status === 'running';)
      status = (await provisionBatch(knex, testClock(), { runId: run.id, batchSize: 1000 })).status;
    const position = await knex('loan_provisions')
      .where({ loan_id: loanId })
      .orderBy('as_of', 'desc')
      .first('classification');
    t.is(position.classification, 'doubtful', 'no installment paid since February: doubtful at the end of September');

    const expected = await unpaidInterestAt30September(t);

    t.is(
      await inTransaction(knex, (trx) =>
        postEngagementsAtMonthEnd(trx, { enterprise_id: world.enterpriseId, period_end: '2026-09-30' }),
      ),
      1,
    );
    t.is(
      await inTransaction(knex, (trx) =>
        postEngagementsAtMonthEnd(trx, { enterprise_id: world.enterpriseId, period_end: '2026-09-30' }),
      ),
      0,
      'run again: nothing more',
    );
    // Posted in bulk, the month end's entry is still the loan's own: in the HB journal, its branch, its number in the
    // description.
    const loan = await knex('loans').where({ id: loanId }).first('number', 'branch_id');
    const posted = await knex('off_balance_movements as m')
      .join('journal_entries as e', 'e.id', 'm.entry_id')
      .where({ 'm.loan_id': loanId, 'm.kind': 'suspended_interest' })
      .select(
        'e.journal_code',
        'e.branch_id',
        'e.description',
        knex.raw(`to_char(e.entry_date, 'YYYY-MM-DD') AS entry_date`),
      );
    t.deepEqual(posted, [
      {
        journal_code: 'HB',
        branch_id: loan.branch_id,
        description: `Engagements hors bilan du prêt ${loan.number}`,
        entry_date: '2026-09-30',
      },
    ]);
    const september = await statement('2026-09-30');
    t.deepEqual(amounts(september, 'doubtful'), { 9841: expected.toFixed(0) });
    t.deepEqual(amounts(september, 'received'), { 9311: mortgage.toFixed(0), 9321: pledge.toFixed(0) });
    t.true(september.balanced);
    const headOffice = await statement('2026-09-30', `&branch=${world.headOffice}`);
    t.deepEqual(amounts(headOffice, 'doubtful'), { 9841: expected.toFixed(0) }, "the loan's branch holds it");
    const otherBranch = await statement('2026-09-30', `&branch=${world.otherBranch}`);
    t.true(otherBranch.sections.every((row) => row.total === '0'));
    const csv = await app.request('GET', `/api/v1/accounts/charts/${chartId}/off-balance/?date=2026-09-30&format=csv`, {
      headers: world.users.direction!.headers,
    });
    t.is(csv.status, 200);
    t.true(csv.text.includes(`9841;`) && csv.text.includes(expected.toFixed(0)));
  },
);

test.serial('the database refuses an entry mixing class 9 with the other classes, whoever inserts it', async (t) => {
  const draft = {
    enterpriseId: world.enterpriseId,
    branchId: world.headOffice,
    entryDate: '2026-09-30',
    description: 'mixed',
    createdBy: world.rootId,
  };
  const mixed = [
    { account: '922', debit: new Money(500), credit: new Money(0) },
    { account: '5710', debit: new Money(0), credit: new Money(500) },
  ];
  await t.throwsAsync(
    inTransaction(knex, (trx) => postJournalEntry(trx, { ...draft, lines: mixed })),
    { code: 'off_balance_mixed' } as never,
  );
  const byHand = knex.transaction(async (trx) => {
    const exercice = (
      await trx('exercices_comptables').where({ enterprise_id: world.enterpriseId, code: '2026' }).first('id')
    ).id;
    const [entry] = await trx('journal_entries')
      .insert({
        enterprise_id: world.enterpriseId,
        exercice_id: exercice,
        branch_id: world.headOffice,
        entry_date: '2026-09-30',
        description: 'by hand',
        journal_code: 'OD',
      })
      .returning('id');
    const account = async (code: string) =>
      (await trx('company_chart_entries').where({ chart_id: chartId, code }).first('id')).id;
    const line = { enterprise_id: world.enterpriseId, entry_id: entry.id };
    await trx('journal_lines').insert([
      { ...line, chart_entry_id: await account('922'), debit: '500', credit: '0' },
      { ...line, chart_entry_id: await account('5710'), debit: '0', credit: '500' },
    ]);
  });
  await t.throwsAsync(byHand, { message: /mixes 1 off-balance lines \(class 9\) with 1 others/ });
});

test.serial(
  'class 9 changes nothing in the balance sheet, the prudential ratios, the income statement or the trial balance',
  async (t) => {
    const read = async () =>
      Promise.all(
        [
          'balance-sheet/?date=2026-09-30',
          'prudential-ratios/?date=2026-09-30',
          'income-statement/?date_from=2026-01-01&date_to=2026-09-30',
          'trial-balance/?date=2026-09-30',
        ].map(async (path) => {
          const response = await app.request('GET', `/api/v1/accounts/charts/${chartId}/${path}`, {
            headers: world.users.direction!.headers,
          });
          if (response.status !== 200) throw new Error(`${path}: ${response.text}`);
          return response.body;
        }),
      );
    const before = await read();
    t.false(JSON.stringify(before[3]).includes('"9'), 'no class 9 account in the trial balance');
    await inTransaction(knex, (trx) =>
      postJournalEntry(trx, {
        enterpriseId: world.enterpriseId,
        branchId: world.headOffice,
        entryDate: '2026-09-30',
        description: 'a surety',
        createdBy: world.rootId,
        lines: [
          { account: '9934', debit: new Money(5_000_000), credit: new Money(0) },
          { account: '934', debit: new Money(0), credit: new Money(5_000_000) },
        ],
      }),
    );
    t.deepEqual(await read(), before);
    t.is(section(await statement('2026-09-30'), 'received').total, mortgage.plus(pledge).plus(5_000_000).toFixed(0));
  },
);

test.serial(
  'the next year opens with class 9 carried: by computation while the year is open, ' +
    "apart from the balance sheet in the closing's à-nouveaux",
  async (t) => {
    const created = await app.request('POST', '/api/v1/enterprise/exercices/', {
      headers: world.users.direction!.headers,
      json: { enterprise: world.enterpriseId, code: '2027', start_date: '2027-01-01', end_date: '2027-12-31' },
    });
    t.is(created.status, 201, created.text);
    const december = await statement('2026-12-31');
    const january = await statement('2027-01-05');
    t.true(january.provisional);
    t.deepEqual(january.sections, december.sections, 'the engagements of 2026 carried into 2027');

    const balances = [
      { branchId: 'b1', account: '5710', accountClass: 5, balance: new Money(100) },
      { branchId: 'b1', account: '1000', accountClass: 1, balance: new Money(-100) },
      { branchId: 'b1', account: '9311', accountClass: 9, balance: new Money(-800) },
      { branchId: 'b1', account: '9931', accountClass: 9, balance: new Money(800) },
    ];
    const entries = openingEntries(balances);
    t.is(entries.length, 2, 'the off-balance accounts in an entry of their own');
    t.deepEqual(
      entries[1]!.lines.map((line) => [line.account, line.debit.toFixed(0), line.credit.toFixed(0)]),
      [
        ['9311', '0', '800'],
        ['9931', '800', '0'],
      ],
    );
    t.true(entries[0]!.lines.every((line) => !line.account.startsWith('9')));
  },
);

test.serial('a loan written off leaves the off-balance books with its guarantees and suspended interest', async (t) => {
  const before = await statement('2026-10-01');
  t.not(section(before, 'doubtful').total, '0');
  const written = await approveRequest(
    knex,
    await app.request('POST', `/api/v1/loans/loans/${loanId}/write-off/`, {
      headers: world.users.direction!.headers,
      json: {},
    }),
    asApprover(world),
  );
  t.is(written.status, 200, written.text);
  const loanLeft = await knex('off_balance_movements')
    .where({ loan_id: loanId })
    .groupBy('account')
    .havingRaw('sum(amount) <> 0')
    .select('account');
  t.deepEqual(loanLeft, [], 'every engagement of the loan released');
  const after = await statement('2026-10-01');
  t.deepEqual(amounts(after, 'doubtful'), {});
  t.deepEqual(amounts(after, 'received'), { 934: '5000000' }, 'what was posted by hand stays');
  t.true(after.balanced);
});

test.serial('the closing of 2026 carries class 9 into 2027 in an à-nouveaux entry of its own', async (t) => {
  await setBusinessDate(world, '2027-01-05');
  const run = await startProvisioningRun(knex, testClock(), {
    enterpriseId: world.enterpriseId,
    asOf: '2026-12-31',
    trigger: 'api',
    requestedBy: null,
  });
  for (let status = 'running'; status === 'running';)
    status = (await provisionBatch(knex, testClock(), { runId: run.id, batchSize: 1000 })).status;
  const december = await statement('2026-12-31');
  const year2026 = (
    await knex('exercices_comptables').where({ enterprise_id: world.enterpriseId, code: '2026' }).first('id')
  ).id as string;
  const actor = {
    userId: world.users.direction!.id,
    grants: [{ role: 'direction' as const, enterpriseId: world.enterpriseId, branchId: null }],
    requestId: 'test',
  };
  const closing = await requestExerciceClosing(testActivityContext(knex), actor, {
    exerciceId: year2026,
    reason: 'year end',
  });
  t.like(await closeIncomeAndExpenses(knex, testClock(), { closingId: closing.id }), { done: true });
  t.like(await carryForwardBalances(knex, testClock(), { closingId: closing.id }), { done: true });

  const opening = await knex('exercice_closing_entries as x')
    .join('journal_lines as l', 'l.entry_id', 'x.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .join('journal_entries as e', 'e.id', 'x.entry_id')
    .where({ 'x.closing_id': closing.id, 'x.step': 'opening' })
    .groupBy('x.entry_id', 'e.journal_code')
    .select(
      'e.journal_code',
      knex.raw('array_agg(c.code ORDER BY c.code) AS codes'),
      knex.raw(`sum(l.credit) FILTER (WHERE c.code = '934')::text AS surety`),
    );
  const offBalanceEntries = opening.filter((row: { codes: string[] }) =>
    row.codes.some((code) => code.startsWith('9')),
  );
  t.deepEqual(
    offBalanceEntries.map((row: { journal_code: string; codes: string[]; surety: string }) => [
      row.journal_code,
      row.codes,
      row.surety,
    ]),
    [['AN', ['934', '9934'], '5000000']],
    'the surety of 5 000 000 still held, carried apart from the balance sheet',
  );
  const january = await statement('2027-01-05');
  t.false(january.provisional, 'carried by the closing, no longer by computation');
  t.deepEqual(january.sections, december.sections);
});
