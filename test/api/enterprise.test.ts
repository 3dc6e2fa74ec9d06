import test from 'ava';
import type { Knex } from '../../db/knex';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/app';
import { fileTeardown } from '../helpers/teardown';
import { approveRequest, secondAdmin } from '../helpers/approvals';
import { bearer, createUser } from '../helpers/users';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let root: Record<string, string>;
const now = new Date('2026-11-22T08:00:00Z');

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, clock: () => now });
  await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  root = await bearer(app, 'root');
});

async function newEnterprise(code: string): Promise<{ id: string; headOffice: string }> {
  const created = await app.request('POST', '/api/v1/enterprise/enterprises/', {
    headers: root,
    json: { code, name: `Coop ${code}`, legal_form: 'Coopérative', country: 'CM' },
  });
  if (created.status !== 201) throw new Error(created.text);
  const [headOffice] = await knex('branches').where({ enterprise_id: created.body.id }).pluck('id');
  return { id: created.body.id, headOffice };
}

test(
  'creating an enterprise leaves it ready: head office, ' + 'open year of the current year, configuration, profile',
  async (t) => {
    const created = await app.request('POST', '/api/v1/enterprise/enterprises/', {
      headers: root,
      json: {
        code: 'MUFFA',
        name: 'Mutuelle de Bafoussam',
        legal_form: 'Coopérative avec CA',
        country: 'CM',
        head_office: { code: 'BAF', name: 'Siège Bafoussam' },
      },
    });
    t.is(created.status, 201);
    const id = created.body.id;
    const branches = await app.request('GET', `/api/v1/enterprise/enterprises/${id}/branches/`, { headers: root });
    t.is(branches.body.count, 1);
    t.like(branches.body.results[0], { code: 'BAF', is_head_office: true, enterprise: id });
    const years = await app.request('GET', `/api/v1/enterprise/exercices/?enterprise=${id}`, { headers: root });
    t.like(years.body.results[0], { code: '2026', start_date: '2026-01-01', end_date: '2026-12-31', status: 'open' });
    const configuration = await app.request('GET', `/api/v1/enterprise/enterprises/${id}/configuration/`, {
      headers: root,
    });
    t.like(configuration.body, {
      time_zone: 'Africa/Douala',
      currency: 'XAF',
      business_date: '2026-11-22',
      business_date_is_set: false,
      share_withdrawal_notice_days: 90,
      credit_cap_mode: 'enforce',
    });
    t.deepEqual(
      configuration.body.provisioning_ladder.map((step: { rate: string }) => step.rate),
      ['0', '0.25', '0.5', '0.75', '1'],
    );
    t.is((await knex('cooperative_profiles').where({ enterprise_id: id })).length, 1);
    t.is((await knex('audit_events').where({ action: 'enterprise.create', entity_id: id })).length, 1);
  },
);

test('enterprise codes are unique; bad fields are named; nothing is written on refusal', async (t) => {
  await newEnterprise('DUP');
  const duplicate = await app.request('POST', '/api/v1/enterprise/enterprises/', {
    headers: root,
    json: { code: 'DUP', name: 'Other', legal_form: 'C', country: 'CM' },
  });
  t.is(duplicate.status, 409);
  t.is(duplicate.body.code, 'enterprise_code_taken');
  const invalid = await app.request('POST', '/api/v1/enterprise/enterprises/', {
    headers: root,
    json: { code: 'has space', name: 'X', legal_form: '', country: 'FR', time_zone: 'Mars/Olympus' },
  });
  t.is(invalid.status, 400);
  t.deepEqual(invalid.body.errors.map((error: { field: string }) => error.field).sort(), [
    'code',
    'country',
    'legal_form',
    'name',
    'time_zone',
  ]);
  t.is((await knex('enterprises').where({ code: 'has space' })).length, 0);
});

