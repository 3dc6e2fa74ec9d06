import test from 'ava';
import type { Knex } from '../../db/knex';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/app';
import { fileTeardown } from '../helpers/teardown';
import { approveRequest, secondAdmin } from '../helpers/approvals';
import { bearer, createUser } from '../helpers/users';
import { testClock } from '../helpers/clock';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let adminA: Record<string, string>;
let enterpriseA: string;
let enterpriseB: string;
let branchA: string;
let branchB: string;

const newPassword = 'a brand new passphrase';

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  [enterpriseA, enterpriseB] = (
    await knex('enterprises')
      .insert([
        { code: 'A', name: 'Coop A', legal_form: 'C', country: 'CM' },
        { code: 'B', name: 'Coop B', legal_form: 'C', country: 'GA' },
      ])
      .returning('id')
  ).map((row) => row.id as string) as [string, string];
  [branchA, branchB] = (
    await knex('branches')
      .insert([
        { enterprise_id: enterpriseA, code: 'HQ', name: 'HQ A', is_head_office: true },
        { enterprise_id: enterpriseB, code: 'HQ', name: 'HQ B', is_head_office: true },
      ])
      .returning('id')
  ).map((row) => row.id as string) as [string, string];
  await createUser(knex, 'admin-a', [{ role: 'admin', enterpriseId: enterpriseA, branchId: null }]);
  adminA = await bearer(app, 'admin-a', '10.7.0.1');
});

const create = (headers: Record<string, string>, json: Record<string, unknown>) =>
  app.request('POST', '/api/v1/auth/users/', { headers: { ...headers, 'x-forwarded-for': '10.7.0.9' }, json });

const cashierOf = (username: string, branch = branchA, enterprise = enterpriseA) => ({
  username,
  full_name: `Cashier ${username}`,
  email: `${username}@coop-a.example`,
  roles: [{ role: 'cashier', enterprise, branch }],
});

const signIn = (username: string, password: string) =>
  app.request('POST', '/api/v1/token/', { json: { username, password }, headers: { 'x-forwarded-for': '10.7.0.2' } });

test.serial(
  'an enterprise administrator creates a cashier with their role in one step, ' +
    'audited; the invitation sets the password once',
  async (t) => {
    const created = await create(adminA, {
      ...cashierOf('Amina'),
      roles: [
        { role: 'cashier', enterprise: enterpriseA, branch: branchA },
        { role: 'credit_committee', enterprise: enterpriseA },
      ],
    });
    t.is(created.status, 201, created.text);
    t.is(created.headers.get('location'), `/api/v1/auth/users/${created.body.id}/`);
    t.like(created.body, { username: 'amina', email: 'Amina@coop-a.example', is_active: true });
    t.deepEqual(created.body.roles.map((grant: { role: string }) => grant.role).sort(), [
      'cashier',
      'credit_committee',
    ]);
    const { token } = created.body.invitation as { token: string };
    t.true(token.length >= 40);

    const audit = await knex('audit_events').where({ action: 'user.create', entity_id: created.body.id });
    t.is(audit.length, 1);
    t.like(audit[0], {
      enterprise_id: enterpriseA,
      actor_id: (await knex('users').where({ username: 'admin-a' }).first()).id,
    });
    t.deepEqual(
      audit[0].details.roles.map((grant: { role: string }) => grant.role),
      ['cashier'],
      'the till with the account',
    );
    t.is(
      (await knex('audit_events').where({ action: 'user.grant_role', entity_id: created.body.id })).length,
      1,
      'the committee as any grant',
    );
    const stored = await knex('users').where({ id: created.body.id }).first();
    t.not(stored.invitation_token_hash, token, "only the token's hash is kept");

    t.is((await signIn('amina', 'anything at all long')).status, 401, 'no password until the invitation is accepted');
    const weak = await app.request('POST', '/api/v1/auth/invitations/accept/', { json: { token, password: 'short' } });
    t.is(weak.status, 400);
    t.is(weak.body.errors[0].field, 'password');
    const unknown = await app.request('POST', '/api/v1/auth/invitations/accept/', {
      json: { token: `${token}x`, password: newPassword },
    });
    t.is(unknown.body.code, 'invalid_invitation');
    t.is(unknown.body.errors[0].field, 'token');

    t.is(
      (await app.request('POST', '/api/v1/auth/invitations/accept/', { json: { token, password: newPassword } }))
        .status,
      204,
    );
    const signedIn = await signIn('amina', newPassword);
    t.is(signedIn.status, 200);
    const again = await app.request('POST', '/api/v1/auth/invitations/accept/', {
      json: { token, password: 'another new passphrase' },
    });
    t.is(again.body.code, 'invalid_invitation', 'an invitation sets the password once');
    t.is((await signIn('amina', newPassword)).status, 200);
    t.is(
      (await knex('audit_events').where({ action: 'user.accept_invitation', entity_id: created.body.id })).length,
      1,
    );
    // The credit committee role is above the till: no one but admin-a could approve it, so it was made at once, the
    // waiver audited.
    t.deepEqual(created.body.pending_roles, []);
    const waived = await knex('audit_events').where({ action: 'approval.waived', enterprise_id: enterpriseA });
    t.like(waived.at(-1)?.details, { operation: 'role_grant.above_cashier', approver_roles: ['admin'] });
  },
);

