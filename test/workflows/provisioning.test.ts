import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { provisionRowsAt } from '../../activities/loans/provisioning.activity';
import { businessIdKey, enterpriseCodeKey, provisioningScheduleId } from '../../workflows/identities';
import { doubtfulAccounts, provisionAccounts } from '../../domain/loans/doubtful-accounts';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { approveRequest } from '../helpers/approvals';
import {
  accountBalance,
  approvedLoan,
  asApprover,
  confirmedGuarantee,
  createLoanWorld,
  ledgerBalanced,
  memberOf,
  openSavingsAccount,
  setBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { until, untilWorkflow } from '../helpers/until';
import { newTaskQueue, withWorker } from '../helpers/worker';

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let worldCount = 0;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
});

async function world(): Promise<LoanWorld> {
  worldCount += 1;
  const created = await createLoanWorld(app, knex, `PV${worldCount}`);
  await knex('enterprise_configurations')
    .where({ enterprise_id: created.enterpriseId })
    .update({ business_date: '2026-01-15' });
  return created;
}

async function cashLoan(w: LoanWorld, client?: string): Promise<string> {
  const loanId = await approvedLoan(w, client ?? (await memberOf(w)), { amount: '1200000', term_periods: 12 });
  const response = await app.request('POST', `/api/v1/loans/loans/${loanId}/disbursement/`, {
    headers: w.users.cashier!.headers,
    json: { channel: 'cash' },
  });
  if (response.status !== 200) throw new Error(response.text);
  return loanId;
}

/** Pays what is due on a loan today (overdue installments and penalties), in cash. */
async function payArrears(w: LoanWorld, loanId: string, includeNext = false): Promise<void> {
  const { position } = (
    await app.request('GET', `/api/v1/loans/loans/${loanId}/`, { headers: w.users.cashier!.headers })
  ).body;
  const amount = includeNext
    ? position.payable
    : new Money(position.overdue_principal).plus(position.overdue_interest).plus(position.penalties).toFixed(0);
  const response = await app.request('POST', '/api/v1/loans/repayments/', {
    headers: w.users.cashier!.headers,
    json: { loan: loanId, amount },
  });
  if (response.status !== 201) throw new Error(response.text);
}

async function run(w: LoanWorld, asOf?: string) {
  const started = await app.request('POST', '/api/v1/loans/provisions/runs/', {
    headers: w.users.direction!.headers,
    json: { enterprise: w.enterpriseId, ...(asOf === undefined ? {} : { as_of: asOf }) },
  });
  if (started.status !== 202) throw new Error(started.text);
  return started.body as { id: string; workflow_id: string };
}

async function completed(w: LoanWorld, runId: string) {
  return untilWorkflow({
    workflowId: `provisioning-run-${runId}`,
    what: `the provisioning run ${runId}`,
    read: async () => {
      const body = (
        await app.request('GET', `/api/v1/loans/provisions/runs/${runId}/`, { headers: w.users.direction!.headers })
      ).body;
      return body.status === 'running' ? undefined : body;
    },
  });
}

const stateOf = async (loanId: string) =>
  knex('loans').where({ id: loanId }).first('classification', 'provision_amount', 'days_past_due');
/**
 * The provisions of the loans at `asOf`: each loan's latest row on or before it (rows are written when a position
 * changes).
 */
const provisionsOn = async (w: LoanWorld, asOf: string) =>
  (
    await knex
      .from(provisionRowsAt(knex, asOf).where('l.enterprise_id', w.enterpriseId).as('positions'))
      .first(knex.raw('COALESCE(sum(amount), 0)::text AS total'))
  ).total as string;

/**
 * Books and sub-ledgers agree: balanced; the provision accounts (39100, 392x, 393x) = the provisions of the date, each
 * the provisions of the loans it holds; 3221, 3312 and each doubtful account (3332, 3342, 3352) = the principal it
 * holds.
 */
