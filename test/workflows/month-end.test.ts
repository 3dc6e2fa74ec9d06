import test, { type ExecutionContext } from 'ava';
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import { markMonthEndFailed, openMonthEndRun, runMonthEndStep } from '../../activities/enterprise/month-end.activity';
import { accrueLoanInterest } from '../../activities/loans/interest-accrual.activity';
import { businessIdKey, enterpriseCodeKey, monthEndScheduleId } from '../../workflows/identities';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import {
  accountBalance,
  approvedLoan,
  createLoanWorld,
  ledgerBalanced,
  memberOf,
  setBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { runMonthEnd, runMonthEnds } from '../helpers/month-ends';
import { accountOf, savingsProductOf } from '../helpers/savings';
import { fileTeardown } from '../helpers/teardown';
import { untilWorkflow } from '../helpers/until';
import { bearer, createUser } from '../helpers/users';
import { newTaskQueue, withWorker } from '../helpers/worker';
import { testClock } from '../helpers/clock';

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
});

/**
 * The test's own figures: loans of constant principal at 24 %/year (2 % a month), disbursed on 10 January 2026,
 * installments due on the 10th. The accrual at a month end is the running installment's interest (the balance
 * before it × 2 %) × actual days since the 10th / actual days of its month, half-up to the franc.
 */
const accrued = (balance: number, daysRun: number, daysOfPeriod: number) =>
  new Money(balance).times('0.02').times(daysRun).div(daysOfPeriod).toDecimalPlaces(0, Money.ROUND_HALF_UP);
const januaryA = accrued(1_200_000, 21, 31); // 16 258
const januaryB = accrued(600_000, 21, 31); // 8 129
const februaryA = accrued(1_100_000, 18, 28); // 14 143

async function decliningLoanWorld(code: string): Promise<LoanWorld & { loanA: string; loanB: string }> {
  const world = await createLoanWorld(app, knex, code);
  const product = await app.request('POST', '/api/v1/loans/products/', {
    headers: world.users.direction!.headers,
    json: {
      enterprise: world.enterpriseId,
      code: 'DEG',
      name: 'Crédit dégressif',
      term_category: 'cta',
      method: 'constant_principal',
      annual_rate: '0.24',
      min_amount: '50000',
      max_amount: '200000000',
      min_term_periods: 1,
      max_term_periods: 24,
      max_grace_periods: 0,
      fee_rate: '0',
      penalty_rate: '0',
    },
  });
  if (product.status !== 201) throw new Error(product.text);
  const declining = { ...world, productId: product.body.id as string };
  await knex('enterprise_configurations')
    .where({ enterprise_id: world.enterpriseId })
    .update({ business_date: '2026-01-10' });
  const loanA = await approvedLoan(declining, await memberOf(world), { amount: '1200000', term_periods: 12 });
  const loanB = await approvedLoan(declining, await memberOf(world), { amount: '600000', term_periods: 12 });
  for (const loan of [loanA, loanB]) {
    const disbursed = await app.request('POST', `/api/v1/loans/loans/${loan}/disbursement/`, {
      headers: world.users.cashier!.headers,
      json: { channel: 'cash' },
    });
    if (disbursed.status >= 300) throw new Error(disbursed.text);
  }
  return { ...declining, loanA, loanB };
}

const entriesOf = async (enterpriseId: string) =>
  Number((await knex('journal_entries').where({ enterprise_id: enterpriseId }).count<{ count: string }[]>())[0]!.count);

/** Each step's lines sum to its amount, and a done step's amount is what it booked. */
function linesSumToAmounts(
  t: ExecutionContext,
  run: { steps: { step: string; amount: string; lines: { amount: string }[] }[] },
) {
  for (const step of run.steps)
    t.is(
      step.lines.reduce((sum, line) => sum.plus(line.amount), new Money(0)).toFixed(0),
      step.amount,
      `${step.step}: lines sum to the amount`,
    );
}

