import test from 'ava';
import type { Grant } from '../../domain/access';
import type { Knex } from '../../db/knex';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app';
import { fileTeardown } from '../helpers/teardown';
import { approveRequest, secondAdmin } from '../helpers/approvals';
import { bearer, createUser } from '../helpers/users';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let root: Record<string, string>;
const now = new Date('2026-11-22T08:00:00Z'); // 2026-11-22 in Douala: the business date unless one is set
const path = '/api/v1/members/clients/';

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  // The members' routes are mounted here too until api/routes.ts lists them (the Set never mounts one twice).
  app = await startTestApp(file, { knex, clock: () => now });
  await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  root = await bearer(app, 'root');
});

interface Coop {
  id: string;
  a: string; // head office, code `${code}A`
  b: string;
  closed: string;
}

/** An enterprise made through the API (head office, configuration, business date), plus branch B and a closed one. */
async function newCoop(code: string): Promise<Coop> {
  const created = await app.request('POST', '/api/v1/enterprise/enterprises/', {
    headers: root,
    json: {
      code,
      name: `Coop ${code}`,
      legal_form: 'Coopérative',
      country: 'CM',
      head_office: { code: `${code}A`, name: 'Siège' },
    },
  });
  if (created.status !== 201) throw new Error(created.text);
  const branch = async (suffix: string) =>
    (
      await app.request('POST', '/api/v1/enterprise/branches/', {
        headers: root,
        json: { enterprise: created.body.id, code: `${code}${suffix}`, name: `Agence ${suffix}` },
      })
    ).body.id as string;
  const closed = await branch('Z');
  await app.request('PATCH', `/api/v1/enterprise/branches/${closed}/`, { headers: root, json: { status: 'closed' } });
  const [a] = await knex('branches').where({ enterprise_id: created.body.id, is_head_office: true }).pluck('id');
  return { id: created.body.id, a, b: await branch('B'), closed };
}

let users = 0;
async function user(grants: Grant[]): Promise<{ id: string; headers: Record<string, string> }> {
  const name = `member-staff-${(users += 1)}`; // taken before any await: tests make users concurrently
  const id = await createUser(knex, name, grants);
  return { id, headers: await bearer(app, name) };
}
const at = (role: Grant['role'], enterpriseId: string, branchId: string | null = null): Grant[] => [
  { role, enterpriseId, branchId },
];

let documents = 0;
const person = (coop: Coop, fields: object = {}) => ({
  enterprise: coop.id,
  branch: coop.a,
  kind: 'natural_person',
  first_name: 'Jeanne',
  last_name: 'Mballa',
  id_document_type: 'national_id',
  id_document_number: `CNI${(documents += 1)}`,
  birth_date: '1990-05-17',
  ...fields,
});
const company = (coop: Coop, fields: object = {}) => ({
  enterprise: coop.id,
  branch: coop.a,
  kind: 'legal_entity',
  legal_name: 'GIC Les Planteurs',
  id_document_type: 'business_register',
  id_document_number: `RC/DLA/2020/B/${(documents += 1)}`,
  ...fields,
});
const create = (headers: Record<string, string>, json: object) => app.request('POST', path, { headers, json });
const patch = (headers: Record<string, string>, id: string, json: object) =>
  app.request('PATCH', `${path}${id}/`, { headers, json });
const act = (headers: Record<string, string>, id: string, action: string, json: object = {}) =>
  app.request('POST', `${path}${id}/${action}/`, { headers, json });
const fields = (response: TestResponse) =>
  [...new Set<string>(response.body.errors.map((error: { field: string }) => error.field))].sort();
const ids = (response: TestResponse) => response.body.results.map((row: { id: string }) => row.id).sort();
// The id is a bigserial: the order of writing.
const audits = (entityId: string) => knex('audit_events').where({ entity_id: entityId }).orderBy('id');