test.serial(
  'once a second administrator could decide, a role above the till given at creation waits for their approval',
  async (t) => {
    const second = await secondAdmin(knex, { enterpriseId: enterpriseA });
    const created = await create(adminA, {
      ...cashierOf('bruno'),
      roles: [
        { role: 'cashier', enterprise: enterpriseA, branch: branchA },
        { role: 'branch_head', enterprise: enterpriseA, branch: branchA },
      ],
    });
    t.is(created.status, 201, created.text);
    t.deepEqual(
      created.body.roles.map((grant: { role: string }) => grant.role),
      ['cashier'],
      'the till at once, the branch head role asked',
    );
    t.is(created.body.pending_roles.length, 1);
    t.like(created.body.pending_roles[0], {
      operation: 'role_grant.above_cashier',
      status: 'pending',
      approver_roles: ['admin'],
    });
    t.is(
      (await approveRequest(knex, { ...created, status: 202, body: created.body.pending_roles[0] }, second)).status,
      200,
    );
    const roles = await knex('role_grants').where({ user_id: created.body.id }).whereNull('revoked_at').pluck('role');
    t.deepEqual(roles.sort(), ['branch_head', 'cashier']);
    const onlyAbove = await create(adminA, {
      ...cashierOf('carole'),
      roles: [{ role: 'direction', enterprise: enterpriseA }],
    });
    t.is(onlyAbove.status, 201, onlyAbove.text);
    t.like(
      onlyAbove.body,
      { roles: [], pending_roles: [{ operation: 'role_grant.above_cashier', status: 'pending' }] },
      'an account may wait for every role',
    );
    await knex('users').where({ id: second.id }).update({ is_active: false });
  },
);

test.serial('roles outside what the administrator administers are refused, and nothing is written', async (t) => {
  const before = await knex('users').count({ n: '*' }).first();
  const otherEnterprise = await create(adminA, cashierOf('bruno', branchB, enterpriseB));
  t.is(otherEnterprise.status, 403);
  const platform = await create(adminA, { ...cashierOf('carla'), roles: [{ role: 'admin', enterprise: null }] });
  t.is(platform.status, 403);
  const mixed = await create(adminA, {
    ...cashierOf('dora'),
    roles: [
      { role: 'cashier', enterprise: enterpriseA, branch: branchA },
      { role: 'direction', enterprise: enterpriseB },
    ],
  });
  t.is(mixed.status, 403, 'one role out of scope refuses the whole creation');
  const foreignBranch = await create(adminA, cashierOf('eric', branchB, enterpriseA));
  t.is(foreignBranch.status, 400);
  t.is(foreignBranch.body.errors[0].field, 'roles[0].branch');

  await createUser(knex, 'branch-admin', [{ role: 'admin', enterpriseId: enterpriseA, branchId: branchA }]);
  const branchAdmin = await bearer(app, 'branch-admin', '10.7.0.3');
  t.is(
    (await create(branchAdmin, { ...cashierOf('fanny'), roles: [{ role: 'direction', enterprise: enterpriseA }] }))
      .status,
    403,
    'a branch administrator grants in their branch only',
  );
  t.is((await create(branchAdmin, cashierOf('fanny'))).status, 201);

  await createUser(knex, 'plain-cashier', [{ role: 'cashier', enterpriseId: enterpriseA, branchId: branchA }]);
  t.is(
    (await create(await bearer(app, 'plain-cashier', '10.7.0.4'), cashierOf('gil'))).status,
    403,
    'a cashier is no administrator',
  );
  const after = await knex('users').count({ n: '*' }).first();
  t.is(Number(after!.n), Number(before!.n) + 3, 'the branch administrator, fanny, the plain cashier: nobody refused');
});