async function provisioningRun(world: LoanWorld): Promise<void> {
  const started = await app.request('POST', '/api/v1/loans/provisions/runs/', {
    headers: world.users.direction!.headers,
    json: { enterprise: world.enterpriseId },
  });
  if (started.status !== 202) throw new Error(started.text);
  await untilWorkflow({
    workflowId: started.body.workflow_id,
    what: `the provisioning run ${started.body.id as string}`,
    read: async () =>
      (
        await app.request('GET', `/api/v1/loans/provisions/runs/${started.body.id as string}/`, {
          headers: world.users.direction!.headers,
        })
      ).body.status === 'running'
        ? undefined
        : true,
  });
}

/** January: refused on its last day, then accrued for both loans to the franc; started again, it changes nothing. */
async function januaryAccrued(t: ExecutionContext, world: LoanWorld & { loanA: string; loanB: string }): Promise<void> {
  const { enterpriseId, loanA, loanB } = world;
  await setBusinessDate(world, '2026-01-31');
  t.is((await runMonthEnd(world, '2026-01')).body.code, 'period_not_over');
  await setBusinessDate(world, '2026-02-01');
  const january = await runMonthEnd(world, '2026-01');
  t.like(january.body, {
    status: 'done',
    trigger: 'api',
    started_by: world.users.direction!.id,
    period_start: '2026-01-01',
    period_end: '2026-01-31',
    workflow_id: `month-end-${enterpriseId}-2026-01`,
  });
  t.deepEqual(
    january.body.steps.map((step: { step: string }) => step.step),
    [
      'reverseLoanInterestAccrual',
      'accrueLoanInterest',
      'recognizeUnearnedInterest',
      'reverseSavingsInterestAccrual',
      'matureTermDeposits',
      'postSavingsInterest',
      'accrueSavingsInterest',
      'depreciateFixedAssets',
    ],
  );
  const accrual = january.body.steps[1];
  t.is(accrual.amount, januaryA.plus(januaryB).toFixed(0));
  t.deepEqual(
    accrual.lines
      .map((line: { loan: string; amount: string; account: string }) => [line.loan, line.amount, line.account])
      .sort(),
    [
      [loanA, januaryA.toFixed(0), '3291'],
      [loanB, januaryB.toFixed(0), '3291'],
    ].sort(),
  );
  t.is(accrual.journal_entries.length, 1, 'one aggregated entry for the branch');
  t.like(await knex('journal_entries').where({ id: accrual.journal_entries[0] }).first(), {
    entry_date: '2026-01-31',
    branch_id: world.headOffice,
  });
  linesSumToAmounts(t, january.body);
  t.is(await accountBalance(knex, enterpriseId, '3291'), januaryA.plus(januaryB).toFixed(0));
  t.like(await knex('audit_events').where({ action: 'month_end.start', entity_id: january.body.id }).first(), {
    actor_id: world.users.direction!.id,
  });

  // Started again: the same run, nothing posted, the same balances.
  const entries = await entriesOf(enterpriseId);
  const again = await runMonthEnd(world, '2026-01');
  t.like(again.body, { id: january.body.id, status: 'done' });
  t.is(await entriesOf(enterpriseId), entries);
  t.is(await accountBalance(knex, enterpriseId, '3291'), januaryA.plus(januaryB).toFixed(0));
}

/** B goes to litigation: the provisioning run makes it doubtful and reverses its accrual on the business date. */
async function loanBDoubtful(t: ExecutionContext, world: LoanWorld & { loanB: string }): Promise<void> {
  const { enterpriseId, loanB } = world;
  const litigation = await app.request('POST', `/api/v1/loans/loans/${loanB}/litigation/`, {
    headers: world.users.direction!.headers,
    json: { litigious: true, reason: 'court case' },
  });
  t.is(litigation.status, 200, litigation.text);
  await provisioningRun(world);
  t.like(await knex('loans').where({ id: loanB }).first(), { classification: 'doubtful' });
  const reversedB = await knex('loan_interest_accruals as a')
    .join('journal_entries as e', 'e.id', 'a.reversal_entry_id')
    .where({ 'a.loan_id': loanB })
    .first('a.reversed_by', 'e.entry_date');
  t.deepEqual({ ...reversedB }, { reversed_by: 'reclassification', entry_date: '2026-02-01' });
  t.is(await accountBalance(knex, enterpriseId, '3291'), januaryA.toFixed(0));
}