test(
  'a cashier registers members in their branch: numbered ' + 'per branch from 1, dated with the business date, audited',
  async (t) => {
    const coop = await newCoop('M1');
    const moved = await app.request('PATCH', `/api/v1/enterprise/enterprises/${coop.id}/configuration/`, {
      headers: root,
      json: { business_date: '2026-11-25' },
    });
    await approveRequest(knex, moved, await secondAdmin(knex, { enterpriseId: coop.id }), now);
    const cashier = await user(at('cashier', coop.id, coop.a));
    const jeanne = await create(
      cashier.headers,
      person(coop, {
        email: ' Jeanne@Example.CM ',
        phone: '+237 699 00 00 01',
        id_document_number: 'ab 12 34',
        gender: 'female',
      }),
    );
    t.is(jeanne.status, 201, jeanne.text);
    t.like(jeanne.body, {
      enterprise: coop.id,
      branch: coop.a,
      member_number: 'M1A-000001',
      kind: 'natural_person',
      first_name: 'Jeanne',
      legal_name: '',
      id_document_number: 'AB1234',
      email: 'jeanne@example.cm',
      gender: 'female',
      nationality: 'CM',
      membership_date: '2026-11-25',
      status: 'active',
      status_reason: '',
      risk_level: 'low',
      politically_exposed: false,
      created_by: cashier.id,
    });
    const gic = await create(cashier.headers, company(coop, { membership_date: '2019-03-01', risk_level: 'medium' }));
    t.like(gic.body, {
      member_number: 'M1A-000002',
      kind: 'legal_entity',
      first_name: '',
      birth_date: null,
      membership_date: '2019-03-01',
      risk_level: 'medium',
    });
    const direction = await user(at('direction', coop.id));
    t.is(
      (await create(direction.headers, person(coop, { branch: coop.b }))).body.member_number,
      'M1B-000001',
      'each branch counts from 1',
    );
    t.deepEqual(
      (await app.request('GET', `${path}${jeanne.body.id}/`, { headers: cashier.headers })).body,
      jeanne.body,
    );
    const [audit] = await audits(jeanne.body.id);
    t.like(audit, {
      action: 'client_profile.create',
      actor_id: cashier.id,
      enterprise_id: coop.id,
      details: { memberNumber: 'M1A-000001', branchId: coop.a },
    });
  },
);

test(
  'member numbers are gap-free: a refused registration ' + 'takes none, 10 concurrent ones in a branch get 1 to 10',
  async (t) => {
    const coop = await newCoop('M2');
    t.is(
      (await create(root, person(coop, { branch: coop.b, id_document_number: 'DUP1' }))).body.member_number,
      'M2B-000001',
    );
    const duplicate = await create(root, person(coop, { branch: coop.b, id_document_number: 'dup 1' }));
    t.is(duplicate.body.code, 'member_already_registered', 'refused by the insert, after the number was taken');
    t.is((await create(root, person(coop, { branch: coop.b }))).body.member_number, 'M2B-000002');

    const created = await Promise.all(Array.from({ length: 10 }, () => create(root, person(coop))));
    t.deepEqual(
      created.map((response) => response.status),
      Array(10).fill(201),
    );
    const expected = Array.from({ length: 10 }, (_, index) => `M2A-${String(index + 1).padStart(6, '0')}`);
    t.deepEqual(created.map((response) => response.body.member_number).sort(), expected);
  },
);

/** A member whose every field is wrong, each in its own way. */
const malformedMember = (coop: Coop) => ({
  enterprise: coop.id,
  branch: coop.a,
  kind: 'robot',
  first_name: 'x'.repeat(101),
  id_document_type: 'library_card',
  id_document_number: 'é',
  birth_date: '2001-02-30',
  gender: 'x',
  nationality: 'Cameroon',
  phone: '06-99',
  email: 'nope',
  risk_level: 'extreme',
  membership_date: '26/11/2026',
  politically_exposed: 'sometimes',
});