test('branches: code unique per enterprise, one head office that can move but not disappear', async (t) => {
  const enterprise = await newEnterprise('BR1');
  const other = await newEnterprise('BR2');
  const create = (enterpriseId: string, json: object) =>
    app.request('POST', '/api/v1/enterprise/branches/', { headers: root, json: { enterprise: enterpriseId, ...json } });
  const dschang = await create(enterprise.id, {
    code: 'DSC',
    name: 'Agence de Dschang',
    city: 'Dschang',
    phone: '+237 6 99 00 00 00',
  });
  t.is(dschang.status, 201);
  t.false(dschang.body.is_head_office);
  t.is((await create(enterprise.id, { code: 'DSC', name: 'Twin' })).body.code, 'branch_code_taken');
  t.is((await create(other.id, { code: 'DSC', name: 'Same code elsewhere' })).status, 201, 'codes are per enterprise');

  const keepOne = await app.request('PATCH', `/api/v1/enterprise/branches/${enterprise.headOffice}/`, {
    headers: root,
    json: { is_head_office: false },
  });
  t.is(keepOne.body.code, 'head_office_required');
  const moved = await app.request('PATCH', `/api/v1/enterprise/branches/${dschang.body.id}/`, {
    headers: root,
    json: { is_head_office: true },
  });
  t.true(moved.body.is_head_office);
  const former = await app.request('GET', `/api/v1/enterprise/branches/${enterprise.headOffice}/`, { headers: root });
  t.false(former.body.is_head_office);
  const nestedWrong = await app.request(
    'GET',
    `/api/v1/enterprise/enterprises/${other.id}/branches/${dschang.body.id}/`,
    { headers: root },
  );
  t.is(nestedWrong.status, 404, 'a branch asked for under another enterprise does not exist there');
});

test(
  'accounting years: no overlap, one open at a time (and its ' +
    'successor while it closes), closing through its workflow',
  async (t) => {
    const enterprise = await newEnterprise('EX1');
    const create = (json: object) =>
      app.request('POST', '/api/v1/enterprise/exercices/', {
        headers: root,
        json: { enterprise: enterprise.id, ...json },
      });
    const close = (id: string) =>
      app.request('POST', `/api/v1/enterprise/exercices/${id}/close/`, { headers: root, json: {} });
    const overlapping = await create({ code: '2026B', start_date: '2026-06-01', end_date: '2027-05-31' });
    t.is(overlapping.body.code, 'exercice_already_open');
    const [current] = await knex('exercices_comptables').where({ enterprise_id: enterprise.id }).pluck('id');
    t.is((await close(current)).body.code, 'next_exercice_not_open');
    t.is((await create({ code: '2027', start_date: '2027-01-01', end_date: '2026-12-31' })).status, 400);
    t.is(
      (await create({ code: '2027', start_date: '2027-02-30', end_date: '2027-12-31' })).body.errors[0].field,
      'start_date',
    );
    const next = await create({ code: '2027', start_date: '2027-01-01', end_date: '2027-12-31' });
    t.is(next.status, 201, 'the year after the open one may open: it receives its opening balances');
    t.is(
      (await create({ code: '2028', start_date: '2028-01-01', end_date: '2028-12-31' })).body.code,
      'exercice_already_open',
    );
    t.is((await close(next.body.id)).body.code, 'previous_exercice_open');

    const closing = await close(current);
    t.is(closing.status, 202);
    t.is(closing.headers.get('location'), `/api/v1/enterprise/exercices/${current}/`);
    t.like(closing.body.closing, {
      status: 'running',
      step: 'requested',
      result: null,
      workflow_id: `year-end-closing-${enterprise.id}-2026`,
    });
    t.is((await close(current)).body.code, 'exercice_closing_running');
    const reopen = await app.request('POST', `/api/v1/enterprise/exercices/${current}/reopen/`, {
      headers: root,
      json: { reason: 'late invoices' },
    });
    t.is(reopen.body.code, 'exercice_already_open', 'no worker runs this file: the year is not closed yet');
    await app.request('PATCH', `/api/v1/enterprise/enterprises/${enterprise.id}/configuration/`, {
      headers: root,
      json: { allow_several_open_exercices: true },
    });
    t.is(
      (await create({ code: '2026B', start_date: '2026-06-01', end_date: '2027-05-31' })).body.code,
      'exercice_overlap',
    );
  },
);