test.serial('every field is checked, naming it; a taken username or email is a conflict', async (t) => {
  const field = async (json: Record<string, unknown>) => {
    const answer = await create(adminA, json);
    t.is(answer.status, 400, answer.text);
    return [...new Set((answer.body.errors as { field: string }[]).map((error) => error.field))];
  };
  t.deepEqual(await field({ ...cashierOf('hugo'), username: 'a b' }), ['username']);
  t.deepEqual(await field({ ...cashierOf('hugo'), full_name: '' }), ['full_name']);
  t.deepEqual(await field({ ...cashierOf('hugo'), email: 'not-an-email' }), ['email']);
  t.deepEqual(await field({ ...cashierOf('hugo'), email: undefined }), ['email']);
  t.deepEqual(await field({ ...cashierOf('hugo'), roles: [] }), ['roles']);
  t.deepEqual(await field({ ...cashierOf('hugo'), roles: [{ role: 'teller', enterprise: enterpriseA }] }), [
    'roles[0].role',
  ]);
  t.deepEqual(await field({ ...cashierOf('hugo'), roles: [{ role: 'cashier', enterprise: 'nope' }] }), [
    'roles[0].enterprise',
  ]);

  t.is((await create(adminA, cashierOf('hugo'))).status, 201);
  const sameName = await create(adminA, { ...cashierOf('HUGO'), email: 'other@coop-a.example' });
  t.is(sameName.status, 409);
  t.is(sameName.body.code, 'username_taken');
  const sameEmail = await create(adminA, { ...cashierOf('hugo2'), email: 'Hugo@Coop-A.example' });
  t.is(sameEmail.status, 409);
  t.is(sameEmail.body.code, 'email_taken');
});

test.serial('an administrator creating many accounts from one address is not throttled as sign-ups are', async (t) => {
  for (let index = 0; index < 21; index += 1) {
    const created = await create(adminA, cashierOf(`batch-${index}`));
    t.is(created.status, 201, `creation ${index + 1}: ${created.text}`);
  }
  const listed = await app.request('GET', '/api/v1/auth/users/?search=batch-&page_size=100', { headers: adminA });
  t.is(listed.body.results.length, 21);
});

/**
 * A user as an import's branches-users file brings them in (activities/imports/branch-user-steps.ts): no password,
 * no email, named by the import; a cashier's role granted with them, a role above it left to an administrator.
 */
async function importedUser(username: string, enterprise: string, branch: string | null): Promise<string> {
  const { id: adminId } = await knex('users').where({ username: 'admin-a' }).first('id');
  const [imported] = await knex('imports')
    .insert({ enterprise_id: enterprise, cut_over_date: '2026-10-31', status: 'applied', uploaded_by: adminId })
    .returning('id');
  const [user] = await knex('users')
    .insert({ username, password_hash: 'invited', full_name: `Imported ${username}`, import_id: imported.id })
    .returning('id');
  if (branch !== null)
    await knex('role_grants').insert({
      user_id: user.id,
      role: 'cashier',
      enterprise_id: enterprise,
      branch_id: branch,
    });
  return user.id as string;
}

const invite = (userId: string, headers = adminA) =>
  app.request('POST', `/api/v1/auth/users/${userId}/invitation/`, {
    headers: { ...headers, 'x-forwarded-for': '10.7.0.9' },
  });
const accept = (token: string, password = newPassword) =>
  app.request('POST', '/api/v1/auth/invitations/accept/', { json: { token, password } });

