import fs from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import { provisionBatch, startProvisioningRun } from '../../activities/loans/provisioning.activity';
import { loansAt } from '../../activities/loans/positions-at';
import { startTestApp, type TestApp } from '../helpers/app';
import { approveRequest } from '../helpers/approvals';
import { testClock } from '../helpers/clock';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import {
  approvedLoan,
  createLoanWorld,
  ledgerBalanced,
  memberOf,
  setBusinessDate,
  type LoanWorld,
} from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { until } from '../helpers/until';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * Restructuring (R-2017/07 Arts. 11–14, docs/domain.md §14.2) through the API, its four-eyes request's workflow and
 * the provisioning run. Figures by hand: 1 200 000 over 12 months at 18 % (annuity), disbursed 15 January 2026,
 * penalties set to 0 to keep them out of the sums. Period rate 1.5 %: A = 1 200 000 × 0.015 / (1 − 1.015^−12)
 * = 110 015.90, 110 016 a month. Installment 1: interest 18 000, principal 92 016; installment 2: interest
 * 1 107 984 × 0.015 = 16 619.76 → 16 620, principal 93 396.
 */
const file = fileTeardown(test);
const taskQueue = newTaskQueue();
// Recorded with RECORD_HISTORIES=1: the history of a restructuring's approval request; a change that breaks it fails
// here.
const historyFile = path.join(__dirname, 'histories', 'loan-restructuring-approved.json');
let app: TestApp;
let knex: Knex;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
});

const level = 110_016;
const arrearsPrincipal = 92_016 + 93_396;
const arrearsInterest = 18_000 + 16_620;

async function cashLoan(w: LoanWorld, clientId?: string): Promise<string> {
  const loanId = await approvedLoan(w, clientId ?? (await memberOf(w)), { amount: '1200000', term_periods: 12 });
  await knex('loans').where({ id: loanId }).update({ penalty_rate: '0' });
  const response = await app.request('POST', `/api/v1/loans/loans/${loanId}/disbursement/`, {
    headers: w.users.cashier!.headers,
    json: { channel: 'cash' },
  });
  if (response.status !== 200) throw new Error(response.text);
  return loanId;
}

async function runAt(w: LoanWorld, asOf: string) {
  const run = await startProvisioningRun(knex, testClock(), {
    enterpriseId: w.enterpriseId,
    asOf,
    trigger: 'api',
    requestedBy: null,
  });
  for (let status = 'running'; status === 'running';)
    status = (await provisionBatch(knex, testClock(), { runId: run.id, batchSize: 1000 })).status;
}

const loanRow = (loanId: string) =>
  knex('loans')
    .where({ id: loanId })
    .first(
      'classification',
      'provision_amount',
      'restructured',
      'restructuring_count',
      'schedule_version',
      'outstanding_principal',
    );

const restructure = (w: LoanWorld, loanId: string, as = 'branch_head', json: Record<string, unknown> = {}) =>
  app.request('POST', `/api/v1/loans/loans/${loanId}/restructurings/`, {
    headers: w.users[as]!.headers,
    json: {
      term_periods: 12,
      annual_rate: '0.18',
      capitalise_arrears: true,
      reason: 'harvest lost to drought',
      ...json,
    },
  });

async function repay(t: ExecutionContext, w: LoanWorld, loanId: string, date: string, amount: number) {
  await setBusinessDate(w, date);
  const repaid = await app.request('POST', '/api/v1/loans/repayments/', {
    headers: w.users.cashier!.headers,
    json: { loan: loanId, amount: String(amount) },
  });
  t.is(repaid.status, 201, repaid.text);
}

/**
 * A doubtful loan restructured on 2 April 2026 (two installments unpaid, 46 days), approved by the direction through
 * the workflow.
 */
async function restructuredDoubtful(
  t: ExecutionContext,
  w: LoanWorld,
  loanId: string,
  decide: (restructuringId: string) => Promise<void>,
) {
  await setBusinessDate(w, '2026-04-02');
  await runAt(w, '2026-04-02');
  // 46 days late: doubtful, 25 % of 1 200 000.
  t.like(await loanRow(loanId), { classification: 'doubtful', provision_amount: '300000' });
  const asked = await restructure(w, loanId);
  t.is(asked.status, 202, asked.text);
  // Granted by the direction (final step): Art. 13's level above it is the direction itself.
  t.deepEqual(asked.body.approver_roles, ['direction']);
  await decide(asked.body.payload.restructuringId as string);
  return asked.body.payload.restructuringId as string;
}