test('bad input is a 400 naming each field, whatever the layer that finds it; nothing is written', async (t) => {
  const coop = await newCoop('M3');
  const malformed = await create(root, malformedMember(coop));
  t.is(malformed.status, 400);
  t.deepEqual(fields(malformed), [
    'birth_date',
    'email',
    'first_name',
    'gender',
    'id_document_number',
    'id_document_type',
    'kind',
    'membership_date',
    'nationality',
    'phone',
    'politically_exposed',
    'risk_level',
  ]);
  t.deepEqual(fields(await create(root, { kind: 'natural_person' })), [
    'branch',
    'enterprise',
    'id_document_number',
    'id_document_type',
  ]);
  t.deepEqual(fields(await create(root, person(coop, { member_number: 'M3A-999999' }))), ['member_number']);
  const personAsCompany = person(coop, {
    last_name: '',
    birth_date: null,
    legal_name: 'Mballa SARL',
    id_document_type: 'business_register',
  });
  t.deepEqual(fields(await create(root, personAsCompany)), [
    'birth_date',
    'id_document_type',
    'last_name',
    'legal_name',
  ]);
  t.deepEqual(
    fields(await create(root, company(coop, { first_name: 'Paul', gender: 'male', id_document_type: 'passport' }))),
    ['first_name', 'gender', 'id_document_type'],
  );
  t.deepEqual(
    fields(await create(root, person(coop, { birth_date: '2010-11-23' }))),
    ['birth_date'],
    '16 only the day after joining',
  );
  t.deepEqual(
    fields(await create(root, person(coop, { membership_date: '2026-11-23' }))),
    ['membership_date'],
    'after the business date',
  );
  t.deepEqual(
    fields(await create(root, person(coop, { id_document_expiry: '2026-11-21' }))),
    ['id_document_expiry'],
    'expired',
  );
  t.is((await knex('client_profiles').where({ enterprise_id: coop.id })).length, 0);
  const boundary = await create(root, person(coop, { birth_date: '2010-11-22', id_document_expiry: '2026-11-22' }));
  t.is(boundary.status, 201, 'exactly 16 on the membership date, document valid through the business date');
  t.is(boundary.body.member_number, 'M3A-000001', 'the refusals took no number');
});

test('409s: one identity document is one member of an enterprise; closed branches take no member', async (t) => {
  const coop = await newCoop('M4');
  const other = await newCoop('O4');
  const first = await create(root, person(coop, { id_document_type: 'passport', id_document_number: 'P0012345' }));
  const again = await create(
    root,
    person(coop, { branch: coop.b, id_document_type: 'passport', id_document_number: 'p001 2345' }),
  );
  t.is(again.status, 409);
  t.is(again.body.code, 'member_already_registered');
  t.is(
    (await create(root, person(coop, { id_document_type: 'national_id', id_document_number: 'P0012345' }))).status,
    201,
    'another kind of document',
  );
  t.is(
    (await create(root, person(other, { id_document_type: 'passport', id_document_number: 'P0012345' }))).status,
    201,
    'another enterprise',
  );
  const second = await create(root, person(coop));
  t.is(
    (await patch(root, second.body.id, { id_document_type: 'passport', id_document_number: 'P0012345' })).body.code,
    'member_already_registered',
  );
  t.is((await create(root, person(coop, { branch: coop.closed }))).body.code, 'branch_closed');
  t.is((await create(root, person(coop, { branch: other.a }))).status, 404, "another enterprise's branch");
  t.is((await knex('client_profiles').where({ enterprise_id: coop.id })).length, 3);
  t.is(first.body.member_number, 'M4A-000001');
});