test(
  'loan interest accrued at the month end, reversed at the next, and at a reclassification to ' +
    'doubtful; a rerun changes nothing; the history replays',
  async (t) => {
    const world = await decliningLoanWorld('ME1');
    const { enterpriseId, loanA } = world;
    const schedule = await knex('loan_installments')
      .where({ loan_id: loanA })
      .orderBy('number')
      .first('due_date', 'interest_due');
    t.deepEqual(
      { ...schedule },
      { due_date: '2026-02-10', interest_due: '24000' },
      'the schedule the test computes from',
    );
    t.is(januaryA.toFixed(0), '16258');

    await withWorker(
      knex,
      async ({ client }) => {
        await januaryAccrued(t, world);
        await loanBDoubtful(t, world);

        // A pays its first installment; February: A's January accrual reversed on 1 February, A accrues, B (doubtful)
        // nothing.
        await setBusinessDate(world, '2026-02-10');
        const repaid = await app.request('POST', '/api/v1/loans/repayments/', {
          headers: world.users.cashier!.headers,
          json: { loan: loanA, amount: '124000' },
        });
        t.is(repaid.status, 201, repaid.text);
        await setBusinessDate(world, '2026-03-01');
        const february = await runMonthEnd(world, '2026-02');
        t.is(february.body.status, 'done', february.text);
        const [reversal, februaryAccrual] = february.body.steps;
        t.like(reversal, {
          amount: januaryA.toFixed(0),
          lines: [{ loan: loanA, account: '713', amount: januaryA.toFixed(0) }],
        });
        t.like(await knex('journal_entries').where({ id: reversal.journal_entries[0] }).first(), {
          entry_date: '2026-02-01',
        });
        t.like(februaryAccrual, {
          amount: februaryA.toFixed(0),
          lines: [{ loan: loanA, amount: februaryA.toFixed(0) }],
        });
        t.is(februaryAccrual.lines.length, 1, 'the doubtful loan accrues nothing');
        linesSumToAmounts(t, february.body);
        t.is(await accountBalance(knex, enterpriseId, '3291'), februaryA.toFixed(0));
        // 713: January's accruals, both reversed, the interest paid (24 000) and February's accrual.
        t.is(await accountBalance(knex, enterpriseId, '713'), new Money(0).minus(24_000).minus(februaryA).toFixed(0));
        t.true(await ledgerBalanced(knex, enterpriseId));

        const { events } = await client.workflow.getHandle(`month-end-${enterpriseId}-2026-02`).fetchHistory();
        await t.notThrowsAsync(
          Worker.runReplayHistory(
            { workflowBundle: { codePath: testEnvironment().bundlePath } },
            { events },
            'month-end-replay',
          ),
        );
      },
      taskQueue,
    );
  },
);

/**
 * February interrupted: its accrual committed, then the run failed; started again, it resumes and posts nothing twice.
 */
async function februaryResumed(t: ExecutionContext, world: LoanWorld) {
  const opened = await openMonthEndRun(knex, testClock(), {
    enterpriseId: world.enterpriseId,
    period: '2026-02',
    trigger: 'api',
    startedBy: world.users.direction!.id,
    requestId: null,
  });
  const first = await runMonthEndStep(
    knex,
    testClock(),
    { runId: opened.run.id, step: 'accrueLoanInterest' },
    accrueLoanInterest,
  );
  t.like(first, {
    entries: 1,
    amount: accrued(1_100_000, 18, 28)
      .plus(accrued(550_000, 18, 28))
      .toFixed(0),
  });
  await markMonthEndFailed(knex, testClock(), { runId: opened.run.id, failure: 'worker lost' });
  const resumed = await runMonthEnd(world, '2026-02');
  t.like(resumed.body, { id: opened.run.id, status: 'done', failure: null });
  t.like(resumed.body.steps[0], { step: 'reverseLoanInterestAccrual', amount: januaryA.plus(januaryB).toFixed(0) });
  t.like(resumed.body.steps[1], { step: 'accrueLoanInterest', amount: first.amount });
  t.is(
    (await knex('month_end_entries').where({ run_id: opened.run.id, step: 'accrueLoanInterest' })).length,
    1,
    'the accrual posted once',
  );
  t.is(await accountBalance(knex, world.enterpriseId, '3291'), first.amount);
}

