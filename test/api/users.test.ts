import test from 'ava';
import { ensureInitialAdmin } from '../../activities/auth/register.activity';
import type { Knex } from '../../db/knex';
import { approveRequest, secondAdmin } from '../helpers/approvals';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, testActivityContext, type TestApp } from '../helpers/app';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser, testPassword } from '../helpers/users';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let root: Record<string, string>;
let enterpriseA: string;
let enterpriseB: string;
let branchA: string;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  root = await bearer(app, 'root');
  [enterpriseA, enterpriseB] = (
    await knex('enterprises')
      .insert([
        { code: 'A', name: 'Coop A', legal_form: 'C', country: 'CM' },
        { code: 'B', name: 'Coop B', legal_form: 'C', country: 'GA' },
      ])
      .returning('id')
  ).map((row) => row.id as string) as [string, string];
  [branchA] = (
    await knex('branches')
      .insert({ enterprise_id: enterpriseA, code: 'HQ', name: 'HQ', is_head_office: true })
      .returning('id')
  ).map((row) => row.id as string) as [string];
});

test.serial(
  'an administrator grants a branch role; the user sees it at once; a duplicate or a foreign branch is refused',
  async (t) => {
    const userId = await createUser(knex, 'new-cashier');
    const granted = await app.request('POST', `/api/v1/auth/users/${userId}/roles/`, {
      headers: root,
      json: { role: 'cashier', enterprise: enterpriseA, branch: branchA },
    });
    t.is(granted.status, 201);
    t.like(granted.body, { role: 'cashier', enterprise: enterpriseA, branch: branchA });
    const me = await app.request('GET', '/api/v1/auth/users/me/', { headers: await bearer(app, 'new-cashier') });
    t.deepEqual(
      me.body.roles.map((grant: { role: string }) => grant.role),
      ['cashier'],
    );

    const again = await app.request('POST', `/api/v1/auth/users/${userId}/roles/`, {
      headers: root,
      json: { role: 'cashier', enterprise: enterpriseA, branch: branchA },
    });
    t.is(again.body.code, 'role_already_granted');
    const foreign = await app.request('POST', `/api/v1/auth/users/${userId}/roles/`, {
      headers: root,
      json: { role: 'cashier', enterprise: enterpriseB, branch: branchA },
    });
    t.is(foreign.status, 400);
    t.is(foreign.body.errors[0].field, 'branch');
    const platform = await app.request('POST', `/api/v1/auth/users/${userId}/roles/`, {
      headers: root,
      json: { role: 'cashier', enterprise: null },
    });
    t.is(platform.body.code, 'platform_grant_admin_only');
    t.is((await knex('audit_events').where({ action: 'user.grant_role', entity_id: userId })).length, 1);
  },
);

test.serial(
  'an enterprise administrator manages users of their enterprise and newcomers, not users of others',
  async (t) => {
    await createUser(knex, 'admin-a', [{ role: 'admin', enterpriseId: enterpriseA, branchId: null }]);
    const adminA = await bearer(app, 'admin-a', '10.5.0.1');
    const newcomer = await createUser(knex, 'newcomer');
    const colleague = await createUser(knex, 'colleague-b', [
      { role: 'direction', enterpriseId: enterpriseB, branchId: null },
    ]);

    const list = await app.request('GET', '/api/v1/auth/users/?page_size=100', { headers: adminA });
    const names = list.body.results.map((user: { username: string }) => user.username);
    t.true(names.includes('newcomer'));
    t.true(names.includes('admin-a'));
    t.false(names.includes('colleague-b'));
    t.false(names.includes('root'));
    t.is((await app.request('GET', `/api/v1/auth/users/${colleague}/`, { headers: adminA })).status, 404);

    // A role above cashier is granted under four eyes (docs/domain.md §11): another administrator approves it.
    const requested = await app.request('POST', `/api/v1/auth/users/${newcomer}/roles/`, {
      headers: adminA,
      json: { role: 'credit_committee', enterprise: enterpriseA },
    });
    t.is(requested.status, 202);
    const grantHere = await approveRequest(knex, requested, await secondAdmin(knex, { enterpriseId: enterpriseA }));
    t.is(grantHere.status, 200);
    t.true(
      (
        await knex('role_grants')
          .where({ user_id: newcomer, role: 'credit_committee', enterprise_id: enterpriseA })
          .whereNull('revoked_at')
      ).length === 1,
    );
    const grantThere = await app.request('POST', `/api/v1/auth/users/${newcomer}/roles/`, {
      headers: adminA,
      json: { role: 'credit_committee', enterprise: enterpriseB },
    });
    t.is(grantThere.status, 403);
    const grantPlatform = await app.request('POST', `/api/v1/auth/users/${newcomer}/roles/`, {
      headers: adminA,
      json: { role: 'admin', enterprise: null },
    });
    t.is(grantPlatform.status, 403);

    const cashier = await bearer(app, 'new-cashier', '10.5.0.2');
    t.is(
      (await app.request('GET', '/api/v1/auth/users/', { headers: cashier })).status,
      403,
      'a cashier is no administrator',
    );
    const anonymous = await app.request('GET', '/api/v1/auth/users/');
    t.is(anonymous.status, 401);
    t.is(anonymous.body.code, 'not_authenticated', 'no token at all is not an invalid token');
  },
);