async function booksAgree(t: import('ava').ExecutionContext, w: LoanWorld, asOf: string) {
  t.true(await ledgerBalanced(knex, w.enterpriseId));
  const loans = () => knex('loans').where({ enterprise_id: w.enterpriseId }).whereIn('status', ['active', 'closed']);
  let provisions = new Money(0);
  for (const code of provisionAccounts) {
    const held = await loans()
      .where({ provision_account_code: code })
      .first(knex.raw('COALESCE(sum(provision_amount), 0)::text AS total'));
    const balance = await accountBalance(knex, w.enterpriseId, code);
    t.is(balance, new Money(held.total).negated().toFixed(0), `${code} holds the provisions of its loans`);
    provisions = provisions.minus(balance);
  }
  t.is(
    provisions.toFixed(0),
    await provisionsOn(w, asOf),
    `the provision accounts equal the LoanProvision total of ${asOf}`,
  );
  for (const [loanClass, code] of [
    ['performing', '3221'],
    ['overdue', '3312'],
  ] as const) {
    const principal = await loans()
      .where({ classification: loanClass })
      .first(knex.raw('COALESCE(sum(outstanding_principal), 0)::text AS total'));
    t.is(await accountBalance(knex, w.enterpriseId, code), principal.total, `${code} holds the ${loanClass} principal`);
  }
  for (const code of doubtfulAccounts) {
    const principal = await loans()
      .where({ classification: 'doubtful', doubtful_account_code: code })
      .first(knex.raw('COALESCE(sum(outstanding_principal), 0)::text AS total'));
    t.is(
      await accountBalance(knex, w.enterpriseId, code),
      principal.total,
      `${code} holds the doubtful principal of its cover`,
    );
  }
}

/**
 * Six cash loans of 1 200 000 from 15 January: one paid on time (performer), one late, a borrower's late loan
 * and, from 10 March, a current one of the same borrower, one covered by a mortgage and one by a deposit pledged on
 * its borrower's account (400 000 held), both confirmed by a second person.
 */
async function fixedPortfolio(t: import('ava').ExecutionContext, w: LoanWorld) {
  const performer = await cashLoan(w);
  const late = await cashLoan(w);
  const borrower = await memberOf(w);
  const lateOfTwo = await cashLoan(w, borrower);
  const mortgaged = await cashLoan(w);
  const pledger = await memberOf(w);
  const pledged = await cashLoan(w, pledger);
  const account = await openSavingsAccount(w, pledger, '400000');
  t.like(
    await confirmedGuarantee(w, { loan: mortgaged, kind: 'mortgage', value: '600000', start_date: '2026-01-15' }),
    { status: 'in_force' },
  );
  t.like(
    await confirmedGuarantee(w, {
      loan: pledged,
      kind: 'pledged_deposit',
      value: '400000',
      account,
      start_date: '2026-01-15',
    }),
    { status: 'in_force', account },
  );
  await setBusinessDate(w, '2026-02-15');
  await payArrears(w, performer, true);
  await setBusinessDate(w, '2026-03-10');
  const currentOfTwo = await cashLoan(w, borrower); // first installment 10 April: no arrears of its own
  await setBusinessDate(w, '2026-03-15');
  await payArrears(w, performer, true);
  return { performer, late, lateOfTwo, currentOfTwo, mortgaged, pledged };
}

/**
 * Write-off of the pledged loan: 200 000 covered by provisions (6921), the rest on 6922; what may not be written off.
 */