/** The new schedule: the first new installment carries a share of the capitalised interest; the arrears are closed. */
async function assertNewSchedule(t: ExecutionContext, w: LoanWorld, loanId: string) {
  const installments = await knex('loan_installments').where({ loan_id: loanId }).orderBy('number');
  t.is(installments.length, 14);
  t.like(installments[2], {
    number: 3,
    due_date: '2026-05-02',
    principal_due: '92016',
    interest_due: String(18_000 + 2_885),
  });
  t.like(installments[0], {
    paid_on: '2026-04-02',
    capitalised_on: '2026-04-02',
    principal_capitalised: '92016',
    interest_capitalised: '18000',
  });
  // A position at an earlier date still sees both installments unpaid.
  const before = (await loansAt(knex, { enterpriseId: w.enterpriseId, asOf: '2026-03-31', branches: 'all' })).find(
    (loan) => loan.loan === loanId,
  )!;
  t.is(before.arrears.toFixed(0), String(2 * level));
}

async function performingOnceArt14PaymentMade(t: ExecutionContext, w: LoanWorld, loanId: string, monthly: number) {
  // Art. 14: nothing in arrears, but doubtful while the borrower has paid under 240 000 within the transition; the
  // 300 000 kept.
  await runAt(w, '2026-04-02');
  t.like(await loanRow(loanId), { classification: 'doubtful', provision_amount: '300000' });
  await repay(t, w, loanId, '2026-05-02', monthly);
  await runAt(w, '2026-05-02');
  t.like(await loanRow(loanId), { classification: 'doubtful', provision_amount: '300000' });
  await repay(t, w, loanId, '2026-06-02', monthly);
  await runAt(w, '2026-06-02');
  t.like(await loanRow(loanId), { classification: 'doubtful' }, '225 802 paid: under 240 000');
  // The third installment takes it to 338 703: performing, the provision reversed.
  await repay(t, w, loanId, '2026-07-02', monthly);
  await runAt(w, '2026-07-02');
  t.like(await loanRow(loanId), { classification: 'performing', provision_amount: '0' });
  t.true(await ledgerBalanced(knex, w.enterpriseId));
}

async function assertRegisterOfJuly(t: ExecutionContext, w: LoanWorld, loanId: string, teg: string) {
  // The register: the loan at 2 July, performing; its outstanding after three new installments of principal 92 016,
  // 93 396 and 110 016 − 1 014 588 × 0.015 (15 218.82 → 15 219) = 94 797.
  const register = (as: string, date: string, extra = '') =>
    app.request('GET', `/api/v1/loans/restructured-register/?enterprise=${w.enterpriseId}&date=${date}${extra}`, {
      headers: w.users[as]!.headers,
    });
  const july = await register('direction', '2026-07-02');
  t.is(july.status, 200, july.text);
  t.is(july.body.loans.length, 1);
  t.like(july.body.loans[0], {
    loan: loanId,
    restructuring_count: 1,
    classification: 'performing',
    outstanding: String(1_200_000 - 92_016 - 93_396 - 94_797),
  });
  t.deepEqual(july.body.loans[0].restructurings, [
    {
      number: 1,
      effective_on: '2026-04-02',
      class_before: 'doubtful',
      restructured_amount: '1200000',
      required_payment: '240000',
      teg,
    },
  ]);
  t.is((await register('direction', '2026-03-31')).body.loans.length, 0, 'not yet restructured then');
  t.is((await register('other_head', '2026-07-02')).body.loans.length, 0, "another branch's head sees none of it");
  const csv = await register('direction', '2026-07-02', '&format=csv');
  t.is(csv.status, 200);
  t.true(csv.text.includes(july.body.loans[0].number as string), csv.text.slice(0, 300));
}

