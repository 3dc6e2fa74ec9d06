import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * Four eyes on the rules, a share type's notice, role grants above cashier, the prudential settings and the
 * result allocation policy (docs/domain.md §11), through the API and the real `approvalRequest` workflow: each
 * change waits for a second person, a rejection leaves it as it was, an approval applies it.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let checker: Record<string, string>;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'FEO');
  await createUser(knex, 'admin_two_feo', [{ role: 'admin', enterpriseId: world.enterpriseId, branchId: null }]);
  checker = await bearer(app, 'admin_two_feo', '10.62.0.1');
});

const as = (name: string) => world.users[name]!.headers;
const decide = (requestId: string, decision: 'approve' | 'reject', headers: Record<string, string>) =>
  app.request('POST', `/api/v1/approvals/requests/${requestId}/${decision}/`, {
    headers,
    json: { reason: 'checked against the minutes' },
  });

interface Change {
  operation: string;
  maker: Record<string, string>;
  /** The change through its route, as its maker. */
  make: (headers: Record<string, string>) => Promise<TestResponse>;
  /** What the change is about, read back through the API. */
  read: () => Promise<unknown>;
  /** What it reads once approved. */
  after: unknown;
}

/** The change twice: rejected, then approved by the second administrator (the maker may not approve their own). */
async function waitsForSecondPerson(t: ExecutionContext, change: Change): Promise<void> {
  const before = await change.read();
  t.notDeepEqual(before, change.after, 'the change is a change');
  const rejected = await change.make(change.maker);
  t.is(rejected.status, 202, rejected.text);
  t.like(rejected.body, { operation: change.operation, status: 'pending' });
  t.deepEqual(await change.read(), before, 'nothing changes before the decision');
  t.like((await decide(rejected.body.id, 'reject', checker)).body, { status: 'rejected' });
  t.deepEqual(await change.read(), before, 'a rejection leaves it as it was');

  const approved = await change.make(change.maker);
  t.is(approved.status, 202, approved.text);
  t.is((await decide(approved.body.id, 'approve', change.maker)).body.code, 'approval_own_request');
  t.deepEqual(await change.read(), before, 'the maker alone changes nothing');
  t.like((await decide(approved.body.id, 'approve', checker)).body, { status: 'approved', failure: null });
  t.deepEqual(await change.read(), change.after, 'applied on approval');
}

const enterprisePath = (resource: string) => `/api/v1/enterprise/enterprises/${world.enterpriseId}/${resource}/`;

test.serial('an accounting rule changes only once a second administrator approves it', async (t) => {
  await withWorker(
    knex,
    () =>
      waitsForSecondPerson(t, {
        operation: 'accounting_rule.change',
        maker: as('direction'),
        make: (headers) =>
          app.request('POST', '/api/v1/events/rule-configs/', {
            headers,
            json: {
              enterprise: world.enterpriseId,
              kind: 'loan_fee',
              legs: [{ debit: { role: 'cash' }, credit: { account: '7152' } }],
              reason: 'MT loans only',
            },
          }),
        read: async () =>
          (
            await app.request(
              'GET',
              `/api/v1/events/rule-configs/history/?enterprise=${world.enterpriseId}&kind=loan_fee`,
              { headers: as('direction') },
            )
          ).body.results[0].reason,
        after: 'MT loans only',
      }),
    taskQueue,
  );
});

test.serial("a share type's notice changes only on approval, sent alone", async (t) => {
  const typePath = `/api/v1/shares/types/${world.shareTypeId}/`;
  const mixed = await app.request('PATCH', typePath, {
    headers: as('direction'),
    json: { notice_days: 45, name: 'Parts ordinaires' },
  });
  t.like(mixed, { status: 422, body: { code: 'approval_change_mixed', errors: [{ field: 'notice_days' }] } });
  t.is(
    (await app.request('PATCH', typePath, { headers: as('direction'), json: { name: 'Parts ordinaires' } })).status,
    200,
    'other fields change at once',
  );
  await withWorker(
    knex,
    () =>
      waitsForSecondPerson(t, {
        operation: 'share_type.notice_change',
        maker: as('direction'),
        make: (headers) => app.request('PATCH', typePath, { headers, json: { notice_days: 45 } }),
        read: async () => (await app.request('GET', typePath, { headers: as('direction') })).body.notice_days,
        after: 45,
      }),
    taskQueue,
  );
});

test.serial("a role above cashier is granted on approval; a cashier's at once", async (t) => {
  const newcomer = await createUser(knex, 'newcomer_feo');
  const grants = () =>
    app.request('POST', `/api/v1/auth/users/${newcomer}/roles/`, {
      headers: as('root'),
      json: { role: 'cashier', enterprise: world.enterpriseId, branch: world.headOffice },
    });
  t.like(await grants(), { status: 201, body: { role: 'cashier' } });
  await withWorker(
    knex,
    () =>
      waitsForSecondPerson(t, {
        operation: 'role_grant.above_cashier',
        maker: as('root'),
        make: (headers) =>
          app.request('POST', `/api/v1/auth/users/${newcomer}/roles/`, {
            headers,
            json: { role: 'direction', enterprise: world.enterpriseId },
          }),
        read: async () =>
          (await app.request('GET', `/api/v1/auth/users/${newcomer}/`, { headers: as('root') })).body.roles
            .map((grant: { role: string }) => grant.role)
            .sort(),
        after: ['cashier', 'direction'],
      }),
    taskQueue,
  );
});

test.serial('the prudential settings and the result allocation policy change only on approval', async (t) => {
  await withWorker(
    knex,
    async () => {
      await waitsForSecondPerson(t, {
        operation: 'prudential_settings.change',
        maker: as('direction'),
        make: (headers) =>
          app.request('PATCH', enterprisePath('prudential-settings'), {
            headers,
            json: { solvency_min: '0.12', risk_weights: { treasury: '0.2' } },
          }),
        read: async () => {
          const settings = (
            await app.request('GET', enterprisePath('prudential-settings'), { headers: as('direction') })
          ).body;
          return {
            solvency_min: settings.solvency_min,
            treasury: settings.risk_weights.treasury,
            changed: settings.changed,
          };
        },
        after: { solvency_min: '0.12', treasury: '0.2', changed: ['risk_weights.treasury', 'solvency_min'] },
      });
      await waitsForSecondPerson(t, {
        operation: 'result_allocation_policy.change',
        maker: as('direction'),
        make: (headers) =>
          app.request('PATCH', enterprisePath('result-allocation-policy'), {
            headers,
            json: { optional_reserves_rate_max: '0.05', absorb_prior_losses_first: false },
          }),
        read: async () => {
          const policy = (
            await app.request('GET', enterprisePath('result-allocation-policy'), { headers: as('direction') })
          ).body;
          return {
            optional: policy.optional_reserves_rate_max,
            general: policy.general_reserve_rate_min,
            absorb: policy.absorb_prior_losses_first,
          };
        },
        after: { optional: '0.05', general: '0.2', absorb: false },
      });
    },
    taskQueue,
  );
  const refused = await app.request('PATCH', enterprisePath('prudential-settings'), {
    headers: as('direction'),
    json: { solvency_min: '11' },
  });
  t.like(
    refused,
    { status: 400, body: { errors: [{ field: 'solvency_min' }] } },
    "a refusal is the maker's answer at once, no request",
  );
});