test.serial(
  'an imported user gets an invitation from an administrator, ' +
    'accepts it and signs in; a new invitation voids the unused one',
  async (t) => {
    const userId = await importedUser('imported-cashier', enterpriseA, branchA);
    t.is((await signIn('imported-cashier', newPassword)).status, 401, 'imported without a password');
    const first = await invite(userId);
    t.is(first.status, 200, first.text);
    const second = await invite(userId);
    t.is(second.status, 200, second.text);
    t.not(second.body.token, first.body.token);
    // The clock's seven days: the invitation ends a week after it was given.
    const weekAfter = Date.parse(second.body.expires_at as string) - 7 * 24 * 3600 * 1000;
    t.true(
      Math.abs(weekAfter - testClock().getTime()) < 60_000,
      `${second.body.expires_at as string} is a week after the test clock's now`,
    );
    t.like(
      (await accept(first.body.token as string)).body,
      { code: 'invalid_invitation' },
      'the first invitation no longer works',
    );
    t.is((await accept(second.body.token as string)).status, 204);
    t.is((await signIn('imported-cashier', newPassword)).status, 200);
    const audit = await knex('audit_events').where({ action: 'user.invite', entity_id: userId }).orderBy('id');
    t.is(audit.length, 2);
    t.like(audit[0], {
      enterprise_id: enterpriseA,
      actor_id: (await knex('users').where({ username: 'admin-a' }).first()).id,
    });
    t.deepEqual(
      audit.map((row) => row.details.replaced_unused_invitation),
      [false, true],
    );
    t.like(
      (await invite(userId)).body,
      { status: 409, code: 'user_has_password' },
      'an invitation never resets a password',
    );
  },
);

test.serial(
  "an imported user without a role yet is invited by their enterprise's administrator only; " +
    'a deactivated one is refused',
  async (t) => {
    const roleless = await importedUser('imported-head', enterpriseA, null);
    t.is((await invite(roleless)).status, 200, 'a branch head waiting for their role');
    const otherEnterprise = await importedUser('imported-b', enterpriseB, null);
    t.like(
      (await invite(otherEnterprise)).body,
      { status: 404, code: 'not_found' },
      "another enterprise's import is outside the administrator's scope",
    );
    t.is((await app.request('GET', `/api/v1/auth/users/${otherEnterprise}/`, { headers: adminA })).status, 404);
    const otherCashier = await importedUser('imported-b-cashier', enterpriseB, branchB);
    t.is((await invite(otherCashier)).status, 404);
    const deactivated = await importedUser('imported-gone', enterpriseA, branchA);
    await knex('users').where({ id: deactivated }).update({ is_active: false });
    t.like((await invite(deactivated)).body, { status: 409, code: 'user_deactivated' });
    t.deepEqual(
      await knex('audit_events')
        .where({ action: 'user.invite' })
        .whereIn('entity_id', [otherEnterprise, otherCashier, deactivated])
        .pluck('id'),
      [],
      'nothing audited for a refusal',
    );
  },
);

test.serial(
  "the OpenAPI document declares the creation with its body and answer, and the invitation's acceptance",
  async (t) => {
    const document = (await app.request('GET', '/api/v1/schema/')).body;
    const creation = document.paths['/api/v1/auth/users/'].post;
    t.is(creation.operationId, 'createUser');
    const body = creation.requestBody.content['application/json'].schema;
    t.deepEqual([...body.required].sort(), ['email', 'full_name', 'roles', 'username']);
    t.is(body.properties.roles.minItems, 1);
    t.is(creation.responses['201'].content['application/json'].schema.$ref, '#/components/schemas/CreatedUser');
    t.deepEqual(document.components.schemas.CreatedUser.properties.invitation.required.sort(), ['expires_at', 'token']);
    t.is(document.paths['/api/v1/auth/invitations/accept/'].post.operationId, 'acceptInvitation');
    const invitation = document.paths['/api/v1/auth/users/{id}/invitation/'].post;
    t.is(invitation.operationId, 'inviteUser');
    t.is(invitation.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/Invitation');
    t.deepEqual([...invitation.responses['409']['x-error-codes']].sort(), ['user_deactivated', 'user_has_password']);
  },
);