async function writeOffs(
  t: import('ava').ExecutionContext,
  w: LoanWorld,
  loans: { pledged: string; performer: string; mortgaged: string },
) {
  const { pledged, performer, mortgaged } = loans;
  // Under four eyes: direction asks, the administrator approves; the loan then reads written off.
  await approveRequest(
    knex,
    await app.request('POST', `/api/v1/loans/loans/${pledged}/write-off/`, {
      headers: w.users.direction!.headers,
      json: {},
    }),
    asApprover(w),
  );
  const writeOff = await app.request('GET', `/api/v1/loans/loans/${pledged}/`, { headers: w.users.direction!.headers });
  t.is(writeOff.status, 200, writeOff.text);
  t.like(writeOff.body, {
    status: 'written_off',
    written_off_amount: '1200000',
    outstanding_principal: '0',
    provision_amount: '0',
  });
  t.is(await accountBalance(knex, w.enterpriseId, '6921'), '200000');
  t.is(await accountBalance(knex, w.enterpriseId, '6922'), '1000000');
  t.is(
    await accountBalance(knex, w.enterpriseId, '3342'),
    '1200000',
    'the principal credited to the account of its cover: the mortgaged loan is left',
  );
  t.is(
    await accountBalance(knex, w.enterpriseId, '3921'),
    '-150000',
    "its 200 000 of provisions reversed from 3921: the mortgaged loan's are left",
  );
  t.is(
    (
      await app.request('POST', `/api/v1/loans/loans/${performer}/write-off/`, {
        headers: w.users.direction!.headers,
        json: {},
      })
    ).body.code,
    'loan_not_doubtful',
  );
  const relatedParty = (await knex('loans').where({ id: mortgaged }).first()).client_id;
  await knex('client_profiles').where({ id: relatedParty }).update({ related_party: true });
  t.is(
    (
      await app.request('POST', `/api/v1/loans/loans/${mortgaged}/write-off/`, {
        headers: w.users.direction!.headers,
        json: {},
      })
    ).body.code,
    'write_off_approval_required',
  );
  t.is(
    (await app.request('GET', `/api/v1/loans/loans/${pledged}/`, { headers: w.users.cashier!.headers })).body.status,
    'written_off',
    'still readable',
  );
  t.is(
    (
      await app.request('POST', '/api/v1/loans/repayments/', {
        headers: w.users.cashier!.headers,
        json: { loan: pledged, amount: '1000' },
      })
    ).body.code,
    'loan_written_off',
  );
}

/**
 * One entry per (branch, kind, account pair) of a batch, not one per loan: 3312 to 3352 for the two uncovered late
 * loans, 3312 to 3342 for the mortgaged and the pledged ones (sûretés réelles), 3221 to 3352 for the current one;
 * provisions 300 000 × 3 on 3931, 150 000 + 200 000 on 3921.
 */
async function entriesAggregated(t: import('ava').ExecutionContext, w: LoanWorld, runId: string) {
  const entriesOf = (kind: string) =>
    knex('business_event_logs')
      .where({ enterprise_id: w.enterpriseId, kind })
      .whereRaw(`payload->>'run' = ?`, [runId])
      .orderBy('amount');
  t.deepEqual(
    (await entriesOf('reclassification_doubtful')).map((event) => [event.amount, event.payload.loans]),
    [
      ['1200000', 1],
      ['2400000', 2],
      ['2400000', 2],
    ],
  );
  t.deepEqual(
    (await entriesOf('provision_charge')).map((event) => [event.amount, event.payload.loans]),
    [
      ['350000', 2],
      ['900000', 3],
    ],
  );
}

/** Covered by sûretés réelles (a mortgage, a pledged deposit): 3342 and 3921; the others 3352 and 3931. */
async function accountsByCover(
  t: import('ava').ExecutionContext,
  w: LoanWorld,
  loans: { mortgaged: string; pledged: string; late: string },
) {
  t.like(await knex('loans').where({ id: loans.mortgaged }).first(), {
    doubtful_account_code: '3342',
    provision_account_code: '3921',
  });
  t.like(await knex('loans').where({ id: loans.pledged }).first(), {
    doubtful_account_code: '3342',
    provision_account_code: '3921',
  });
  t.like(await knex('loans').where({ id: loans.late }).first(), {
    doubtful_account_code: '3352',
    provision_account_code: '3931',
  });
  t.deepEqual(
    await Promise.all(['3342', '3352', '3921', '3931'].map((code) => accountBalance(knex, w.enterpriseId, code))),
    ['2400000', '3600000', '-350000', '-900000'],
  );
}