/** The Schedule, triggered on 1 April, runs March under March's own workflow id, tagged with the cooperative. */
async function marchBySchedule(t: ExecutionContext, client: Client, world: LoanWorld) {
  const { enterpriseId } = world;
  // The Schedule, triggered on 1 April, runs March under March's own workflow id.
  const schedule = client.schedule.getHandle(monthEndScheduleId(enterpriseId));
  const description = await schedule.describe();
  t.like(description.action, { type: 'startWorkflow', workflowType: 'monthEnd' });
  t.is(description.spec.calendars?.[0]?.dayOfMonth?.[0]?.start, 1);
  await schedule.trigger();
  const march = await untilWorkflow({
    workflowId: `month-end-${enterpriseId}-2026-03`,
    what: 'the month end of March, started by its Schedule',
    read: async () => {
      const run = await knex('month_end_runs').where({ enterprise_id: enterpriseId, period: '2026-03' }).first();
      return run?.status === 'done' ? run : undefined;
    },
  });
  t.like(march, { status: 'done', trigger: 'schedule', started_by: null });
  t.is((await client.workflow.getHandle(`month-end-${enterpriseId}-2026-03`).result()).period, '2026-03');
  // The month's workflow, started by the Schedule's, carries the cooperative's code and its month prefixed with
  // it.
  const tags = (await client.workflow.getHandle(`month-end-${enterpriseId}-2026-03`).describe()).typedSearchAttributes;
  t.is(tags.get(enterpriseCodeKey), 'ME2');
  t.is(tags.get(businessIdKey), 'ME2/2026-03');
}

test(
  'month ends run in order and the year closes only with its month ends done; the Schedule runs the ' +
    'month just ended',
  async (t) => {
    const world = await decliningLoanWorld('ME2');
    const { enterpriseId } = world;
    await withWorker(
      knex,
      async ({ client }) => {
        await setBusinessDate(world, '2026-02-01');
        await runMonthEnds(world, ['2026-01']);
        await setBusinessDate(world, '2026-04-01');
        t.is((await runMonthEnd(world, '2026-03')).body.code, 'previous_month_end_not_done');
        await februaryResumed(t, world);

        await marchBySchedule(t, client, world);

        const listed = await app.request(
          'GET',
          `/api/v1/enterprise/enterprises/${enterpriseId}/month-ends/?status=done`,
          { headers: world.users.direction!.headers },
        );
        t.deepEqual(
          listed.body.results.map((run: { period: string }) => run.period),
          ['2026-03', '2026-02', '2026-01'],
        );
        t.is(
          (
            await app.request('GET', `/api/v1/enterprise/month-ends/?enterprise=${enterpriseId}&period=2026-13`, {
              headers: world.users.direction!.headers,
            })
          ).status,
          400,
        );
        t.is(
          (
            await app.request('POST', '/api/v1/enterprise/month-ends/', {
              headers: world.users.cashier!.headers,
              json: { enterprise: enterpriseId, period: '2026-04' },
            })
          ).status,
          403,
        );

        // 2027 open, 2026 cannot close: its month ends from April on are not done.
        await app.request('POST', '/api/v1/enterprise/exercices/', {
          headers: world.users.direction!.headers,
          json: { enterprise: enterpriseId, code: '2027', start_date: '2027-01-01', end_date: '2027-12-31' },
        });
        const year2026 = (
          await knex('exercices_comptables').where({ enterprise_id: enterpriseId, code: '2026' }).first('id')
        ).id as string;
        const close = await app.request('POST', `/api/v1/enterprise/exercices/${year2026}/close/`, {
          headers: world.users.direction!.headers,
          json: { reason: 'year end' },
        });
        t.is(close.body.code, 'month_end_not_done');
      },
      taskQueue,
    );
  },
);

