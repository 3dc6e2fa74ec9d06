import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, submitApplication, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { until } from '../helpers/until';
import { bearer, createUser } from '../helpers/users';
import { newTaskQueue, withWorker } from '../helpers/worker';
import { businessIdKey, enterpriseCodeKey } from '../../workflows/identities';

/**
 * Four eyes (docs/architecture.md §7, docs/domain.md §11) through the API and the real `approvalRequest` workflow:
 * a sensitive change becomes a request that only another authorised user can approve; rejected or expired, it
 * changes nothing; the inbox shows each user what awaits their decision.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
// A workflow day of 2 s: a request living one day expires in 2 s.
const workflowDayMs = 2000;
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let secondAdmin: { id: string; headers: Record<string, string> };

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue, workflowDayMs });
  world = await createLoanWorld(app, knex, 'APR');
  const id = await createUser(knex, 'admin_two_apr', [
    { role: 'admin', enterpriseId: world.enterpriseId, branchId: null },
  ]);
  secondAdmin = { id, headers: await bearer(app, 'admin_two_apr', '10.61.0.1') };
});

const configurationPath = () => `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`;
const businessDate = async () =>
  (await app.request('GET', configurationPath(), { headers: world.users.root!.headers })).body as {
    business_date: string;
    business_date_is_set: boolean;
  };
const decide = (
  requestId: string,
  decision: 'approve' | 'reject',
  headers: Record<string, string>,
  reason = 'checked against the minutes',
) => app.request('POST', `/api/v1/approvals/requests/${requestId}/${decision}/`, { headers, json: { reason } });

test.serial('the default policy names the operations an auditor expects, and who approves them', async (t) => {
  const policy = await app.request('GET', `/api/v1/enterprise/enterprises/${world.enterpriseId}/approval-policy/`, {
    headers: world.users.direction!.headers,
  });
  t.is(policy.status, 200);
  const rule = (operation: string) =>
    (policy.body.rules as { operation: string }[]).find((line) => line.operation === operation);
  t.like(rule('business_date.move'), {
    four_eyes: true,
    approver_roles: ['direction', 'admin'],
    threshold: null,
    lifetime_days: 7,
  });
  t.like(rule('exercice.reopen'), { four_eyes: true, approver_roles: ['admin'] });
  t.like(rule('member_account.withdrawal'), { four_eyes: true, threshold: '5000000' });
});

/** The deciders refused: the maker, a role not among the approvers, a branch head, another enterprise's direction. */
async function assertRefusedDeciders(t: ExecutionContext, requestId: string) {
  const own = await decide(requestId, 'approve', world.users.direction!.headers);
  t.is(own.status, 403);
  t.is(own.body.code, 'approval_own_request');
  const committee = await decide(requestId, 'approve', world.users.committee!.headers);
  t.is(committee.status, 403, 'a role over the whole enterprise reads the request, but is not among its approvers');
  t.is(committee.body.code, 'approval_role_required');
  const branchHead = await decide(requestId, 'approve', world.users.branch_head!.headers);
  t.is(
    branchHead.status,
    404,
    'a branch head does not read a request of the whole enterprise: it is not there for them to decide',
  );
  const otherEnterprise = await app.request('POST', '/api/v1/enterprise/enterprises/', {
    headers: world.users.root!.headers,
    json: { code: 'APX', name: 'Coop APX', legal_form: 'C', country: 'CM' },
  });
  await createUser(knex, 'direction_apx', [
    { role: 'direction', enterpriseId: otherEnterprise.body.id, branchId: null },
  ]);
  const outsider = await decide(requestId, 'approve', await bearer(app, 'direction_apx', '10.61.0.2'));
  t.is(outsider.status, 404, 'a request of another enterprise is not there');
}

