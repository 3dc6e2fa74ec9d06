import test from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { approveRequest, secondAdmin } from '../helpers/approvals';
import { createTestDatabase } from '../helpers/database';
import { approvedLoan, createLoanWorld, memberOf, openSavingsAccount, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';

/** Access control and segregation of duties (issue 12, items 2 to 7), each as an attacker would try it. */
const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
const headers: Record<string, Record<string, string>> = {};
const ids: Record<string, string> = {};

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  world = await createLoanWorld(app, knex, 'ACC');
  const { enterpriseId, headOffice, otherBranch } = world;
  const people = {
    enterprise_admin: [{ role: 'admin', enterpriseId, branchId: null }],
    branch_admin: [{ role: 'admin', enterpriseId, branchId: otherBranch }],
    platform_admin: [
      { role: 'admin', enterpriseId: null, branchId: null },
      { role: 'cashier', enterpriseId, branchId: headOffice },
    ],
    roleless: [],
    branch_two_cashier: [{ role: 'cashier', enterpriseId, branchId: otherBranch }],
  } as const;
  let address = 0;
  for (const [name, grants] of Object.entries(people)) {
    ids[name] = await createUser(knex, `${name}_acc`, grants);
    if (grants.length > 0) headers[name] = await bearer(app, `${name}_acc`, `10.40.0.${(address += 1)}`);
  }
});

const as = (name: string) => headers[name] ?? world.users[name]!.headers;

test(
  "branch isolation of the books: a branch's cashier reads only its branch's lines; an enterprise-wide role " +
    'reads all',
  async (t) => {
    const member = await memberOf(world);
    await openSavingsAccount(world, member, '123457'); // a head-office deposit on 3711
    const chart = (await knex('company_charts').where({ enterprise_id: world.enterpriseId }).first('id')).id as string;
    const account = (await knex('company_chart_entries').where({ chart_id: chart, code: '3711' }).first('id'))
      .id as string;
    const movements = (name: string) =>
      app.request('GET', `/api/v1/accounts/charts/${chart}/entries/${account}/movements/?page_size=100`, {
        headers: as(name),
      });
    t.true((await movements('direction')).body.results.some((row: { credit: string }) => row.credit === '123457'));
    const branchTwo = await movements('other_cashier');
    t.is(branchTwo.status, 200);
    t.is(branchTwo.body.count, 0, 'no head-office line reaches branch two');
    const balance = await app.request('GET', `/api/v1/accounts/charts/${chart}/entries/${account}/balance/`, {
      headers: as('other_cashier'),
    });
    t.is(balance.body.balance, '0');
    const trial = await app.request('GET', `/api/v1/accounts/charts/${chart}/trial-balance/`, {
      headers: as('other_cashier'),
    });
    t.deepEqual(trial.body.accounts, []);
    t.true(
      (await app.request('GET', `/api/v1/accounts/charts/${chart}/trial-balance/`, { headers: as('direction') })).body
        .accounts.length > 0,
    );
  },
);

test('loan money moves only through an account of a branch where the teller holds a teller role', async (t) => {
  const member = await memberOf(world);
  const account = await openSavingsAccount(world, member, '10000'); // opened at the head office
  t.is(
    (
      await app.request('PATCH', `/api/v1/members/clients/${member}/`, {
        headers: as('direction'),
        json: { branch: world.otherBranch },
      })
    ).status,
    200,
  );
  const loan = await approvedLoan(world, member, { amount: '500000' }, 'other_head');
  const disburse = await app.request('POST', `/api/v1/loans/loans/${loan}/disbursement/`, {
    headers: as('other_cashier'),
    json: { channel: 'account', account },
  });
  t.is(disburse.status, 404, "branch two's cashier holds no role where the account is");
  t.is((await knex('loans').where({ id: loan }).first()).status, 'awaiting_disbursement');
  t.is(
    (
      await app.request('POST', `/api/v1/loans/loans/${loan}/disbursement/`, {
        headers: as('other_cashier'),
        json: { channel: 'cash' },
      })
    ).status,
    200,
  );
  const repay = await app.request('POST', '/api/v1/loans/repayments/', {
    headers: as('other_cashier'),
    json: { loan, amount: '1000', channel: 'account', account },
  });
  t.is(repay.status, 404);
  t.is((await knex('comptes_clients').where({ id: account }).first()).balance, '10000');
});

