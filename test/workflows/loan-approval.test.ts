import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import type { Knex } from 'knex';
import { Worker } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { recordLoanDecision } from '../../activities/loans/loan-approval.activity';
import { submitLoanApplication } from '../../activities/loans/loan-applications.activity';
import { Money } from '../../domain/money';
import { ensureTemporalCli } from '../../runtime/temporal-dev-server';
import { startTestApp, testActivityContext, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import {
  approvedLoan,
  createLoanWorld,
  ledgerBalanced,
  memberOf,
  submitApplication,
  type LoanWorld,
} from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { untilWorkflow } from '../helpers/until';
import { newTaskQueue, withWorker } from '../helpers/worker';
import { approvalStateQuery } from '../../workflows/definitions';
import { businessIdKey, enterpriseCodeKey } from '../../workflows/identities';
import { testClock } from '../helpers/clock';

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
// Recorded by the current code (RECORD_HISTORIES=1); the other, from before decisions were local activities,
// is what workflows started then replay.
const historyFile = path.join(__dirname, 'histories', 'loan-approval-approved-local-decisions.json');
const recordedHistories = [historyFile, path.join(__dirname, 'histories', 'loan-approval-approved.json')];
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'LAP');
});

const decide = (
  applicationId: string,
  as: string,
  decision: 'approve' | 'reject' | 'send_back',
  extra: { comment?: string; step?: string } = {},
) =>
  app.request('POST', `/api/v1/loans/applications/${applicationId}/decisions/`, {
    headers: world.users[as]!.headers,
    json: { decision, ...extra },
  });

async function submitted(amount = '1200000'): Promise<{ id: string; workflow_id: string; number: string }> {
  const response = await submitApplication(world, await memberOf(world), { amount });
  if (response.status !== 201) throw new Error(response.text);
  return response.body;
}

const onWorker = <T>(work: (client: Client) => Promise<T>) => withWorker(knex, ({ client }) => work(client), taskQueue);

test.serial(
  'the full circuit with four users: each decision persisted, the loan created with its schedule, the history replays',
  async (t) => {
    await onWorker(async (client) => {
      const application = await submitted();
      t.regex(application.number, /^HQ-D\d{4}-\d{5}$/);
      t.is(application.workflow_id, `loan-approval-${application.id}`);
      for (const [as, step] of [
        ['cashier', 'cashier'],
        ['branch_head', 'branch_head'],
        ['committee', 'credit_committee'],
      ] as const) {
        const response = await decide(application.id, as, 'approve', { comment: `ok ${step}` });
        t.is(response.status, 200, response.text);
        t.is(response.body.decisions.at(-1).step, step);
      }
      const state = await client.workflow.getHandle(application.workflow_id).query(approvalStateQuery);
      t.is(state.step, 'direction');
      t.is(state.decisions.length, 3);
      const final = await decide(application.id, 'direction', 'approve');
      t.like(final.body, { status: 'approved', current_step: null });
      t.deepEqual(
        final.body.decisions.map((row: { decided_by: string }) => row.decided_by),
        circuitIds(),
      );
      const result = await client.workflow.getHandle(application.workflow_id).result();
      t.is(result.status, 'approved');
      const loan = await knex('loans').where({ application_id: application.id }).first();
      t.is(result.loanId, loan.id);
      t.regex(loan.number, /^HQ-P\d{4}-\d{5}$/);
      t.like(loan, {
        status: 'awaiting_disbursement',
        principal: '1200000',
        fees: '12000',
        outstanding_principal: '1200000',
      });
      t.is((await knex('loan_installments').where({ loan_id: loan.id })).length, 12);
      t.is(
        (await knex('audit_events').where({ entity_id: application.id }).whereLike('action', 'loan_application.%'))
          .length,
        5,
        'submission and four decisions audited',
      );

      const { events } = await client.workflow.getHandle(application.workflow_id).fetchHistory();
      const eventTypes = events!.map((event) => event.eventType);
      t.is(
        eventTypes.filter((type) => type === temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).length,
        0,
        'no decision waits for an activity task',
      );
      t.is(
        eventTypes.filter(
          (type) => type === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
        ).length,
        4,
      );
      await t.notThrowsAsync(
        Worker.runReplayHistory(
          { workflowBundle: { codePath: testEnvironment().bundlePath } },
          { events },
          application.workflow_id,
        ),
      );
      if (process.env.RECORD_HISTORIES === '1')
        fs.writeFileSync(historyFile, historyToJSON(temporal.api.history.v1.History.create({ events })));
    });
  },
);