test('configuration: typed and validated; the business date only moves forward', async (t) => {
  const enterprise = await newEnterprise('CF1');
  const path = `/api/v1/enterprise/enterprises/${enterprise.id}/configuration/`;
  const bad = await app.request('PATCH', path, {
    headers: root,
    json: {
      provisioning_hour: 24,
      credit_cap_mode: 'maybe',
      provisioning_ladder: [
        { days_from: 0, days_to: 30, rate: '0.5' },
        { days_from: 40, days_to: null, rate: '0.2' },
      ],
    },
  });
  t.is(bad.status, 400);
  t.deepEqual(bad.body.errors.map((error: { field: string }) => error.field).sort(), [
    'credit_cap_mode',
    'provisioning_hour',
  ]);
  const badLadder = await app.request('PATCH', path, {
    headers: root,
    json: {
      provisioning_ladder: [
        { days_from: 0, days_to: 30, rate: '0.5' },
        { days_from: 40, days_to: null, rate: '0.2' },
      ],
    },
  });
  t.deepEqual(
    badLadder.body.errors.map((error: { field: string }) => error.field),
    ['provisioning_ladder[1].days_from', 'provisioning_ladder[1].rate'],
  );

  // Moving the business date is under four eyes (the default policy): requested alone, approved by a second
  // administrator.
  t.is(
    (
      await app.request('PATCH', path, {
        headers: root,
        json: { business_date: '2026-11-30', share_withdrawal_notice_days: 60 },
      })
    ).body.code,
    'approval_change_mixed',
  );
  await app.request('PATCH', path, { headers: root, json: { share_withdrawal_notice_days: 60 } });
  await approveRequest(
    knex,
    await app.request('PATCH', path, { headers: root, json: { business_date: '2026-11-30' } }),
    await secondAdmin(knex, { enterpriseId: enterprise.id }),
    now,
  );
  const advanced = await app.request('GET', path, { headers: root });
  t.like(advanced.body, { business_date: '2026-11-30', business_date_is_set: true, share_withdrawal_notice_days: 60 });
  const back = await app.request('PATCH', path, { headers: root, json: { business_date: '2026-11-29' } });
  t.is(back.status, 409);
  t.is(back.body.code, 'business_date_backwards');
});

test('role matrix: each caller gets exactly the intended answer on each enterprise route', async (t) => {
  const own = await newEnterprise('RM1');
  const foreign = await newEnterprise('RM2');
  const [branchB] = await knex('branches')
    .insert({ enterprise_id: own.id, code: 'B', name: 'Branch B' })
    .returning('id');
  const grant = (
    role: 'cashier' | 'branch_head' | 'credit_committee' | 'direction' | 'admin' | 'auditor',
    branchId: string | null = null,
  ) => [{ role, enterpriseId: own.id, branchId }];
  const callers: Record<string, Record<string, string>> = { anonymous: {} };
  for (const [name, grants] of Object.entries({
    nobody: [],
    cashier: grant('cashier', own.headOffice),
    branch_head: grant('branch_head', own.headOffice),
    credit_committee: grant('credit_committee'),
    direction: grant('direction'),
    admin: grant('admin'),
    auditor: grant('auditor'),
    foreign_direction: [{ role: 'direction' as const, enterpriseId: foreign.id, branchId: null }],
  })) {
    await createUser(knex, `rm-${name}`, grants);
    callers[name] = await bearer(app, `rm-${name}`, `10.77.0.${Object.keys(callers).length}`);
  }
  const [year] = await knex('exercices_comptables').where({ enterprise_id: own.id }).pluck('id');
  const readers = ['cashier', 'branch_head', 'credit_committee', 'direction', 'admin', 'auditor'];
  const writers = ['direction', 'admin'];
  // Reads: 404 to anyone without a role in the enterprise (its existence is not disclosed). Writes: a user
  // holding none of the route's roles anywhere is refused up front (403, before any lookup); one holding
  // them elsewhere only gets 404.
  const read = (allowed: string[]) => (name: string) =>
    name === 'anonymous' ? 401 : allowed.includes(name) ? 200 : 404;
  const write = (allowed: string[]) => (name: string) =>
    name === 'anonymous' ? 401 : allowed.includes(name) ? 200 : name === 'foreign_direction' ? 404 : 403;

  const cases: [string, string, object | undefined, (name: string) => number][] = [
    ['GET', `/api/v1/enterprise/enterprises/${own.id}/`, undefined, read(readers)],
    ['PATCH', `/api/v1/enterprise/enterprises/${own.id}/`, { name: 'Renamed coop' }, write(writers)],
    // Creating an enterprise is for platform administrators: an enterprise administrator is refused too.
    [
      'POST',
      '/api/v1/enterprise/enterprises/',
      { code: 'X', name: 'Xx', legal_form: 'C', country: 'CM' },
      (name) => (name === 'anonymous' ? 401 : 403),
    ],
    ['GET', `/api/v1/enterprise/branches/${own.headOffice}/`, undefined, read(readers)],
    [
      'GET',
      `/api/v1/enterprise/branches/${branchB.id}/`,
      undefined,
      read(['credit_committee', 'direction', 'admin', 'auditor']),
    ],
    [
      'PATCH',
      `/api/v1/enterprise/enterprises/${own.id}/branches/${own.headOffice}/`,
      { city: 'Yaoundé' },
      write(writers),
    ],
    ['GET', `/api/v1/enterprise/exercices/${year}/`, undefined, read(readers)],
    ['GET', `/api/v1/enterprise/enterprises/${own.id}/configuration/`, undefined, read(readers)],
    ['PATCH', `/api/v1/enterprise/enterprises/${own.id}/configuration/`, { provisioning_hour: 3 }, write(writers)],
  ];
  for (const [method, path, json, expected] of cases) {
    for (const [name, headers] of Object.entries(callers)) {
      const response = await app.request(method, path, { headers, json });
      t.is(response.status, expected(name), `${name} ${method} ${path}`);
    }
  }
});