test.serial('deactivation ends every session at once and refuses sign-in; reactivation allows it again', async (t) => {
  const userId = await createUser(knex, 'leaving', [{ role: 'cashier', enterpriseId: enterpriseA, branchId: branchA }]);
  const pair = await app.request('POST', '/api/v1/token/', { json: { username: 'leaving', password: testPassword } });
  const headers = { authorization: `Bearer ${pair.body.access}` };
  t.is((await app.request('GET', '/api/v1/auth/users/me/', { headers })).status, 200);

  const deactivated = await app.request('POST', `/api/v1/auth/users/${userId}/deactivate/`, { headers: root });
  t.is(deactivated.status, 200);
  t.false(deactivated.body.is_active);
  t.is((await app.request('GET', '/api/v1/auth/users/me/', { headers })).status, 401);
  t.is((await app.request('POST', '/api/v1/token/refresh/', { json: { refresh: pair.body.refresh } })).status, 401);
  t.is(
    (await app.request('POST', '/api/v1/token/', { json: { username: 'leaving', password: testPassword } })).body.code,
    'invalid_credentials',
  );

  await app.request('POST', `/api/v1/auth/users/${userId}/activate/`, { headers: root });
  t.is(
    (await app.request('POST', '/api/v1/token/', { json: { username: 'leaving', password: testPassword } })).status,
    200,
  );
  const self = await app.request('GET', '/api/v1/auth/users/me/', { headers: root });
  t.is(
    (await app.request('POST', `/api/v1/auth/users/${self.body.id}/deactivate/`, { headers: root })).body.code,
    'cannot_deactivate_self',
  );
});

test.serial('revoking a grant is audited and the role is gone', async (t) => {
  const userId = await createUser(knex, 'temp-direction', [
    { role: 'direction', enterpriseId: enterpriseA, branchId: null },
  ]);
  const [grantId] = await knex('role_grants').where({ user_id: userId }).pluck('id');
  t.is((await app.request('DELETE', `/api/v1/auth/users/${userId}/roles/${grantId}/`, { headers: root })).status, 204);
  t.is(
    (await app.request('DELETE', `/api/v1/auth/users/${userId}/roles/${grantId}/`, { headers: root })).status,
    404,
    'already revoked',
  );
  const user = await app.request('GET', `/api/v1/auth/users/${userId}/`, { headers: root });
  t.deepEqual(user.body.roles, []);
  const row = await knex('role_grants').where({ id: grantId }).first();
  t.truthy(row.revoked_at, 'kept, not deleted, for the audit trail');
});

test('the initial administrator is created once, with a generated password shown only to the caller', async (t) => {
  const { knex: empty } = await createTestDatabase(t);
  const context = testActivityContext(empty);
  const first = await ensureInitialAdmin(context, { username: 'boss', password: undefined });
  t.true(first.created);
  if (!first.created) return;
  t.true((first.generatedPassword ?? '').length >= 12);
  const grants = await empty('role_grants')
    .join('users', 'users.id', 'role_grants.user_id')
    .where('users.username', 'boss')
    .select('role', 'enterprise_id');
  t.deepEqual(grants, [{ role: 'admin', enterprise_id: null }]);
  t.deepEqual(await ensureInitialAdmin(context, { username: 'boss', password: undefined }), { created: false });
  const stored = await empty('users').where({ username: 'boss' }).first();
  t.false(JSON.stringify(stored).includes(first.generatedPassword!), 'only the hash is stored');
});
