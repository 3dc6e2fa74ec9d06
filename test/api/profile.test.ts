import test from 'ava';
import { authRoutes } from '../../api/modules/auth/auth.routes';
import { profileRoutes } from '../../api/modules/enterprise/profile.routes';
import type { Knex } from '../../db/knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { insertEnterprise } from '../helpers/mothers';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let coop: string;
let other: string;
const sessions: Record<string, Record<string, string>> = {};
const profilePath = (enterprise: string) => `/api/v1/enterprise/enterprises/${enterprise}/profile/`;

/** A request as `who` (a key of `sessions`), or anonymous (null). */
function call(who: string | null, method: string, path: string, json?: unknown) {
  return app.request(method, path, { json, headers: who === null ? {} : sessions[who] });
}

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, routes: [...authRoutes, ...profileRoutes] });
  coop = await insertEnterprise(knex, 'COOP');
  other = await insertEnterprise(knex, 'OTHER');
  const users = {
    cashier: [{ role: 'cashier' as const, enterpriseId: coop, branchId: null }],
    direction: [{ role: 'direction' as const, enterpriseId: coop, branchId: null }],
    admin: [{ role: 'admin' as const, enterpriseId: coop, branchId: null }],
    outsider: [{ role: 'direction' as const, enterpriseId: other, branchId: null }],
    // Passes the router's role check (direction somewhere), so only the handler's check at the enterprise stops it.
    mixed: [
      { role: 'cashier' as const, enterpriseId: coop, branchId: null },
      { role: 'direction' as const, enterpriseId: other, branchId: null },
    ],
    roleless: [],
    platform: [{ role: 'admin' as const, enterpriseId: null, branchId: null }],
  };
  for (const [name, grants] of Object.entries(users)) {
    await createUser(knex, `profile.${name}`, grants);
    sessions[name] = await bearer(app, `profile.${name}`);
  }
});

test.serial('direction and administrators fill in the profile; anyone of the enterprise reads it', async (t) => {
  const empty = await call('cashier', 'GET', profilePath(coop));
  t.is(empty.status, 200);
  t.like(empty.body, {
    enterprise: coop,
    approval_number: '',
    category: null,
    founding_date: null,
    head_office_address: '',
    registration_number: '',
  });

  const filled = await call('direction', 'PATCH', profilePath(coop), {
    approval_number: ' D-2019/0042 ',
    category: '1',
    founding_date: '2004-03-15',
    head_office_address: 'Rue Joss, Douala',
    registration_number: 'RC/DLA/2004/B/1234',
  });
  t.is(filled.status, 200);
  t.like(filled.body, {
    approval_number: 'D-2019/0042',
    category: '1',
    founding_date: '2004-03-15',
    head_office_address: 'Rue Joss, Douala',
    registration_number: 'RC/DLA/2004/B/1234',
  });
  const audit = await knex('audit_events').where({ action: 'profile.update', enterprise_id: coop }).first();
  t.like(audit?.details, { approvalNumber: 'D-2019/0042', category: '1' });

  const partial = await call('admin', 'PATCH', profilePath(coop), { category: null, founding_date: null });
  t.is(partial.status, 200);
  t.like(partial.body, {
    category: null,
    founding_date: null,
    approval_number: 'D-2019/0042',
    registration_number: 'RC/DLA/2004/B/1234',
  });
  const audited = await knex('audit_events').where({ action: 'profile.update' }).count('* as count');
  const unchanged = await call('admin', 'PATCH', profilePath(coop), {});
  t.is(unchanged.status, 200);
  t.deepEqual(
    await knex('audit_events').where({ action: 'profile.update' }).count('* as count'),
    audited,
    'nothing changed, nothing audited',
  );
  t.is(unchanged.body.approval_number, 'D-2019/0042');
  t.deepEqual((await call('cashier', 'GET', profilePath(coop))).body, unchanged.body);
});

test.serial('invalid fields are refused with 400 naming each of them, and nothing is written', async (t) => {
  const before = await knex('cooperative_profiles').where({ enterprise_id: coop }).first();
  const fields = (response: { body: { errors: { field: string }[] } }) =>
    [...new Set(response.body.errors.map((error) => error.field))].sort();
  const invalid = await call('direction', 'PATCH', profilePath(coop), {
    approval_number: 'a'.repeat(51),
    category: '4',
    founding_date: '2023-02-29',
    head_office_address: 'h'.repeat(301),
    registration_number: 'r'.repeat(51),
  });
  t.is(invalid.status, 400);
  t.deepEqual(fields(invalid), [
    'approval_number',
    'category',
    'founding_date',
    'head_office_address',
    'registration_number',
  ]);
  t.deepEqual(
    invalid.body.errors.find((error: { field: string }) => error.field === 'founding_date'),
    { field: 'founding_date', message: 'founding_date is not a real date' },
  );
  const unknown = await call('direction', 'PATCH', profilePath(coop), { name: 'Renamed' });
  t.deepEqual(unknown.body.errors, [{ field: 'name', message: 'name is not a known field' }]);
  const badPath = await call('direction', 'GET', profilePath('123'));
  t.deepEqual(fields(badPath), ['enterprise_pk']);
  t.deepEqual(await knex('cooperative_profiles').where({ enterprise_id: coop }).first(), before);
});

test.serial('access: anonymous 401, no role or another enterprise 404, cashier reads only', async (t) => {
  const path = profilePath(coop);
  const change = { approval_number: 'HIJACKED' };
  for (const [who, read, write] of [
    [null, 401, 401],
    ['roleless', 404, 403], // holds neither writing role anywhere: the router refuses before the lookup
    ['outsider', 404, 404], // direction elsewhere: this enterprise is not disclosed
    ['cashier', 200, 403],
    ['mixed', 200, 403],
  ] as const) {
    t.is((await call(who, 'GET', path)).status, read, `${who ?? 'anonymous'} reads`);
    t.is((await call(who, 'PATCH', path, change)).status, write, `${who ?? 'anonymous'} writes`);
  }
  t.not((await knex('cooperative_profiles').where({ enterprise_id: coop }).first()).approval_number, 'HIJACKED');
  t.is(
    (await call('outsider', 'PATCH', profilePath(other), { approval_number: 'D-2020/7' })).status,
    200,
    'the outsider writes its own',
  );

  const unknown = profilePath('00000000-0000-4000-8000-000000000000');
  t.is((await call('platform', 'GET', unknown)).status, 404);
  t.is((await call('platform', 'PATCH', unknown, change)).status, 404);
  t.is((await call('platform', 'GET', '/api/v1/enterprise/profile/')).status, 404, 'no flat variant');
});