/** A date between runs answers with the positions of the last run before it; the performer never had a row. */
async function positionsBetweenRuns(t: import('ava').ExecutionContext, w: LoanWorld, performer: string) {
  t.is(await provisionsOn(w, '2026-04-05'), '1250000');
  t.is(
    (await knex('loan_provisions').where({ loan_id: performer })).length,
    0,
    'performing and unprovisioned all along: no row',
  );
  const between = await app.request('GET', `/api/v1/loans/provisions/?enterprise=${w.enterpriseId}&as_of=2026-04-05`, {
    headers: w.users.direction!.headers,
  });
  t.is(between.body.count, 5);
}

type Portfolio = Awaited<ReturnType<typeof fixedPortfolio>>;

async function firstRunOverdue(
  t: ExecutionContext,
  w: LoanWorld,
  { performer, late, lateOfTwo, currentOfTwo, mortgaged, pledged }: Portfolio,
) {
  // 1 April: installments unpaid since 15 February are 45 days late: overdue, provisioned at 0 %.
  await setBusinessDate(w, '2026-04-01');
  const first = await completed(w, (await run(w)).id);
  t.like(first, {
    status: 'completed',
    as_of: '2026-04-01',
    loans_processed: 6,
    provisions_changed: 0,
    loans_reclassified: 4,
    amount_charged: '0',
  });
  t.is(await accountBalance(knex, w.enterpriseId, '3312'), '4800000', 'four loans moved to the overdue account');
  t.deepEqual(
    await Promise.all(
      [performer, late, lateOfTwo, currentOfTwo, mortgaged, pledged].map(
        async (id) => (await stateOf(id)).classification,
      ),
    ),
    ['performing', 'overdue', 'overdue', 'performing', 'overdue', 'overdue'],
  );
  await booksAgree(t, w, '2026-04-01');
}

async function secondRunDoubtful(
  t: ExecutionContext,
  w: LoanWorld,
  { performer, late, lateOfTwo, currentOfTwo, mortgaged, pledged }: Portfolio,
) {
  // 2 April: 46 days: doubtful; the borrower's current loan follows (contagion), at the borrower's age.
  await setBusinessDate(w, '2026-04-02');
  const second = await completed(w, (await run(w)).id);
  t.like(second, {
    loans_processed: 6,
    provisions_changed: 5,
    loans_reclassified: 5,
    amount_charged: '1250000',
    amount_reversed: '0',
  });
  t.like(await stateOf(late), { classification: 'doubtful', provision_amount: '300000', days_past_due: 46 });
  t.like(await stateOf(lateOfTwo), { classification: 'doubtful', provision_amount: '300000' });
  t.like(await stateOf(currentOfTwo), {
    classification: 'doubtful',
    provision_amount: '300000',
    days_past_due: 0,
  });
  t.like(
    await stateOf(mortgaged),
    { classification: 'doubtful', provision_amount: '150000' },
    '25 % of the 600 000 the mortgage leaves uncovered',
  );
  t.like(
    await stateOf(pledged),
    { classification: 'doubtful', provision_amount: '200000' },
    '25 % of the 800 000 the pledged deposit leaves uncovered',
  );
  t.like(await stateOf(performer), { classification: 'performing', provision_amount: '0' });
  const row = await knex('loan_provisions').where({ loan_id: mortgaged, as_of: '2026-04-02' }).first();
  t.like(row, {
    days_past_due: 46,
    classification: 'doubtful',
    rate: '0.250000',
    base: '1200000',
    uncovered: '600000',
    amount: '150000',
    previous_amount: '0',
    delta: '150000',
  });
  await accountsByCover(t, w, { mortgaged, pledged, late });
  await booksAgree(t, w, '2026-04-02');
  return second;
}