test.serial(
  'a doubtful loan restructured: the maker cannot approve, the direction does; it stays doubtful ' +
    "until Art. 14's payment is made",
  async (t) => {
    const w = await createLoanWorld(app, knex, 'RS1');
    await knex('enterprise_configurations')
      .where({ enterprise_id: w.enterpriseId })
      .update({ business_date: '2026-01-15' });
    const loanId = await cashLoan(w);
    const restructuringId = await withWorker(
      knex,
      async ({ client }) =>
        restructuredDoubtful(t, w, loanId, async (id) => {
          const decide = (as: string, decision: string, reason = '') =>
            app.request('POST', `/api/v1/loans/restructurings/${id}/decision/`, {
              headers: w.users[as]!.headers,
              json: { decision, reason },
            });
          // Four eyes: the maker may not decide, nor a role below the level required.
          t.like((await decide('branch_head', 'approve')).body, { code: 'approval_own_request' });
          t.like((await decide('committee', 'approve')).body, { code: 'approval_role_required' });
          const approved = await decide('direction', 'approve');
          t.is(approved.status, 200, approved.text);
          t.like(approved.body, {
            status: 'approved',
            number: 1,
            class_before: 'doubtful',
            schedule_version: 2,
            decided_by: w.users.direction!.id,
          });
          const handle = client.workflow.getHandle(`approval-request-${approved.body.approval_request as string}`);
          t.is((await handle.result()).status, 'approved');
          const { events } = await handle.fetchHistory();
          await t.notThrowsAsync(
            Worker.runReplayHistory(
              { workflowBundle: { codePath: testEnvironment().bundlePath } },
              { events },
              handle.workflowId,
            ),
          );
          if (process.env.RECORD_HISTORIES === '1')
            fs.writeFileSync(historyFile, historyToJSON(temporal.api.history.v1.History.create({ events })));
        }),
      taskQueue,
    );
    const detail = (
      await app.request('GET', `/api/v1/loans/restructurings/${restructuringId}/`, {
        headers: w.users.cashier!.headers,
      })
    ).body;
    // Everything owed capitalised: 185 412 of principal (1 200 000 still owed), 34 620 of interest spread as 2 885 a
    // month.
    t.like(detail, {
      effective_on: '2026-04-02',
      outstanding_before: '1200000',
      principal_capitalised: String(arrearsPrincipal),
      interest_capitalised: String(arrearsInterest),
      restructured_amount: '1200000',
      required_payment: '240000',
      first_due_date: '2026-05-02', // max(20 % × 1 200 000, 34 620)
    });
    t.like(await loanRow(loanId), { restructured: true, restructuring_count: 1, schedule_version: 2 });
    const monthly = level + arrearsInterest / 12; // 112 901
    await assertNewSchedule(t, w, loanId);

    await performingOnceArt14PaymentMade(t, w, loanId, monthly);

    await assertRegisterOfJuly(t, w, loanId, detail.teg as string);
  },
);

test.serial(
  'a restructured doubtful loan that misses an installment of the transition stays doubtful, fully ' +
    'provisioned; reject needs a reason',
  async (t) => {
    const w = await createLoanWorld(app, knex, 'RS2');
    await knex('enterprise_configurations')
      .where({ enterprise_id: w.enterpriseId })
      .update({ business_date: '2026-01-15' });
    const loanId = await cashLoan(w);
    await restructuredDoubtful(t, w, loanId, async (id) => {
      const request = await knex('approval_requests').whereRaw(`payload->>'restructuringId' = ?`, [id]).first();
      await approveRequest(
        knex,
        { status: 202, body: request, text: '', headers: new Headers() },
        { id: w.users.direction!.id, roles: ['direction'] },
      );
    });
    // The first new installment (2 May) unpaid: on 20 May the loan is doubtful and its 1 200 000 provisioned in full
    // (the ladder would give 0 % at 18 days, and the 300 000 of before could not be reversed anyway).
    await setBusinessDate(w, '2026-05-20');
    await runAt(w, '2026-05-20');
    t.like(await loanRow(loanId), { classification: 'doubtful', provision_amount: '1200000' });
    // Paid up late (112 901, of which 92 016 principal), still under 240 000: it stays there, the rest provisioned in
    // full.
    await repay(t, w, loanId, '2026-05-21', level + arrearsInterest / 12);
    await runAt(w, '2026-05-21');
    t.like(await loanRow(loanId), { classification: 'doubtful', provision_amount: String(1_200_000 - 92_016) });

    // A second request rejected: a reason is required; the restructuring ends rejected with it.
    const asked = await restructure(w, loanId, 'branch_head', { capitalise_arrears: false });
    t.is(asked.status, 202, asked.text);
    const id = asked.body.payload.restructuringId as string;
    await withWorker(
      knex,
      async () => {
        const decide = (reason: string) =>
          app.request('POST', `/api/v1/loans/restructurings/${id}/decision/`, {
            headers: w.users.direction!.headers,
            json: { decision: 'reject', reason },
          });
        const bare = await decide('');
        t.is(bare.status, 400);
        t.like(bare.body.errors[0], { field: 'reason' });
        const rejected = await decide('capacity to repay not shown');
        t.is(rejected.status, 200, rejected.text);
        t.like(rejected.body, { status: 'rejected', decision_reason: 'capacity to repay not shown' });
      },
      taskQueue,
    );
    await until(
      'the restructuring rejected',
      async () => (await knex('loan_restructurings').where({ id }).first()).status === 'rejected',
    );
    t.like(await loanRow(loanId), { restructuring_count: 1, schedule_version: 2 });
  },
);