const circuitIds = () => ['cashier', 'branch_head', 'committee', 'direction'].map((name) => world.users[name]!.id);

test.serial(
  'the recorded histories of the approval, before and since local decisions, replay against the current workflow code',
  async (t) => {
    for (const recorded of recordedHistories) {
      const history = JSON.parse(fs.readFileSync(recorded, 'utf8'));
      await t.notThrowsAsync(
        Worker.runReplayHistory(
          { workflowBundle: { codePath: testEnvironment().bundlePath } },
          history,
          path.basename(recorded),
        ),
      );
    }
  },
);

test.serial(
  'refusals: wrong step, same person twice, another branch, a missing comment, a decision after the end',
  async (t) => {
    await onWorker(async () => {
      const application = await submitted();
      const wrongStep = await decide(application.id, 'branch_head', 'approve', { step: 'branch_head' });
      t.is(wrongStep.status, 409);
      t.is(wrongStep.body.code, 'wrong_step', 'the workflow validator refuses a step out of turn');
      t.is(
        (await decide(application.id, 'branch_head', 'approve')).body.code,
        'role_required',
        "the API checks the current step's role first",
      );
      t.is(
        (await decide(application.id, 'other_head', 'approve')).status,
        404,
        'an application of another branch is not visible',
      );
      t.is((await decide(application.id, 'cashier_and_head', 'approve')).status, 200);
      const twice = await decide(application.id, 'cashier_and_head', 'approve');
      t.is(twice.status, 409);
      t.is(twice.body.code, 'same_person_twice');
      t.is((await decide(application.id, 'branch_head', 'reject')).body.errors[0].field, 'comment');
      const rejected = await decide(application.id, 'branch_head', 'reject', { comment: 'income too irregular' });
      t.like(rejected.body, {
        status: 'rejected',
        current_step: null,
        status_reason: 'income too irregular',
        loan: null,
      });
      const after = await decide(application.id, 'committee', 'approve');
      t.is(after.status, 409);
      t.is(after.body.code, 'application_closed');
      t.is(
        (await knex('loan_application_decisions').where({ application_id: application.id })).length,
        2,
        'only accepted decisions are recorded',
      );
    });
  },
);

test.serial('send back returns the application to the previous step, which decides again', async (t) => {
  await onWorker(async () => {
    const application = await submitted();
    await decide(application.id, 'cashier', 'approve');
    t.is((await decide(application.id, 'cashier', 'send_back', { comment: 'x' })).body.code, 'role_required');
    const sentBack = await decide(application.id, 'branch_head', 'send_back', { comment: 'missing payslip' });
    t.like(sentBack.body, { status: 'in_review', current_step: 'cashier' });
    t.is(
      (await decide(application.id, 'cashier', 'approve', { comment: 'payslip added' })).body.current_step,
      'branch_head',
    );
    t.deepEqual(
      (await knex('loan_application_decisions').where({ application_id: application.id }).orderBy('decided_at')).map(
        (row) => `${row.step}:${row.decision}`,
      ),
      ['cashier:approve', 'branch_head:send_back', 'cashier:approve'],
    );
  });
});

test.serial('the submitter may withdraw an application in review; nobody else', async (t) => {
  await onWorker(async () => {
    const application = await submitted();
    const withdraw = (as: string) =>
      app.request('POST', `/api/v1/loans/applications/${application.id}/withdrawal/`, {
        headers: world.users[as]!.headers,
        json: { comment: 'member changed their mind' },
      });
    t.is((await withdraw('branch_head')).body.code, 'not_submitter');
    t.like((await withdraw('teller')).body, { status: 'withdrawn', current_step: null });
    t.is((await withdraw('teller')).body.code, 'application_closed');
  });
});