test(
  "a month end run late reads each loan's class at the month's end, not the one a later " + 'provisioning run gave it',
  async (t) => {
    const world = await decliningLoanWorld('ME4');
    // Neither loan pays its installment of 10 February: 46 days late on 28 March, both doubtful after that day's run.
    await setBusinessDate(world, '2026-03-28');
    await withWorker(
      knex,
      async () => {
        await provisioningRun(world);
        t.deepEqual(
          (await knex('loans').whereIn('id', [world.loanA, world.loanB]).select('classification')).map(
            (loan) => loan.classification,
          ),
          ['doubtful', 'doubtful'],
        );
        // January, run now: on 31 January both were performing, and accrue as the January of the first test.
        const january = await runMonthEnd(world, '2026-01');
        t.is(january.body.status, 'done', january.text);
        t.is(january.body.steps[1].amount, januaryA.plus(januaryB).toFixed(0));
      },
      taskQueue,
    );
  },
);

test(
  'a medium-term loan accrues its interest to 319, a short-term one to 3291 (PCEMF créances ' + 'rattachées by term)',
  async (t) => {
    const world = await decliningLoanWorld('ME5');
    const product = await app.request('POST', '/api/v1/loans/products/', {
      headers: world.users.direction!.headers,
      json: {
        enterprise: world.enterpriseId,
        code: 'MLT',
        name: 'Crédit équipement',
        term_category: 'mlt',
        method: 'constant_principal',
        annual_rate: '0.24',
        min_amount: '50000',
        max_amount: '200000000',
        min_term_periods: 25,
        max_term_periods: 60,
        max_grace_periods: 0,
        fee_rate: '0',
        penalty_rate: '0',
      },
    });
    t.like(product.body, { accrued_interest_account_code: '319', portfolio_account_code: '3130' });
    const equipment = await approvedLoan({ ...world, productId: product.body.id }, await memberOf(world), {
      amount: '1200000',
      term_periods: 30,
    });
    t.is(
      (
        await app.request('POST', `/api/v1/loans/loans/${equipment}/disbursement/`, {
          headers: world.users.cashier!.headers,
          json: { channel: 'cash' },
        })
      ).status,
      200,
    );
    await setBusinessDate(world, '2026-02-01');
    await withWorker(
      knex,
      async () => {
        const january = await runMonthEnd(world, '2026-01');
        // The medium-term loan's first period, as loan A's: 1 200 000 × 2 % × 21 / 31.
        const lines = january.body.steps[1].lines
          .map((line: { loan: string; account: string; amount: string }) => [line.loan, line.account, line.amount])
          .sort();
        t.deepEqual(
          lines,
          [
            [world.loanA, '3291', januaryA.toFixed(0)],
            [world.loanB, '3291', januaryB.toFixed(0)],
            [equipment, '319', januaryA.toFixed(0)],
          ].sort(),
        );
        t.is(await accountBalance(knex, world.enterpriseId, '319'), januaryA.toFixed(0));
      },
      taskQueue,
    );
  },
);

/** The movement of an account over a month: debit minus credit of the lines dated in it. */
async function monthMovement(enterpriseId: string, code: string, period: string): Promise<string> {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
  const row = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where({ 'e.enterprise_id': enterpriseId, 'c.code': code })
    .whereBetween('e.entry_date', [`${period}-01`, last])
    .first(knex.raw('coalesce(sum(l.debit - l.credit), 0)::text AS movement'));
  return row.movement as string;
}