test(
  'updates: audited corrections, fixed identity of the ' + 'member, moves between branches of the enterprise',
  async (t) => {
    const coop = await newCoop('M5');
    const other = await newCoop('O5');
    const cashier = await user(at('cashier', coop.id, coop.a));
    const direction = await user(at('direction', coop.id));
    const member = (await create(cashier.headers, person(coop))).body;
    const corrected = await patch(cashier.headers, member.id, {
      phone: '+237 677 11 22 33',
      city: 'Douala',
      occupation: 'Commerçante',
    });
    t.like(corrected.body, {
      phone: '+237 677 11 22 33',
      city: 'Douala',
      occupation: 'Commerçante',
      member_number: 'M5A-000001',
    });
    t.like((await audits(member.id))[1], {
      action: 'client_profile.update',
      actor_id: cashier.id,
      details: { city: 'Douala' },
    });
    t.deepEqual((await patch(cashier.headers, member.id, {})).body, corrected.body);
    t.is((await audits(member.id)).length, 2, 'an empty PATCH writes nothing');

    t.deepEqual(
      fields(await patch(root, member.id, { kind: 'legal_entity', member_number: 'X-1', enterprise: other.id })),
      ['enterprise', 'kind', 'member_number'],
    );
    t.deepEqual(fields(await patch(root, member.id, { legal_name: 'Mballa SARL', birth_date: null })), [
      'birth_date',
      'legal_name',
    ]);
    t.deepEqual(
      fields(await patch(root, member.id, { birth_date: '2012-01-01' })),
      ['birth_date'],
      'still 16 when joining',
    );

    t.is(
      (await patch(cashier.headers, member.id, { branch: coop.b })).status,
      404,
      'a cashier of A cannot see branch B',
    );
    t.is((await patch(direction.headers, member.id, { branch: coop.closed })).body.code, 'branch_closed');
    t.is((await patch(root, member.id, { branch: other.a })).status, 404, "another enterprise's branch");
    const moved = await patch(direction.headers, member.id, { branch: coop.b });
    t.like(moved.body, { branch: coop.b, member_number: 'M5A-000001', enterprise: coop.id });
    t.like((await audits(member.id)).at(-1), {
      action: 'client_profile.update',
      details: { branchId: coop.b, previousBranchId: coop.a },
    });
    t.is(
      (await app.request('GET', `${path}${member.id}/`, { headers: cashier.headers })).status,
      404,
      'gone from the cashier of A',
    );
  },
);

test('status: suspend with a reason, reactivate, leave for good; any other transition is a 409', async (t) => {
  const coop = await newCoop('M6');
  const cashier = await user(at('cashier', coop.id, coop.a));
  const head = await user(at('branch_head', coop.id, coop.a));
  const member = (await create(cashier.headers, person(coop))).body;
  t.is((await act(cashier.headers, member.id, 'suspend', { reason: 'Unpaid dues' })).status, 403);
  t.deepEqual(fields(await act(head.headers, member.id, 'suspend')), ['reason']);
  t.like((await act(head.headers, member.id, 'suspend', { reason: 'Unpaid dues' })).body, {
    status: 'suspended',
    status_reason: 'Unpaid dues',
  });
  t.is((await act(head.headers, member.id, 'suspend', { reason: 'Again' })).body.code, 'invalid_status_transition');
  t.like((await act(head.headers, member.id, 'reactivate')).body, { status: 'active', status_reason: '' });
  t.is((await act(head.headers, member.id, 'reactivate')).body.code, 'invalid_status_transition');
  t.deepEqual(fields(await act(head.headers, member.id, 'leave')), ['reason']);
  t.like((await act(head.headers, member.id, 'leave', { reason: 'Moved abroad' })).body, {
    status: 'left',
    status_reason: 'Moved abroad',
  });
  for (const [action, json] of [
    ['reactivate', {}],
    ['suspend', { reason: 'Late' }],
    ['leave', { reason: 'Twice' }],
  ] as const) {
    const refused = await act(head.headers, member.id, action, json);
    t.is(refused.status, 409, action);
    t.is(refused.body.code, 'invalid_status_transition', action);
  }
  const suspended = (await create(cashier.headers, person(coop))).body;
  await act(head.headers, suspended.id, 'suspend', { reason: 'Fraud inquiry' });
  t.is(
    (await act(head.headers, suspended.id, 'leave', { reason: 'Excluded by the board' })).body.status,
    'left',
    'a suspended member may leave',
  );
  const trail = await audits(member.id);
  t.deepEqual(
    trail.map((row) => row.action),
    ['client_profile.create', 'client_profile.suspend', 'client_profile.reactivate', 'client_profile.leave'],
  );
  t.like(trail[1], { actor_id: head.id, details: { from: 'active', to: 'suspended', reason: 'Unpaid dues' } });
});