test.serial('a step left undecided beyond its limit expires the application, with the reason recorded', async (t) => {
  await onWorker(async (client) => {
    const actor = { userId: world.users.cashier!.id, grants: [], requestId: 'test' };
    const context = testActivityContext(knex);
    const { application } = await submitLoanApplication(context, actor, {
      clientId: await memberOf(world),
      productId: world.productId,
      amount: new Money(500000),
      termPeriods: 6,
      gracePeriods: 0,
      purpose: '',
    });
    const handle = await client.workflow.start('loanApproval', {
      taskQueue,
      workflowId: application.workflowId,
      args: [
        {
          applicationId: application.id,
          enterpriseId: application.enterpriseId,
          branchId: application.branchId,
          applicationNumber: application.number,
          stepTimeLimitSeconds: 2,
        },
      ],
    });
    const result = await handle.result();
    t.is(result.status, 'expired');
    const row = await knex('loan_applications').where({ id: application.id }).first();
    t.like(row, {
      status: 'expired',
      current_step: null,
      status_reason: 'The cashier step was not decided within 2 second(s).',
    });
  });
});

test.serial('a worker stopped between two steps: another resumes the workflow, nothing lost or doubled', async (t) => {
  const application = await onWorker(async () => {
    const created = await submitted();
    t.is((await decide(created.id, 'cashier', 'approve')).status, 200);
    t.is((await decide(created.id, 'branch_head', 'approve')).status, 200);
    return created;
  });
  // The first worker is gone; a new one on the same queue picks the workflow up from its history.
  await onWorker(async (client) => {
    t.is((await decide(application.id, 'committee', 'approve')).status, 200);
    t.is((await decide(application.id, 'direction', 'approve')).body.status, 'approved');
    t.is((await client.workflow.getHandle(application.workflow_id).result()).status, 'approved');
  });
  t.is((await knex('loan_application_decisions').where({ application_id: application.id })).length, 4);
  t.is((await knex('loans').where({ application_id: application.id })).length, 1);
});

test.serial(
  'the credit cap is checked again at final approval: a breach refuses the decision, the step stays open',
  async (t) => {
    await onWorker(async () => {
      const client = await memberOf(world);
      const response = await submitApplication(world, client, { amount: '60000000' });
      t.is(response.status, 201, response.text);
      for (const as of ['cashier', 'branch_head', 'committee'])
        t.is((await decide(response.body.id, as, 'approve')).status, 200);
      // Meanwhile another loan of 50 M is granted to the same member: 110 M would exceed the 100 M cap.
      await approvedLoan(world, client, { amount: '50000000' });
      const final = await decide(response.body.id, 'direction', 'approve');
      t.is(final.status, 409);
      t.is(final.body.code, 'cap_share_capital');
      const row = await knex('loan_applications').where({ id: response.body.id }).first();
      t.like(row, { status: 'in_review', current_step: 'direction' });
      t.true(await ledgerBalanced(knex, world.enterpriseId));
    });
  },
);

test.serial('operators find the workflow with the temporal CLI by its search attributes', async (t) => {
  const application = await onWorker(async (client) => {
    const created = await submitted();
    // The first task (and its upsert) has run.
    await client.workflow.getHandle(created.workflow_id).query(approvalStateQuery);
    return created;
  });
  const cli = ensureTemporalCli();
  const address = testEnvironment().temporalAddress;
  // Application numbers repeat across enterprises: the business id carries the enterprise's code (docs/architecture.md
  // §5).
  const query =
    `CoopBusinessId='LAP/${application.number}' AND CoopEnterpriseId='${world.enterpriseId}' ` +
    `AND CoopBranchId='${world.headOffice}'`;
  // Visibility is eventually consistent: poll.
  await untilWorkflow({
    workflowId: application.workflow_id,
    what: `the CLI to list the workflow by ${query}`,
    read: async () =>
      execFileSync(cli, ['workflow', 'list', '--address', address, '--query', query], { encoding: 'utf8' }).includes(
        application.workflow_id,
      )
        ? true
        : undefined,
  });
  const described = JSON.parse(
    execFileSync(
      cli,
      ['workflow', 'describe', '--address', address, '--workflow-id', application.workflow_id, '--output', 'json'],
      { encoding: 'utf8' },
    ),
  );
  // Payloads are JSON, base64-encoded in the CLI's JSON output.
  const attribute = (name: string) =>
    JSON.parse(
      Buffer.from(described.workflowExecutionInfo.searchAttributes.indexedFields[name].data, 'base64').toString('utf8'),
    );
  t.is(attribute('CoopBusinessId'), `LAP/${application.number}`);
  t.is(attribute('CoopEnterpriseId'), world.enterpriseId);
  t.is(attribute('CoopBranchId'), world.headOffice);
});