test(
  'a savings book posted yearly carries a twelfth of its interest in every month: accrued at each ' +
    'month end, reversed at the next, paid in December',
  async (t) => {
    const world = await createLoanWorld(app, knex, 'ME6');
    await setBusinessDate(world, '2026-01-01');
    const yearly = await savingsProductOf(world, {
      code: 'ANN',
      deposit_account_code: '373',
      interest_rate: '0.03',
      posting_frequency: 'yearly',
    });
    t.like(
      (await app.request('GET', `/api/v1/members/products/${yearly}/`, { headers: world.users.cashier!.headers })).body,
      { accrued_interest_account_code: '37800', interest_expense_account_code: '613' },
    );
    const book = await accountOf(world, await memberOf(world), yearly, '10000000');
    // Hand-computed: 10 000 000 × 3 % a year, a twelfth a month (30/360): 25 000; 300 000 for the year.
    const monthly = new Money(10_000_000).times('0.03').div(12);
    t.is(monthly.toFixed(0), '25000');
    await withWorker(
      knex,
      async () => {
        for (let month = 1; month <= 12; month += 1) {
          const period = `2026-${String(month).padStart(2, '0')}`;
          await setBusinessDate(world, month === 12 ? '2027-01-01' : `2026-${String(month + 1).padStart(2, '0')}-01`);
          const run = await runMonthEnd(world, period);
          t.is(run.body.status, 'done', run.text);
          t.is(
            await monthMovement(world.enterpriseId, '613', period),
            monthly.toFixed(0),
            `the interest expense of ${period}`,
          );
          // What is owed and not paid at the month's end: the months run so far, until December pays them.
          t.is(
            await accountBalance(knex, world.enterpriseId, '37800'),
            monthly
              .times(month === 12 ? 0 : month)
              .negated()
              .toFixed(0),
            `interest payable at the end of ${period}`,
          );
        }
      },
      taskQueue,
    );
    t.like(await knex('savings_interest_postings').where({ compte_client_id: book }).first(), {
      gross: monthly.times(12).toFixed(0),
      interest_from: '2026-01-01',
      interest_to: '2026-12-31',
    });
    t.true(await ledgerBalanced(knex, world.enterpriseId));
  },
);

/** Periods a date could not hold, or that pass no month's end: answered 400 naming `period`, never 500 (issue 27). */
const hostilePeriods = ['9999-12', '0000-01', '1000-01', '1899-12', '3000-01', '2026-13', '2026-00'];

test(
  'month ends in order only: a first one in the first open year, none before it; hostile periods ' +
    'are 400 (issue 27)',
  async (t) => {
    const world = await decliningLoanWorld('ME7');
    const { enterpriseId } = world;
    const headers = world.users.direction!.headers;
    for (const period of hostilePeriods) {
      for (const path of ['/api/v1/enterprise/month-ends/', '/api/v1/accounts/reporting-packs/']) {
        const refused = await app.request('POST', path, { headers, json: { enterprise: enterpriseId, period } });
        t.is(refused.status, 400, `${path} ${period}: ${refused.text}`);
        t.is(refused.body.errors?.[0]?.field, 'period', `${path} ${period}`);
      }
      t.is(
        (
          await app.request('GET', `/api/v1/enterprise/month-ends/?enterprise=${enterpriseId}&period=${period}`, {
            headers,
          })
        ).status,
        400,
        period,
      );
    }
    await withWorker(
      knex,
      async () => {
        await setBusinessDate(world, '2026-03-01');
        // The first open year is 2026: a first month end in 2025 would make 2026 close without its own.
        const before = await runMonthEnd(world, '2025-12');
        t.like(before, { status: 409, body: { code: 'first_month_end_outside_first_year' } });
        const february = await runMonthEnd(world, '2026-02');
        t.is(february.body.status, 'done', february.text);
        // The test's figures: A owes 1 100 000 and B 550 000 after their first installment, 18 days of 28 run.
        const expected = accrued(1_100_000, 18, 28)
          .plus(accrued(550_000, 18, 28))
          .toFixed(0);
        t.is(expected, '21214');
        t.is(await accountBalance(knex, enterpriseId, '3291'), expected);
        // January after February: its accrual would never be reversed (February's reversal ran before it).
        const january = await runMonthEnd(world, '2026-01');
        t.like(january, { status: 409, body: { code: 'month_end_out_of_order' } });
        t.is(await knex('month_end_runs').where({ enterprise_id: enterpriseId, period: '2026-01' }).first(), undefined);
        t.is(await accountBalance(knex, enterpriseId, '3291'), expected);
      },
      taskQueue,
    );
  },
);