test.serial(
  'a second restructuring classes even a performing loan doubtful; bad input is a 4xx naming the ' +
    'field; another branch sees nothing',
  async (t) => {
    const w = await createLoanWorld(app, knex, 'RS3');
    await knex('enterprise_configurations')
      .where({ enterprise_id: w.enterpriseId })
      .update({ business_date: '2026-01-15' });
    const loanId = await cashLoan(w);
    await setBusinessDate(w, '2026-02-01');
    const approve = async (answer: Awaited<ReturnType<typeof restructure>>) =>
      approveRequest(knex, answer, { id: w.users.direction!.id, roles: ['direction'] });
    t.is((await approve(await restructure(w, loanId, 'branch_head', { capitalise_arrears: false }))).status, 200);
    await runAt(w, '2026-02-01');
    t.like(
      await loanRow(loanId),
      { classification: 'performing', restructuring_count: 1 },
      'a performing loan restructured once is not held',
    );
    t.is(
      (await approve(await restructure(w, loanId, 'branch_head', { capitalise_arrears: false, term_periods: 18 })))
        .status,
      200,
    );
    await runAt(w, '2026-02-01');
    t.like(await loanRow(loanId), { classification: 'doubtful', restructuring_count: 2, schedule_version: 3 });

    for (const [json, field, status] of [
      [{ term_periods: 0 }, 'term_periods', 400],
      [{ term_periods: 25 }, 'term_periods', 422],
      [{ annual_rate: '-0.1' }, 'annual_rate', 400],
      [{ grace_periods: 12 }, 'grace_periods', 422],
      [{ reason: '' }, 'reason', 400],
      [{ capitalise_arrears: 'yes' }, 'capitalise_arrears', 400],
    ] as const) {
      const refused = await restructure(w, loanId, 'branch_head', json);
      t.is(refused.status, status, `${field}: ${refused.text}`);
      t.is(refused.body.errors?.[0]?.field, field);
    }
    // Another branch's head: 404 on the loan, and its restructurings are not in their list.
    t.is((await restructure(w, loanId, 'other_head')).status, 404);
    const theirs = await app.request('GET', '/api/v1/loans/restructurings/', { headers: w.users.other_head!.headers });
    t.is(theirs.body.count, 0);
    const ours = await app.request('GET', `/api/v1/loans/loans/${loanId}/restructurings/`, {
      headers: w.users.branch_head!.headers,
    });
    t.is(ours.body.count, 2);
    t.is(
      (
        await app.request('GET', `/api/v1/loans/restructurings/${ours.body.results[0].id as string}/`, {
          headers: w.users.other_head!.headers,
        })
      ).status,
      404,
    );
    // A cashier does not ask for a restructuring.
    t.is((await restructure(w, loanId, 'cashier')).status, 403);
  },
);

test.serial(
  "the enterprise's second-restructuring rule: as_first keeps a performing loan restructured twice " +
    'performing; direction sets it, a 400 names the field',
  async (t) => {
    const w = await createLoanWorld(app, knex, 'RS4');
    await knex('enterprise_configurations')
      .where({ enterprise_id: w.enterpriseId })
      .update({ business_date: '2026-01-15' });
    const configurationPath = `/api/v1/enterprise/enterprises/${w.enterpriseId}/configuration/`;
    const configure = (as: string, json: Record<string, unknown>) =>
      app.request('PATCH', configurationPath, { headers: w.users[as]!.headers, json });
    t.is(
      (await app.request('GET', configurationPath, { headers: w.users.branch_head!.headers })).body
        .second_restructuring_rule,
      'doubtful',
      'the default',
    );
    t.is(
      (await configure('branch_head', { second_restructuring_rule: 'as_first' })).status,
      403,
      'a branch head does not set it',
    );
    const bad = await configure('direction', { second_restructuring_rule: 'lenient' });
    t.is(bad.status, 400, bad.text);
    t.is(bad.body.errors[0].field, 'second_restructuring_rule');
    const set = await configure('direction', { second_restructuring_rule: 'as_first' });
    t.is(set.status, 200, set.text);
    t.is(set.body.second_restructuring_rule, 'as_first');

    const loanId = await cashLoan(w);
    await setBusinessDate(w, '2026-02-01');
    const approve = async (answer: Awaited<ReturnType<typeof restructure>>) =>
      approveRequest(knex, answer, { id: w.users.direction!.id, roles: ['direction'] });
    t.is((await approve(await restructure(w, loanId, 'branch_head', { capitalise_arrears: false }))).status, 200);
    t.is(
      (await approve(await restructure(w, loanId, 'branch_head', { capitalise_arrears: false, term_periods: 18 })))
        .status,
      200,
    );
    await runAt(w, '2026-02-01');
    // Art. 14 as for the first: a loan performing when restructured is not held, the second time too.
    t.like(await loanRow(loanId), { classification: 'performing', restructuring_count: 2, provision_amount: '0' });
    // Back to the default, the same loan is doubtful from the next run.
    t.is((await configure('direction', { second_restructuring_rule: 'doubtful' })).status, 200);
    await runAt(w, '2026-02-01');
    t.like(await loanRow(loanId), { classification: 'doubtful', restructuring_count: 2 });
  },
);