test.serial(
  'a started approval is found by the code of its cooperative, its business id prefixed with the code',
  async (t) => {
    const application = await submitted();
    const client = new Client({ connection: await Connection.connect({ address: testEnvironment().temporalAddress }) });
    t.teardown(() => client.connection.close());
    const query = `CoopEnterpriseCode='LAP' AND WorkflowId='${application.workflow_id}'`;
    // Visibility is eventually consistent: poll. No worker needed: the start carries the search attributes.
    const listed = await untilWorkflow({
      workflowId: application.workflow_id,
      what: `the client to list the workflow by ${query}`,
      read: async () => {
        for await (const execution of client.workflow.list({ query })) return execution;
        return undefined;
      },
    });
    t.is(listed.workflowId, application.workflow_id);
    t.is(listed.typedSearchAttributes.get(enterpriseCodeKey), 'LAP');
    t.is(listed.typedSearchAttributes.get(businessIdKey), `LAP/${application.number}`);
    // Another cooperative's code does not find it.
    const elsewhere = client.workflow.list({
      query: `CoopEnterpriseCode='OTHER' AND WorkflowId='${application.workflow_id}'`,
    });
    for await (const execution of elsewhere) t.fail(`found under another code: ${execution.workflowId}`);
  },
);

test.serial('two approvals of the same step at once: one is recorded, the other refused with a reason', async (t) => {
  await onWorker(async () => {
    const application = await submitted();
    const [first, second] = await Promise.all([
      decide(application.id, 'cashier', 'approve'),
      decide(application.id, 'cashier_and_head', 'approve'),
    ]);
    t.deepEqual([first.status, second.status].sort(), [200, 409]);
    const refused = first.status === 409 ? first : second;
    t.true(['decision_in_progress', 'wrong_step'].includes(refused.body.code), refused.body.code);
    t.is((await knex('loan_application_decisions').where({ application_id: application.id })).length, 1);
    t.is((await knex('loan_applications').where({ id: application.id }).first()).current_step, 'branch_head');
  });
});

test.serial(
  'a decision written again under its key (a retried activity) is recorded once and answers as the first time',
  async (t) => {
    const application = await submitted();
    const record = (
      step: 'cashier' | 'branch_head',
      after: { statusAfter: 'in_review' | 'approved'; stepAfter: 'branch_head' | null },
    ) =>
      recordLoanDecision(knex, testClock(), {
        applicationId: application.id,
        idempotencyKey: `retried:${application.id}:${step}`,
        step,
        decision: 'approve',
        deciderId: world.users[step]!.id,
        comment: '',
        requestId: null,
        ...after,
      });
    const first = await record('cashier', { statusAfter: 'in_review', stepAfter: 'branch_head' });
    t.deepEqual(await record('cashier', { statusAfter: 'in_review', stepAfter: 'branch_head' }), first);
    const granted = await record('branch_head', { statusAfter: 'approved', stepAfter: null });
    t.like(granted, { outcome: 'recorded', status: 'approved' });
    t.deepEqual(
      await record('branch_head', { statusAfter: 'approved', stepAfter: null }),
      granted,
      'the loan of the first write, not a second one',
    );
    t.is((await knex('loan_application_decisions').where({ application_id: application.id })).length, 2);
    t.is((await knex('loans').where({ application_id: application.id })).length, 1);
    t.like(await knex('loan_applications').where({ id: application.id }).first(), {
      status: 'approved',
      current_step: null,
    });
  },
);

test.serial(
  'configured amount limits end the circuit early for small loans; larger ones go through all four steps',
  async (t) => {
    const configure = (limits: object) =>
      app.request('PATCH', `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`, {
        headers: world.users.direction!.headers,
        json: { approval_limits: limits },
      });
    t.is(
      (await configure({ cashier: '900000', branch_head: '800000' })).body.errors[0].field,
      'approval_limits.branch_head',
      'limits grow along the circuit',
    );
    t.deepEqual((await configure({ branch_head: '1000000' })).body.approval_limits, { branch_head: '1000000' });
    try {
      await onWorker(async () => {
        const small = await submitted('800000');
        t.is((small as unknown as { final_step: string }).final_step, 'branch_head');
        await decide(small.id, 'cashier', 'approve');
        const granted = await decide(small.id, 'branch_head', 'approve');
        t.like(granted.body, { status: 'approved', current_step: null });
        t.truthy(granted.body.loan);
        const large = await submitted('1200000');
        await decide(large.id, 'cashier', 'approve');
        t.like((await decide(large.id, 'branch_head', 'approve')).body, {
          status: 'in_review',
          current_step: 'credit_committee',
          final_step: 'direction',
        });
      });
    } finally {
      await configure({});
    }
  },
);