/** Users of one branch read neither the month end nor the provisioning run, alone or listed. */
async function assertBranchUsersReadNone(
  t: ExecutionContext,
  { enterpriseId, users }: LoanWorld,
  { monthEnd, runId }: { monthEnd: string; runId: string },
) {
  for (const user of ['other_cashier', 'other_head', 'cashier', 'branch_head']) {
    const userHeaders = users[user]!.headers;
    t.is(
      (await app.request('GET', `/api/v1/enterprise/month-ends/${monthEnd}/`, { headers: userHeaders })).status,
      404,
      `${user}: the month end`,
    );
    t.is(
      (
        await app.request('GET', `/api/v1/enterprise/enterprises/${enterpriseId}/month-ends/${monthEnd}/`, {
          headers: userHeaders,
        })
      ).status,
      404,
      `${user}: the nested month end`,
    );
    t.deepEqual(
      (
        await app.request('GET', `/api/v1/enterprise/month-ends/?enterprise=${enterpriseId}`, {
          headers: userHeaders,
        })
      ).body.results,
      [],
      `${user}: the month ends`,
    );
    t.is(
      (await app.request('GET', `/api/v1/loans/provisions/runs/${runId}/`, { headers: userHeaders })).status,
      404,
      `${user}: the provisioning run`,
    );
    t.deepEqual(
      (
        await app.request('GET', `/api/v1/loans/provisions/runs/?enterprise=${enterpriseId}`, {
          headers: userHeaders,
        })
      ).body.results,
      [],
      `${user}: the provisioning runs`,
    );
  }
}

/** The month's reporting pack, made by the month end, is consolidated: a branch's direction role does not read it. */
async function assertPackConsolidated(t: ExecutionContext, world: LoanWorld) {
  const { enterpriseId } = world;
  const pack = (await knex('reporting_packs').where({ enterprise_id: enterpriseId, period: '2026-01' }).first('id'))
    .id as string;
  const username = 'branch_direction_me8';
  await createUser(knex, username, [{ role: 'direction', enterpriseId, branchId: world.headOffice }]);
  const branchDirection = await bearer(app, username, '10.61.0.6');
  t.is(
    (await app.request('GET', `/api/v1/accounts/reporting-packs/${pack}/`, { headers: branchDirection })).status,
    404,
  );
  t.deepEqual(
    (
      await app.request('GET', `/api/v1/accounts/reporting-packs/?enterprise=${enterpriseId}`, {
        headers: branchDirection,
      })
    ).body.results,
    [],
  );
  t.is(
    (
      await app.request('GET', `/api/v1/accounts/reporting-packs/${pack}/`, {
        headers: world.users.direction!.headers,
      })
    ).status,
    200,
  );
}

test(
  'a user of one branch reads no month end nor provisioning run: their figures and lines are the ' +
    "whole enterprise's (issue 27)",
  async (t) => {
    const world = await decliningLoanWorld('ME8');
    const { enterpriseId } = world;
    let monthEnd = '';
    await withWorker(
      knex,
      async () => {
        await setBusinessDate(world, '2026-02-01');
        const january = await runMonthEnd(world, '2026-01');
        monthEnd = january.body.id as string;
        t.is(january.body.status, 'done', january.text);
        t.is(january.body.steps[1].lines.length, 2, 'the direction reads the per-loan lines');
        await provisioningRun(world);
        await untilWorkflow({
          workflowId: `reporting-pack-${enterpriseId}-2026-01`,
          what: 'the pack of January, made by its month end',
          read: async () =>
            (await knex('reporting_packs').where({ enterprise_id: enterpriseId, period: '2026-01' }).first('status'))
              ?.status === 'stored'
              ? true
              : undefined,
        });
      },
      taskQueue,
    );
    const run = (
      await app.request('GET', `/api/v1/loans/provisions/runs/?enterprise=${enterpriseId}`, {
        headers: world.users.direction!.headers,
      })
    ).body.results[0];
    t.truthy(run);
    // The loans are the head office's: a cashier of the other branch gets 404 on them, and so on the documents naming
    // them.
    t.is(
      (await app.request('GET', `/api/v1/loans/loans/${world.loanA}/`, { headers: world.users.other_cashier!.headers }))
        .status,
      404,
    );
    await assertBranchUsersReadNone(t, world, { monthEnd, runId: run.id as string });
    t.is(
      (
        await app.request('GET', `/api/v1/enterprise/month-ends/${monthEnd}/`, {
          headers: world.users.committee!.headers,
        })
      ).status,
      200,
      'a role over the whole enterprise reads it',
    );
    t.is(
      (
        await app.request('GET', `/api/v1/loans/provisions/runs/${run.id as string}/`, {
          headers: world.users.committee!.headers,
        })
      ).status,
      200,
    );

    await assertPackConsolidated(t, world);
  },
);