/** The second run's figures as the API reads them: totals by class, a loan's provision, the run. */
async function assertSecondRunRead(
  t: ExecutionContext,
  w: LoanWorld,
  { performer, mortgaged }: Portfolio,
  secondId: string,
) {
  const totals = await app.request(
    'GET',
    `/api/v1/loans/provisions/totals/?enterprise=${w.enterpriseId}&as_of=2026-04-02`,
    { headers: w.users.direction!.headers },
  );
  t.deepEqual(totals.body.by_class, [
    { classification: 'doubtful', loans: 5, outstanding: '6000000', uncovered: '5000000', provisions: '1250000' },
    {
      classification: 'performing',
      loans: 1,
      outstanding: (await knex('loans').where({ id: performer }).first()).outstanding_principal,
      uncovered: (await knex('loans').where({ id: performer }).first()).outstanding_principal,
      provisions: '0',
    },
  ]);
  const listed = await app.request('GET', `/api/v1/loans/provisions/?loan=${mortgaged}&as_of=2026-04-02`, {
    headers: w.users.direction!.headers,
  });
  t.like(listed.body.results[0], {
    loan: mortgaged,
    run: secondId,
    classification: 'doubtful',
    uncovered: '600000',
    amount: '150000',
    delta: '150000',
  });
  const runs = await app.request(
    'GET',
    `/api/v1/loans/provisions/runs/?enterprise=${w.enterpriseId}&as_of=2026-04-02`,
    { headers: w.users.direction!.headers },
  );
  t.like(runs.body.results[0], { id: secondId, trigger: 'api', workflow_id: `provisioning-run-${secondId}` });
}

async function assertRerunPostsNothing(t: ExecutionContext, w: LoanWorld) {
  // The same date again: every loan looked at, nothing changed, nothing posted, no row written.
  const entries = Number(
    (await knex('journal_entries').where({ enterprise_id: w.enterpriseId }).count({ count: '*' }).first())!.count,
  );
  const rows = (await knex('loan_provisions').where({ enterprise_id: w.enterpriseId })).length;
  t.like(await completed(w, (await run(w, '2026-04-02')).id), {
    loans_processed: 6,
    provisions_changed: 0,
    loans_reclassified: 0,
  });
  t.is((await knex('loan_provisions').where({ enterprise_id: w.enterpriseId })).length, rows);
  t.is(
    Number(
      (await knex('journal_entries').where({ enterprise_id: w.enterpriseId }).count({ count: '*' }).first())!.count,
    ),
    entries,
  );
  const earlier = await app.request('POST', '/api/v1/loans/provisions/runs/', {
    headers: w.users.direction!.headers,
    json: { enterprise: w.enterpriseId, as_of: '2026-04-01' },
  });
  t.is(earlier.body.code, 'provisioning_date_passed');
}

async function litigiousProvisionedInFull(t: ExecutionContext, w: LoanWorld, performer: string) {
  // A litigious loan is doubtful at once, whatever its age, and its uncovered principal provisioned in full at
  // once (R-2017/07 Arts. 17, 22).
  t.is(
    (
      await app.request('POST', `/api/v1/loans/loans/${performer}/litigation/`, {
        headers: w.users.direction!.headers,
        json: { litigious: true, reason: 'court case' },
      })
    ).status,
    200,
  );
  await setBusinessDate(w, '2026-04-11');
  await completed(w, (await run(w)).id);
  const { outstanding_principal: owed } = await knex('loans').where({ id: performer }).first('outstanding_principal');
  t.like(await stateOf(performer), { classification: 'doubtful', days_past_due: 0, provision_amount: owed });
  t.is(
    await provisionsOn(w, '2026-04-11'),
    new Money(750_000).plus(owed).toFixed(0),
    'the pledged loan left the portfolio: 300 000 × 2 + 150 000, and the litigious loan in full',
  );
  t.true(await ledgerBalanced(knex, w.enterpriseId));
  t.is(
    await accountBalance(knex, w.enterpriseId, '3931'),
    new Money(600_000).plus(owed).negated().toFixed(0),
    'the two loans of the borrower and the litigious one',
  );
  t.is(
    await accountBalance(knex, w.enterpriseId, '3921'),
    '-150000',
    'the mortgaged loan; the pledged one written off',
  );
}