test.serial(
  'maker-checker: the submitter decides no step, and the approver who grants the loan does not pay it out',
  async (t) => {
    await onWorker(async () => {
      const byHead = await submitApplication(world, await memberOf(world), {}, 'branch_head');
      t.is(byHead.status, 201, byHead.text);
      t.is((await decide(byHead.body.id, 'cashier', 'approve')).status, 200);
      const own = await decide(byHead.body.id, 'branch_head', 'approve');
      t.is(own.status, 409);
      t.is(own.body.code, 'submitter_cannot_decide');
      const ownFirst = await decide((await submitted()).id, 'teller', 'approve');
      t.is(ownFirst.body.code, 'submitter_cannot_decide', 'nor the first step');

      const configure = (limits: object) =>
        app.request('PATCH', `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`, {
          headers: world.users.direction!.headers,
          json: { approval_limits: limits },
        });
      await configure({ cashier: '900000' });
      try {
        const small = await submitted('800000');
        const granted = await decide(small.id, 'cashier', 'approve');
        t.like(granted.body, { status: 'approved' });
        const disburse = (as: string) =>
          app.request('POST', `/api/v1/loans/loans/${granted.body.loan.id}/disbursement/`, {
            headers: world.users[as]!.headers,
            json: { channel: 'cash' },
          });
        const byApprover = await disburse('cashier');
        t.is(byApprover.status, 403);
        t.is(byApprover.body.code, 'approver_cannot_disburse');
        t.is((await disburse('teller')).status, 200, 'another teller pays it out');
      } finally {
        await configure({});
      }
    });
  },
);

test.serial(
  "each decision's audit row, sent to the workflow as an Update, names the decider's address and " +
    "request; the loan's creation too (issue 27)",
  async (t) => {
    await onWorker(async () => {
      const application = await submitted();
      const send = (as: string, path: string, json: Record<string, unknown>, address: string, requestId: string) =>
        app.request('POST', `/api/v1/loans/applications/${application.id}/${path}/`, {
          headers: { ...world.users[as]!.headers, 'x-forwarded-for': address, 'x-request-id': requestId },
          json,
        });
      const requests = [
        '0a270001-0000-4000-8000-000000000001',
        '0a270001-0000-4000-8000-000000000002',
        '0a270001-0000-4000-8000-000000000003',
        '0a270001-0000-4000-8000-000000000004',
      ];
      for (const [index, as] of ['cashier', 'branch_head', 'committee', 'direction'].entries()) {
        const answer = await send(
          as,
          'decisions',
          { decision: 'approve' },
          `198.51.100.${index + 10}`,
          requests[index]!,
        );
        t.is(answer.status, 200, answer.text);
      }
      const rows = await knex('audit_events')
        .where({ entity_id: application.id, action: 'loan_application.approve' })
        .orderBy('id')
        .select('address', 'request_id');
      t.deepEqual(
        rows,
        requests.map((requestId, index) => ({ address: `198.51.100.${index + 10}`, request_id: requestId })),
      );
      const loan = await knex('loans').where({ application_id: application.id }).first('id');
      t.like(
        await knex('audit_events').where({ entity_id: loan.id, action: 'loan.create' }).first('address', 'request_id'),
        { address: '198.51.100.13', request_id: requests[3] },
      );

      const withdrawn = await submitted();
      const answer = await app.request('POST', `/api/v1/loans/applications/${withdrawn.id}/withdrawal/`, {
        headers: { ...world.users.teller!.headers, 'x-forwarded-for': '198.51.100.20' },
        json: { comment: 'changed their mind' },
      });
      t.is(answer.status, 200, answer.text);
      t.like(
        await knex('audit_events')
          .where({ entity_id: withdrawn.id, action: 'loan_application.withdraw' })
          .first('address'),
        { address: '198.51.100.20' },
      );
    });
  },
);