test('access by role and branch: staff of another branch or enterprise get 404, in lists and details', async (t) => {
  const coop = await newCoop('M7');
  const foreign = await newCoop('F7');
  const [cashierA, cashierB, committee, foreignDirection] = await Promise.all([
    user(at('cashier', coop.id, coop.a)),
    user(at('cashier', coop.id, coop.b)),
    user(at('credit_committee', coop.id)),
    user(at('direction', foreign.id)),
  ]);
  const inA = (await create(cashierA.headers, person(coop))).body.id as string;
  const inB = (await create(cashierB.headers, person(coop, { branch: coop.b }))).body.id as string;
  const list = (headers: Record<string, string>, query = '') => app.request('GET', `${path}${query}`, { headers });
  t.deepEqual(ids(await list(cashierA.headers)), [inA]);
  t.deepEqual(ids(await list(cashierA.headers, `?branch=${coop.b}`)), []);
  t.deepEqual(ids(await list(cashierB.headers)), [inB]);
  t.deepEqual(ids(await list(committee.headers)), [inA, inB].sort());
  t.deepEqual(ids(await list(foreignDirection.headers)), []);
  t.is((await list({})).status, 401);

  const detail = (headers: Record<string, string>, id: string) => app.request('GET', `${path}${id}/`, { headers });
  t.is((await detail(cashierA.headers, inB)).status, 404);
  t.is((await patch(cashierA.headers, inB, { city: 'Kribi' })).status, 404);
  t.is(
    (await create(cashierA.headers, person(coop, { branch: coop.b }))).status,
    404,
    'cannot register in another branch',
  );
  t.is((await detail(committee.headers, inB)).status, 200, 'enterprise-wide roles read every branch');
  t.is((await create(committee.headers, person(coop))).status, 403, 'the credit committee registers no one');
  t.is((await patch(committee.headers, inA, { city: 'Kribi' })).status, 403);
  t.is((await detail(foreignDirection.headers, inA)).status, 404);
  t.is((await create(foreignDirection.headers, person(coop))).status, 404);
  const headA = await user(at('branch_head', coop.id, coop.a));
  t.is((await act(headA.headers, inB, 'suspend', { reason: 'Unpaid dues' })).status, 404);
  t.is((await act(headA.headers, inA, 'suspend', { reason: 'Unpaid dues' })).status, 200);
});

test('lists filter by enterprise, branch, status, kind and search, and sort by the declared fields', async (t) => {
  const coop = await newCoop('M8');
  const zang = (await create(root, person(coop, { first_name: 'Abena', last_name: 'Zang' }))).body;
  const atangana = (
    await create(root, person(coop, { first_name: 'Bella', last_name: 'Atangana', membership_date: '2020-01-15' }))
  ).body;
  const gic = (await create(root, company(coop, { legal_name: 'Coopérative des Planteurs', branch: coop.b }))).body;
  await act(root, zang.id, 'suspend', { reason: 'Unpaid dues' });
  const names = async (query: string) =>
    (await app.request('GET', `${path}?enterprise=${coop.id}&${query}`, { headers: root })).body.results.map(
      (row: { id: string }) => row.id,
    );
  t.deepEqual(await names('search=ATANG'), [atangana.id]);
  t.deepEqual(await names('search=planteur'), [gic.id]);
  t.deepEqual(await names('search=M8A-000001'), [zang.id]);
  t.deepEqual(await names('kind=legal_entity'), [gic.id]);
  t.deepEqual(await names('status=suspended'), [zang.id]);
  t.deepEqual(await names(`branch=${coop.b}`), [gic.id]);
  t.deepEqual(
    await names('ordering=-member_number'),
    [gic.id, atangana.id, zang.id],
    'M8B-000001, M8A-000002, M8A-000001',
  );
  t.deepEqual(await names('ordering=last_name'), [gic.id, atangana.id, zang.id]);
  t.deepEqual(await names('ordering=membership_date,member_number'), [atangana.id, zang.id, gic.id]);
  t.deepEqual(fields(await app.request('GET', `${path}?ordering=birth_date&status=gone`, { headers: root })), [
    'ordering',
    'status',
  ]);
  t.is((await app.request('GET', `${path}?enterprise=${coop.id}`, { headers: root })).body.count, 3);
});