test.serial(
  'a fixed portfolio: classes, contagion, covers and provisions at several dates; a rerun posts ' +
    'nothing; the way back; write-off',
  async (t) => {
    const w = await world();
    await withWorker(
      knex,
      async () => {
        const portfolio = await fixedPortfolio(t, w);
        const { performer, late, mortgaged, pledged } = portfolio;

        await firstRunOverdue(t, w, portfolio);

        const second = await secondRunDoubtful(t, w, portfolio);
        await assertSecondRunRead(t, w, portfolio, second.id as string);

        await entriesAggregated(t, w, second.id);
        await assertRerunPostsNothing(t, w);

        // 10 April: the single borrower clears the arrears: back to performing, provision reversed.
        await setBusinessDate(w, '2026-04-10');
        await payArrears(w, late);
        t.like(await completed(w, (await run(w)).id), { amount_reversed: '300000' });
        t.like(await stateOf(late), { classification: 'performing', provision_amount: '0', days_past_due: 0 });
        await booksAgree(t, w, '2026-04-10');

        await positionsBetweenRuns(t, w, performer);
        await writeOffs(t, w, { pledged, performer, mortgaged });

        await litigiousProvisionedInFull(t, w, performer);
      },
      taskQueue,
    );
  },
);

test.serial(
  'a worker stopped mid-run: another resumes from the committed cursor, nothing is posted twice',
  async (t) => {
    const w = await world();
    const loans: string[] = [];
    for (let index = 0; index < 6; index += 1) loans.push(await cashLoan(w));
    await setBusinessDate(w, '2026-04-02'); // every loan 46 days late: doubtful, 25 %
    const runRow = await knex('provisioning_runs')
      .insert({ enterprise_id: w.enterpriseId, as_of: '2026-04-02', trigger: 'api' })
      .returning('id');
    const runId = runRow[0].id as string;
    await withWorker(
      knex,
      async ({ client }) => {
        // A batch whose completion the stopping worker could not report is retried after 3 s, not the default 2
        // minutes.
        const input = { enterpriseId: w.enterpriseId, runId, batchSize: 1, batchTimeoutSeconds: 3 };
        await client.workflow.start('provisioningRun', {
          taskQueue,
          workflowId: `provisioning-run-${runId}`,
          args: [input],
        });
        await untilWorkflow({
          workflowId: `provisioning-run-${runId}`,
          what: 'two loans of the run provisioned',
          read: async () =>
            (await knex('provisioning_runs').where({ id: runId }).first()).loans_processed >= 2 ? true : undefined,
        });
      },
      taskQueue,
    );
    const midway = (await knex('provisioning_runs').where({ id: runId }).first()).loans_processed as number;
    t.true(midway >= 2 && midway < 6, `stopped after ${midway} loans`);
    await withWorker(
      knex,
      async ({ client }) => {
        await client.workflow.getHandle(`provisioning-run-${runId}`).result();
      },
      taskQueue,
    );
    t.like(await knex('provisioning_runs').where({ id: runId }).first(), {
      status: 'completed',
      loans_processed: 6,
      provisions_changed: 6,
      amount_charged: '1800000',
    });
    t.is((await knex('loan_provisions').where({ run_id: runId })).length, 6);
    t.is(
      (await knex('business_event_logs').where({ enterprise_id: w.enterpriseId, kind: 'provision_charge' })).length,
      6,
    );
    await booksAgree(t, w, '2026-04-02');
  },
);