test.serial(
  'capitalising the interest arrears only: the principal in arrears stays due on its installments, ' +
    'the interest joins the new series',
  async (t) => {
    const w = await createLoanWorld(app, knex, 'RS5');
    await knex('enterprise_configurations')
      .where({ enterprise_id: w.enterpriseId })
      .update({ business_date: '2026-01-15' });
    const loanId = await cashLoan(w);
    await setBusinessDate(w, '2026-04-02');
    for (const [json, status] of [
      [{ capitalise_arrears: false, capitalised_arrears: 'interest' }, 400],
      [{ capitalised_arrears: 'some' }, 400],
    ] as const) {
      const refused = await restructure(w, loanId, 'branch_head', json);
      t.is(refused.status, status, refused.text);
      t.is(refused.body.errors?.[0]?.field, 'capitalised_arrears');
    }
    const asked = await restructure(w, loanId, 'branch_head', { capitalised_arrears: 'interest' });
    t.is(asked.status, 202, asked.text);
    t.is((await approveRequest(knex, asked, { id: w.users.direction!.id, roles: ['direction'] })).status, 200);
    const detail = (
      await app.request('GET', `/api/v1/loans/restructurings/${asked.body.payload.restructuringId as string}/`, {
        headers: w.users.cashier!.headers,
      })
    ).body;
    // Restructured: the principal not yet due, 1 200 000 − 185 412 = 1 014 588; Art. 14: max(20 % of it = 202 918, 34
    // 620).
    const restructured = 1_200_000 - arrearsPrincipal;
    t.like(detail, {
      capitalise_arrears: true,
      capitalised_arrears: 'interest',
      principal_capitalised: '0',
      interest_capitalised: String(arrearsInterest),
      restructured_amount: String(restructured),
      required_payment: String(Math.round(restructured * 0.2)),
    });
    const installments = await knex('loan_installments').where({ loan_id: loanId }).orderBy('number');
    t.is(installments.length, 14);
    for (const [index, principal] of [92_016, 93_396].entries()) {
      t.like(
        installments[index],
        { principal_due: String(principal), principal_paid: '0', principal_capitalised: '0', paid_on: null },
        `installment ${index + 1}: principal kept due`,
      );
      t.is(installments[index].interest_paid, installments[index].interest_due, 'its interest capitalised');
      t.is(installments[index].interest_capitalised, installments[index].interest_due);
    }
    // The new series: 1 014 588 over 12 months at 18 %, the 34 620 of interest spread as 2 885 a month.
    const level = Math.round((restructured * 0.015) / (1 - 1.015 ** -12));
    t.is(Number(installments[2].principal_due) + Number(installments[2].interest_due), level + arrearsInterest / 12);
    t.like(await loanRow(loanId), { outstanding_principal: '1200000', restructuring_count: 1 });
    // A repayment pays the principal kept due first, oldest installment first.
    const repaid = await app.request('POST', '/api/v1/loans/repayments/', {
      headers: w.users.cashier!.headers,
      json: { loan: loanId, amount: '92016' },
    });
    t.is(repaid.status, 201, repaid.text);
    t.like(repaid.body, { principal: '92016', interest: '0' });
    t.like(await knex('loan_installments').where({ loan_id: loanId, number: 1 }).first('principal_paid', 'paid_on'), {
      principal_paid: '92016',
      paid_on: '2026-04-02',
    });
    t.true(await ledgerBalanced(knex, w.enterpriseId));
  },
);

test.serial("a recorded history of a restructuring's approval replays against the current workflow code", async (t) => {
  const history = JSON.parse(fs.readFileSync(historyFile, 'utf8'));
  await t.notThrowsAsync(
    Worker.runReplayHistory(
      { workflowBundle: { codePath: testEnvironment().bundlePath } },
      history,
      'recorded-loan-restructuring',
    ),
  );
});