test(
  'a month end prints where both hash chains ended; the verification tells whether the chain still ' +
    'passes through that anchor (issue 27)',
  async (t) => {
    const world = await decliningLoanWorld('ME9');
    const { enterpriseId } = world;
    const headers = world.users.direction!.headers;
    let january: Awaited<ReturnType<typeof runMonthEnd>> | undefined;
    await withWorker(
      knex,
      async () => {
        await setBusinessDate(world, '2026-02-01');
        january = await runMonthEnd(world, '2026-01');
      },
      taskQueue,
    );
    t.is(january!.body.status, 'done', january!.text);
    const anchors = january!.body.chain_anchors as { chain: string; position: number; head_hash: string }[];
    t.deepEqual(
      anchors.map((anchor) => anchor.chain),
      ['journal_entries', 'audit_events'],
    );
    const [entries, audits] = anchors;
    const link = (chain: string, position: number) =>
      knex('ledger_chain_links')
        .where({ chain, chain_key: enterpriseId, position })
        .first(knex.raw("encode(hash, 'hex') AS hash"));
    t.is((await link('journal_entries', entries!.position)).hash, entries!.head_hash);
    t.is((await link('audit_events', audits!.position)).hash, audits!.head_hash);
    t.true(entries!.position >= 4, "two disbursements and the month end's accruals");
    t.deepEqual(
      (await app.request('GET', `/api/v1/enterprise/month-ends/${january!.body.id as string}/`, { headers })).body
        .chain_anchors,
      anchors,
      'the GET prints the same anchors',
    );

    const verify = (query: string) =>
      app.request('GET', `/api/v1/enterprise/ledger/verification/?enterprise=${enterpriseId}&${query}`, { headers });
    const held = await verify(`anchor_position=${entries!.position}&anchor_hash=${entries!.head_hash}`);
    t.true(held.body.verified, held.text);
    t.like(held.body.chains[0], { anchor: { position: entries!.position, holds: true } });
    t.is(held.body.chains[1].anchor, null);
    t.true(
      (await verify(`anchor_chain=audit_events&anchor_position=${audits!.position}&anchor_hash=${audits!.head_hash}`))
        .body.chains[1].anchor.holds,
    );
    // A head the chain no longer passes through: recomputed after an edit, its hash at that position differs.
    const forged = await verify(`anchor_position=${entries!.position}&anchor_hash=${'0'.repeat(64)}`);
    t.false(forged.body.verified);
    t.like(forged.body.chains[0], { verified: false, first_mismatch: null, anchor: { holds: false } });
    t.regex(forged.body.chains[0].message, /^The anchored head \(link \d+\) is not in the chain/);
    t.false(
      (await verify(`anchor_position=${entries!.position + 1000}&anchor_hash=${entries!.head_hash}`)).body.verified,
      'a position past the head',
    );
    const half = await verify(`anchor_position=${entries!.position}`);
    t.like(half, { status: 400, body: { errors: [{ field: 'anchor_hash' }] } });
    t.is((await verify('anchor_position=1&anchor_hash=xyz')).status, 400);
  },
);