test.serial(
  'moving the business date waits for a second person: not the maker, not a wrong role, not another enterprise',
  async (t) => {
    await withWorker(
      knex,
      async ({ client }) => {
        const before = await businessDate();
        const requested = await app.request('PATCH', configurationPath(), {
          headers: world.users.direction!.headers,
          json: { business_date: '2031-03-02' },
        });
        t.is(requested.status, 202);
        t.is(requested.headers.get('location'), `/api/v1/approvals/requests/${requested.body.id as string}/`);
        t.like(requested.body, {
          operation: 'business_date.move',
          status: 'pending',
          maker: world.users.direction!.id,
          approver_roles: ['direction', 'admin'],
          workflow_id: `approval-request-${requested.body.id as string}`,
        });
        t.deepEqual(await businessDate(), before, 'nothing changes before the approval');
        const tags = (await client.workflow.getHandle(requested.body.workflow_id).describe()).typedSearchAttributes;
        t.is(tags.get(enterpriseCodeKey), 'APR', "findable in the Temporal UI by the enterprise's code");
        t.is(tags.get(businessIdKey), `APR/${requested.body.id as string}`);

        await assertRefusedDeciders(t, requested.body.id);
        t.deepEqual(await businessDate(), before, 'refused decisions change nothing');

        const approved = await decide(requested.body.id, 'approve', world.users.root!.headers);
        t.is(approved.status, 200);
        t.like(approved.body, { status: 'approved', decided_by: world.rootId, failure: null });
        t.like(await businessDate(), { business_date: '2031-03-02', business_date_is_set: true });
        const again = await decide(requested.body.id, 'approve', secondAdmin.headers);
        t.is(again.body.code, 'approval_request_closed', 'a decided request is decided once');

        const audit = await knex('audit_events')
          .where({ entity_id: requested.body.id })
          .orderBy('occurred_at')
          .pluck('action');
        t.deepEqual(audit, ['approval_request.create', 'approval_request.approve']);
        t.is(
          await knex('audit_events')
            .where({ action: 'configuration.update', actor_id: world.users.direction!.id })
            .count('* as n')
            .first()
            .then((row) => Number(row!.n)),
          1,
          "the change is the maker's, once",
        );
      },
      taskQueue,
    );
  },
);

test.serial('a rejection, with its reason, leaves everything as it was', async (t) => {
  await withWorker(
    knex,
    async () => {
      const before = await businessDate();
      const requested = await app.request('PATCH', configurationPath(), {
        headers: world.users.direction!.headers,
        json: { business_date: '2031-04-01' },
      });
      t.is(requested.status, 202);
      const noReason = await app.request('POST', `/api/v1/approvals/requests/${requested.body.id as string}/reject/`, {
        headers: world.users.root!.headers,
        json: {},
      });
      t.is(noReason.status, 400);
      const rejected = await decide(requested.body.id, 'reject', world.users.root!.headers, 'no board minute for it');
      t.is(rejected.status, 200);
      t.like(rejected.body, { status: 'rejected', reason: 'no board minute for it' });
      t.deepEqual(await businessDate(), before);
    },
    taskQueue,
  );
});

test.serial("a refusal the operation meets now is the maker's answer at once; a mixed change is refused", async (t) => {
  const backwards = await app.request('PATCH', configurationPath(), {
    headers: world.users.direction!.headers,
    json: { business_date: '2031-01-01' },
  });
  t.is(backwards.status, 409);
  t.is(backwards.body.code, 'business_date_backwards');
  const mixed = await app.request('PATCH', configurationPath(), {
    headers: world.users.direction!.headers,
    json: { business_date: '2031-05-01', provisioning_hour: 3 },
  });
  t.is(mixed.status, 422);
  t.is(mixed.body.code, 'approval_change_mixed');
  t.is(
    await knex('approval_requests')
      .where({ status: 'pending' })
      .count('* as n')
      .first()
      .then((row) => Number(row!.n)),
    0,
    'no request was recorded',
  );
});

test.serial(
  'the policy is changed under four eyes; a request undecided in its time expires and changes nothing',
  async (t) => {
    await withWorker(
      knex,
      async () => {
        const rules = [
          {
            operation: 'business_date.move',
            four_eyes: true,
            approver_roles: ['admin'],
            threshold: null,
            lifetime_days: 1,
          },
        ];
        const requested = await app.request(
          'PUT',
          `/api/v1/enterprise/enterprises/${world.enterpriseId}/approval-policy/`,
          { headers: secondAdmin.headers, json: { rules } },
        );
        t.is(requested.status, 202);
        t.like((await decide(requested.body.id, 'approve', world.users.root!.headers)).body, { status: 'approved' });
        const policy = await app.request(
          'GET',
          `/api/v1/enterprise/enterprises/${world.enterpriseId}/approval-policy/`,
          { headers: world.users.direction!.headers },
        );
        t.like(
          (policy.body.rules as { operation: string }[]).find((line) => line.operation === 'business_date.move'),
          { approver_roles: ['admin'], lifetime_days: 1 },
        );

        const before = await businessDate();
        const expiring = await app.request('PATCH', configurationPath(), {
          headers: world.users.direction!.headers,
          json: { business_date: '2031-06-01' },
        });
        t.is(expiring.status, 202);
        const detail = `/api/v1/approvals/requests/${expiring.body.id as string}/`;
        await until(
          "the request's expiry",
          async () =>
            (await app.request('GET', detail, { headers: world.users.direction!.headers })).body.status === 'expired',
        );
        t.deepEqual(await businessDate(), before);
        t.is(
          (await decide(expiring.body.id, 'approve', world.users.root!.headers)).body.code,
          'approval_request_closed',
        );
      },
      taskQueue,
    );
  },
);