test('administrators manage only users whose every grant lies inside what they administer', async (t) => {
  const manage = (name: string, user: string, action: 'deactivate' | 'activate' = 'deactivate') =>
    app.request('POST', `/api/v1/auth/users/${user}/${action}/`, { headers: as(name), json: {} });
  t.is(
    (await manage('enterprise_admin', ids.platform_admin!)).status,
    404,
    "a platform administrator with a role here is not the enterprise's to manage",
  );
  t.is(
    (await app.request('GET', `/api/v1/auth/users/${ids.platform_admin}/`, { headers: as('enterprise_admin') })).status,
    404,
    'nor to see, with their platform grant',
  );
  const listed = await app.request('GET', '/api/v1/auth/users/?page_size=100', { headers: as('enterprise_admin') });
  t.false(listed.body.results.some((user: { id: string }) => user.id === ids.platform_admin));
  t.is(
    (await manage('branch_admin', ids.roleless!)).status,
    404,
    'a branch administrator does not manage users without a role',
  );
  t.is((await manage('enterprise_admin', ids.roleless!)).status, 200, 'an enterprise administrator does');
  t.is((await manage('enterprise_admin', ids.roleless!, 'activate')).status, 200);
  t.is(
    (await manage('branch_admin', ids.branch_two_cashier!)).status,
    200,
    "a cashier of the branch is the branch administrator's",
  );
  t.is((await manage('branch_admin', ids.branch_two_cashier!, 'activate')).status, 200);
  t.is((await manage('branch_admin', world.users.cashier!.id)).status, 404, 'a cashier of another branch is not');
  // A branch head is granted under four eyes (docs/domain.md §11): an administrator of the enterprise approves.
  const grant = async (branch: string) =>
    approveRequest(
      knex,
      await app.request('POST', `/api/v1/auth/users/${ids.branch_two_cashier}/roles/`, {
        headers: as('branch_admin'),
        json: { role: 'branch_head', enterprise: world.enterpriseId, branch },
      }),
      await secondAdmin(knex, world),
    );
  t.is((await grant(world.otherBranch)).status, 200, "a role in the administrator's branch");
  t.is((await grant(world.headOffice)).status, 403, 'not in another branch');
});

test('compliance flags are changed by a branch head or above, not at the till; audited', async (t) => {
  const member = await memberOf(world);
  for (const flag of [{ related_party: true }, { politically_exposed: true }, { risk_level: 'high' }]) {
    t.is(
      (await app.request('PATCH', `/api/v1/members/clients/${member}/`, { headers: as('cashier'), json: flag })).status,
      403,
      JSON.stringify(flag),
    );
  }
  t.is(
    (
      await app.request('PATCH', `/api/v1/members/clients/${member}/`, {
        headers: as('cashier'),
        json: { city: 'Douala' },
      })
    ).status,
    200,
    "the rest of the record stays the till's",
  );
  const changed = await app.request('PATCH', `/api/v1/members/clients/${member}/`, {
    headers: as('branch_head'),
    json: { related_party: true },
  });
  t.is(changed.body.related_party, true);
  const audit = await knex('audit_events')
    .where({ entity_id: member, action: 'client_profile.update', actor_id: world.users.branch_head!.id })
    .first();
  t.is(audit.details.relatedParty, true);
});