test.serial('every enterprise gets its daily Schedule; triggered, it provisions the business date', async (t) => {
  const w = await world();
  await cashLoan(w);
  await withWorker(
    knex,
    async ({ client: temporal }) => {
      const schedule = temporal.schedule.getHandle(provisioningScheduleId(w.enterpriseId));
      const description = await schedule.describe();
      t.is(description.action.type, 'startWorkflow');
      t.is(description.action.workflowType, 'provisioningRun');
      t.is(description.policies.overlap, 'SKIP');
      t.is(description.spec.calendars?.[0]?.hour?.[0]?.start, 2, 'at the configured hour (2 by default)');
      t.is(description.spec.timezone, 'Africa/Douala');
      const patched = await app.request('PATCH', `/api/v1/enterprise/enterprises/${w.enterpriseId}/configuration/`, {
        headers: w.users.direction!.headers,
        json: { provisioning_hour: 5 },
      });
      t.is(patched.status, 200);
      t.is(
        (await schedule.describe()).spec.calendars?.[0]?.hour?.[0]?.start,
        5,
        'the schedule follows the configuration',
      );
      await schedule.trigger();
      const runRow = () => knex('provisioning_runs').where({ enterprise_id: w.enterpriseId }).first();
      await until('the run the Schedule started to complete', async () => (await runRow())?.status === 'completed');
      t.like(await runRow(), { trigger: 'schedule', status: 'completed', as_of: '2026-01-15', loans_processed: 1 });
      // Started with the cooperative's code, the run adds its own id, prefixed with the code, as its business id.
      const started = (await schedule.describe()).info.recentActions.at(-1)!.action.workflow.workflowId;
      const tags = (await temporal.workflow.getHandle(started).describe()).typedSearchAttributes;
      const { code } = await knex('enterprises').where({ id: w.enterpriseId }).first('code');
      t.is(tags.get(enterpriseCodeKey), code);
      t.is(tags.get(businessIdKey), `${code}/${(await runRow()).id}`);
    },
    taskQueue,
  );
});

test.serial(
  'the entries of a run are dated its as-of date: the run of January 1 books the positions of ' +
    'December 31 in December, the year of those positions',
  async (t) => {
    const w = await world();
    const loanId = await cashLoan(w); // due from 15 February, never paid: 319 days late on 31 December, doubtful
    const nextYear = await app.request('POST', '/api/v1/enterprise/exercices/', {
      headers: w.users.direction!.headers,
      json: { enterprise: w.enterpriseId, code: '2027', start_date: '2027-01-01', end_date: '2027-12-31' },
    });
    t.is(nextYear.status, 201, nextYear.text);
    await setBusinessDate(w, '2027-01-01');
    await withWorker(
      knex,
      async () =>
        t.like(await completed(w, (await run(w, '2026-12-31')).id), {
          status: 'completed',
          as_of: '2026-12-31',
          loans_reclassified: 1,
        }),
      taskQueue,
    );
    const posted = await knex('business_event_logs as ev')
      .join('journal_entries as e', 'e.event_id', 'ev.id')
      .where('ev.enterprise_id', w.enterpriseId)
      .whereIn('ev.kind', ['reclassification_doubtful', 'provision_charge'])
      .orderBy('ev.kind')
      .select('ev.kind', 'ev.business_date', 'e.entry_date', 'ev.amount');
    // Hand-computed: 1 200 000 moved to 3352 (no cover), and 75 % of it provisioned (181 to 365 days late) on 3931.
    t.deepEqual(
      posted.map((row) => [row.kind, row.business_date, row.entry_date, row.amount]),
      [
        ['provision_charge', '2026-12-31', '2026-12-31', '900000'],
        ['reclassification_doubtful', '2026-12-31', '2026-12-31', '1200000'],
      ],
    );
    t.like(await stateOf(loanId), { classification: 'doubtful', provision_amount: '900000', days_past_due: 319 });
    await booksAgree(t, w, '2026-12-31');
  },
);