test.serial(
  "the inbox lists what awaits each user's decision, newest first, and nothing they may not decide",
  async (t) => {
    const requested = await app.request('PATCH', configurationPath(), {
      headers: world.users.direction!.headers,
      json: { business_date: '2031-07-01' },
    });
    t.is(requested.status, 202);
    const submitted = await submitApplication(world, await memberOf(world));
    t.is(submitted.status, 201);
    const inbox = async (user: { headers: Record<string, string> }) =>
      (
        (
          await app.request('GET', `/api/v1/approvals/pending/?enterprise=${world.enterpriseId}`, {
            headers: user.headers,
          })
        ).body.results as { kind: string; id: string }[]
      ).map((item) => `${item.kind} ${item.id}`);
    t.deepEqual(
      await inbox(world.users.root!),
      [`approval_request ${requested.body.id as string}`],
      'the administrator approves the request; no step of the circuit is theirs',
    );
    t.deepEqual(
      await inbox(world.users.cashier!),
      [`loan_application ${submitted.body.id as string}`],
      "the cashier decides the application's first step",
    );
    t.deepEqual(
      await inbox(world.users.cashier_and_head!),
      [`loan_application ${submitted.body.id as string}`],
      'newest first, each item once',
    );
    t.deepEqual(await inbox(world.users.teller!), [], 'its submitter decides none of its steps');
    t.deepEqual(
      await inbox(world.users.direction!),
      [],
      "the maker does not decide their request; the application is not at direction's step",
    );
    t.deepEqual(await inbox(world.users.other_cashier!), [], "another branch's cashier sees neither");
    const listed = await app.request(
      'GET',
      `/api/v1/approvals/requests/?enterprise=${world.enterpriseId}&status=pending`,
      { headers: world.users.committee!.headers },
    );
    t.deepEqual(
      (listed.body.results as { id: string }[]).map((row) => row.id),
      [requested.body.id],
    );
  },
);

test.serial(
  'a request of the whole enterprise is read by its whole-enterprise roles alone: the list and the detail agree',
  async (t) => {
    const requested = await app.request('PATCH', configurationPath(), {
      headers: world.users.direction!.headers,
      json: { business_date: '2031-08-01' },
    });
    t.is(requested.status, 202);
    t.is(requested.body.branch, null, "moving the business date is the enterprise's, of no branch");
    const seenBy = async (user: { headers: Record<string, string> }) => {
      const listed = await app.request(
        'GET',
        `/api/v1/approvals/requests/?enterprise=${world.enterpriseId}&page_size=100`,
        { headers: user.headers },
      );
      const detail = await app.request('GET', `/api/v1/approvals/requests/${requested.body.id as string}/`, {
        headers: user.headers,
      });
      return {
        listed: (listed.body.results as { id: string }[]).some((row) => row.id === requested.body.id),
        detail: detail.status,
      };
    };
    t.deepEqual(
      await seenBy(world.users.committee!),
      { listed: true, detail: 200 },
      'a role over the whole enterprise reads it',
    );
    t.deepEqual(
      await seenBy(world.users.cashier!),
      { listed: false, detail: 404 },
      'a cashier of the head office neither lists nor reads it',
    );
    t.deepEqual(
      await seenBy(world.users.other_head!),
      { listed: false, detail: 404 },
      "nor does another branch's head",
    );
    for (const decision of ['approve', 'reject']) {
      const decided = await app.request(
        'POST',
        `/api/v1/approvals/requests/${requested.body.id as string}/${decision}/`,
        { headers: world.users.other_head!.headers, json: { reason: 'not mine to see' } },
      );
      t.is(
        decided.status,
        404,
        `${decision}: a request one cannot read is not found, rather than refused for the role`,
      );
    }
    const still = await app.request('GET', `/api/v1/approvals/requests/${requested.body.id as string}/`, {
      headers: world.users.committee!.headers,
    });
    t.is(still.body.status, 'pending', 'and nothing was decided');
  },
);