test('replay requests: a branch-level administrator neither lists nor reads them', async (t) => {
  const requested = await app.request('POST', '/api/v1/events/replays/', {
    headers: as('enterprise_admin'),
    json: { enterprise: world.enterpriseId, date_from: '2026-01-01', date_to: '2026-12-31', mode: 'dry_run' },
  });
  t.true([202, 503].includes(requested.status), requested.text);
  t.true((await app.request('GET', '/api/v1/events/replays/', { headers: as('enterprise_admin') })).body.count >= 1);
  t.is((await app.request('GET', '/api/v1/events/replays/', { headers: as('branch_admin') })).body.count, 0);
  t.is(
    (await app.request('GET', `/api/v1/events/replays/${requested.body.id}/`, { headers: as('branch_admin') })).status,
    403,
  );
});

test.serial('a suspended enterprise accepts no money movement; its books still keep up', async (t) => {
  const member = await memberOf(world);
  const account = await openSavingsAccount(world, member, '5000');
  const status = (value: string) =>
    app.request('PATCH', `/api/v1/enterprise/enterprises/${world.enterpriseId}/`, {
      headers: world.users.root!.headers,
      json: { status: value },
    });
  t.is((await status('suspended')).status, 200);
  try {
    const deposit = await app.request('POST', `/api/v1/members/accounts/${account}/deposits/`, {
      headers: as('cashier'),
      json: { amount: '1000' },
    });
    t.is(deposit.status, 409);
    t.is(deposit.body.code, 'enterprise_suspended');
    const subscription = await app.request('POST', '/api/v1/shares/subscriptions/', {
      headers: as('cashier'),
      json: { client: member, share_type: world.shareTypeId, shares: 1 },
    });
    t.is(subscription.body.code, 'enterprise_suspended');
    t.is((await knex('comptes_clients').where({ id: account }).first()).balance, '5000');
    t.is((await knex('share_subscriptions').where({ client_id: member })).length, 0);
  } finally {
    await status('active');
  }
  t.is(
    (
      await app.request('POST', `/api/v1/members/accounts/${account}/deposits/`, {
        headers: as('cashier'),
        json: { amount: '1000' },
      })
    ).status,
    201,
  );
});

test(
  'an accountant is granted under four eyes, reads the ' + 'books and the reporting packs, and moves no member money',
  async (t) => {
    const accountant = await createUser(knex, 'accountant_acc', []);
    const granted = await app.request('POST', `/api/v1/auth/users/${accountant}/roles/`, {
      headers: as('enterprise_admin'),
      json: { role: 'accountant', enterprise: world.enterpriseId, branch: null },
    });
    t.is(granted.status, 202, 'a role above cashier waits for a second administrator');
    await approveRequest(knex, granted, await secondAdmin(knex, world));
    t.deepEqual(
      await knex('role_grants').where({ user_id: accountant, enterprise_id: world.enterpriseId }).pluck('role'),
      ['accountant'],
    );
    const headersOf = await bearer(app, 'accountant_acc', '10.40.0.50');
    const chart = (await knex('company_charts').where({ enterprise_id: world.enterpriseId }).first('id')).id as string;
    t.is(
      (await app.request('GET', `/api/v1/accounts/charts/${chart}/trial-balance/`, { headers: headersOf })).status,
      200,
    );
    t.is(
      (
        await app.request('GET', `/api/v1/accounts/reporting-packs/?enterprise=${world.enterpriseId}`, {
          headers: headersOf,
        })
      ).status,
      200,
    );
    const account = await openSavingsAccount(world, await memberOf(world), '1000');
    const deposit = await app.request('POST', `/api/v1/members/accounts/${account}/deposits/`, {
      headers: { ...headersOf, 'idempotency-key': 'acc-deposit-1' },
      json: { amount: '500', channel: 'cash' },
    });
    t.is(deposit.status, 403, "the till is the cashiers'");
    t.is((await knex('comptes_clients').where({ id: account }).first()).balance, '1000');
  },
);