test(
  'branch isolation: a cashier of one branch sees only ' + 'that branch, in lists, filters and nested paths',
  async (t) => {
    const enterprise = await newEnterprise('ISO');
    const [other] = await knex('branches')
      .insert({ enterprise_id: enterprise.id, code: 'OTHER', name: 'Other branch' })
      .returning('id');
    await createUser(knex, 'iso-cashier', [
      { role: 'cashier', enterpriseId: enterprise.id, branchId: enterprise.headOffice },
    ]);
    const headers = await bearer(app, 'iso-cashier', '10.88.0.1');
    for (const path of [
      '/api/v1/enterprise/branches/',
      `/api/v1/enterprise/branches/?enterprise=${enterprise.id}`,
      `/api/v1/enterprise/enterprises/${enterprise.id}/branches/`,
    ]) {
      const list = await app.request('GET', path, { headers });
      t.deepEqual(
        list.body.results.map((branch: { id: string }) => branch.id),
        [enterprise.headOffice],
        path,
      );
    }
    for (const path of [
      `/api/v1/enterprise/branches/${other.id}/`,
      `/api/v1/enterprise/enterprises/${enterprise.id}/branches/${other.id}/`,
    ]) {
      t.is((await app.request('GET', path, { headers })).status, 404, path);
    }
    const enterprises = await app.request('GET', '/api/v1/enterprise/enterprises/', { headers });
    t.deepEqual(
      enterprises.body.results.map((row: { id: string }) => row.id),
      [enterprise.id],
    );
  },
);

test('a role revoked now is gone on the very next request', async (t) => {
  const enterprise = await newEnterprise('REV');
  const userId = await createUser(knex, 'rev-direction', [
    { role: 'direction', enterpriseId: enterprise.id, branchId: null },
  ]);
  const headers = await bearer(app, 'rev-direction', '10.99.0.1');
  const path = `/api/v1/enterprise/enterprises/${enterprise.id}/configuration/`;
  t.is((await app.request('PATCH', path, { headers, json: { provisioning_hour: 4 } })).status, 200);
  const [grantId] = await knex('role_grants').where({ user_id: userId }).pluck('id');
  const revoked = await app.request('DELETE', `/api/v1/auth/users/${userId}/roles/${grantId}/`, { headers: root });
  t.is(revoked.status, 204);
  t.is((await app.request('PATCH', path, { headers, json: { provisioning_hour: 5 } })).status, 403);
  t.is((await app.request('GET', path, { headers })).status, 404, 'no role left in the enterprise: it is not visible');
});

test('an empty PATCH changes nothing and answers the resource as it is', async (t) => {
  const enterprise = await newEnterprise('EMP');
  for (const path of [
    `/api/v1/enterprise/enterprises/${enterprise.id}/`,
    `/api/v1/enterprise/branches/${enterprise.headOffice}/`,
    `/api/v1/enterprise/enterprises/${enterprise.id}/configuration/`,
  ]) {
    const before = await app.request('GET', path, { headers: root });
    const patched = await app.request('PATCH', path, { headers: root, json: {} });
    t.is(patched.status, 200, path);
    t.deepEqual(patched.body, before.body, path);
  }
  t.is(
    (
      await knex('audit_events')
        .where({ enterprise_id: enterprise.id })
        .whereIn('action', ['enterprise.update', 'branch.update', 'configuration.update'])
    ).length,
    0,
  );
});
