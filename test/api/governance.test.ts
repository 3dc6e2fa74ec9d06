import test, { type ExecutionContext } from 'ava';
import { authRoutes } from '../../api/modules/auth/auth.routes';
import { governanceRoutes } from '../../api/modules/enterprise/governance.routes';
import type { Knex } from '../../db/knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { insertEnterprise } from '../helpers/mothers';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
/** coop: the main enterprise; other: where the outsider is direction; one per access-matrix variant. */
const enterprises = { coop: '', other: '', matrixFlat: '', matrixNested: '' };
const sessions: Record<string, Record<string, string>> = {};
const flat = '/api/v1/enterprise/';
const nested = (enterprise: string) => `/api/v1/enterprise/enterprises/${enterprise}/`;

async function insertOrgan(enterprise: string, kind: string, name: string): Promise<string> {
  const [row] = await knex('governance_organs').insert({ enterprise_id: enterprise, kind, name }).returning('id');
  return row.id as string;
}

async function insertMember(organ: string, office: string, fullName: string): Promise<string> {
  const [row] = await knex('governance_members')
    .insert({
      enterprise_id: knex('governance_organs').where({ id: organ }).select('enterprise_id'),
      organ_id: organ,
      office,
      full_name: fullName,
      term_start: '2025-06-01',
    })
    .returning('id');
  return row.id as string;
}

/** A request as `who` (a key of `sessions`), or anonymous (null). */
function call(who: string | null, method: string, path: string, json?: unknown) {
  return app.request(method, path, { json, headers: who === null ? {} : sessions[who] });
}

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, routes: [...authRoutes, ...governanceRoutes] });
  enterprises.coop = await insertEnterprise(knex, 'COOP');
  enterprises.other = await insertEnterprise(knex, 'OTHER');
  enterprises.matrixFlat = await insertEnterprise(knex, 'FLAT');
  enterprises.matrixNested = await insertEnterprise(knex, 'NESTED');
  const inOurs = (role: 'cashier' | 'direction' | 'admin') =>
    [enterprises.coop, enterprises.matrixFlat, enterprises.matrixNested].map((enterpriseId) => ({
      role,
      enterpriseId,
      branchId: null,
    }));
  const users = {
    cashier: inOurs('cashier'),
    direction: inOurs('direction'),
    admin: inOurs('admin'),
    outsider: [{ role: 'direction' as const, enterpriseId: enterprises.other, branchId: null }],
    // Passes the router's role check (direction somewhere), so only the handler's check at the enterprise stops it.
    mixed: [...inOurs('cashier'), { role: 'direction' as const, enterpriseId: enterprises.other, branchId: null }],
    roleless: [],
    platform: [{ role: 'admin' as const, enterpriseId: null, branchId: null }],
  };
  for (const [name, grants] of Object.entries(users)) {
    await createUser(knex, `gov.${name}`, grants);
    sessions[name] = await bearer(app, `gov.${name}`);
  }
});

test.serial(
  'direction sets up an organ and appoints members; detail and list show the serving ones, chair first',
  async (t) => {
    const created = await call('direction', 'POST', `${flat}governance/`, {
      enterprise: enterprises.coop,
      kind: 'board_of_directors',
      name: "  Conseil d'administration ",
      description: 'Élu par l’assemblée générale',
    });
    t.is(created.status, 201);
    t.like(created.body, {
      enterprise: enterprises.coop,
      kind: 'board_of_directors',
      name: "Conseil d'administration",
      current_members: [],
    });
    const organ = created.body.id;
    const audit = await knex('audit_events').where({ entity_id: organ }).first();
    t.like(audit, { action: 'governance_organ.create', enterprise_id: enterprises.coop });

    // Appointed in an order that is neither precedence nor alphabetical, so the detail's order is the API's doing.
    const appoint = (json: unknown) => call('direction', 'POST', `${flat}governance/${organ}/members/`, json);
    const member = await appoint({ full_name: 'Alain Mbida', office: 'member', term_start: '2026-01-10' });
    t.is(member.status, 201);
    t.like(member.body, {
      organ,
      full_name: 'Alain Mbida',
      office: 'member',
      member_number: '',
      term_start: '2026-01-10',
      term_end: null,
      ended_reason: null,
    });
    t.is(
      (await appoint({ full_name: 'Zoé Ngo', office: 'chair', member_number: 'M-0001', term_start: '2026-01-10' }))
        .status,
      201,
    );
    t.is((await appoint({ full_name: 'Béa Onana', office: 'secretary', term_start: '2026-01-10' })).status, 201);
    t.like(await knex('audit_events').where({ entity_id: member.body.id }).first(), {
      action: 'governance_member.appoint',
      enterprise_id: enterprises.coop,
    });

    const detail = await call('cashier', 'GET', `${flat}governance/${organ}/`);
    t.is(detail.status, 200);
    t.deepEqual(
      detail.body.current_members.map((m: { full_name: string }) => m.full_name),
      ['Zoé Ngo', 'Béa Onana', 'Alain Mbida'],
    );
    t.is(detail.body.current_members[0].member_number, 'M-0001');

    const list = await call('cashier', 'GET', `${flat}governance/?enterprise=${enterprises.coop}`);
    t.is(list.status, 200);
    t.is(list.body.count, 1);
    t.is(list.body.results[0].id, organ);
    t.is(list.body.results[0].current_members.length, 3);
    const otherKind = await call(
      'cashier',
      'GET',
      `${flat}governance/?enterprise=${enterprises.coop}&kind=credit_committee`,
    );
    t.is(otherKind.body.count, 0);
  },
);

test.serial('mandates are corrected and ended; the member list filters serving and past ones', async (t) => {
  const organ = await insertOrgan(enterprises.coop, 'supervisory_board', 'Conseil de surveillance');
  const first = await insertMember(organ, 'member', 'Paul Essomba');
  const second = await insertMember(organ, 'member', 'Rose Abena');

  const corrected = await call('admin', 'PATCH', `${flat}governance/members/${first}/`, {
    full_name: 'Paul Essomba Jr',
    office: 'vice_chair',
    member_number: 'M-42',
  });
  t.is(corrected.status, 200);
  t.like(corrected.body, {
    full_name: 'Paul Essomba Jr',
    office: 'vice_chair',
    member_number: 'M-42',
    term_start: '2025-06-01',
  });

  const ended = await call('admin', 'POST', `${flat}governance/members/${second}/end-term/`, {
    term_end: '2026-06-30',
    reason: 'Resigned',
  });
  t.is(ended.status, 200);
  t.like(ended.body, { term_end: '2026-06-30', ended_reason: 'Resigned' });
  t.like(await knex('audit_events').where({ entity_id: second }).first(), {
    action: 'governance_member.end_term',
    enterprise_id: enterprises.coop,
  });

  const members = (current?: boolean) =>
    call('cashier', 'GET', `${flat}governance/${organ}/members/${current === undefined ? '' : `?current=${current}`}`);
  const ids = (response: { body: { results: { id: string }[] } }) =>
    response.body.results.map((member) => member.id).sort();
  t.deepEqual(ids(await members()), [first, second].sort());
  t.deepEqual(ids(await members(true)), [first]);
  t.deepEqual(ids(await members(false)), [second]);
  const detail = await call('cashier', 'GET', `${flat}governance/${organ}/`);
  t.deepEqual(
    detail.body.current_members.map((m: { id: string }) => m.id),
    [first],
  );

  const renamed = await call('direction', 'PATCH', `${flat}governance/${organ}/`, {
    name: 'Comité de surveillance',
    description: 'Contrôle la gestion',
  });
  t.is(renamed.status, 200);
  t.like(renamed.body, {
    name: 'Comité de surveillance',
    description: 'Contrôle la gestion',
    kind: 'supervisory_board',
  });
  t.is(renamed.body.current_members.length, 1);
  t.is(
    (await call('direction', 'PATCH', `${flat}governance/${organ}/`, {})).body.name,
    'Comité de surveillance',
    'an empty change changes nothing',
  );
  t.is((await call('direction', 'PATCH', `${flat}governance/members/${first}/`, {})).body.full_name, 'Paul Essomba Jr');
});

test.serial(
  'conflicts: one organ per kind, one serving chair, a term ends once and not before it starts',
  async (t) => {
    const twice = await call('direction', 'POST', `${flat}governance/`, {
      enterprise: enterprises.coop,
      kind: 'board_of_directors',
      name: 'Second board',
    });
    t.is(twice.status, 409);
    t.is(twice.body.code, 'organ_kind_taken');

    const organ = await insertOrgan(enterprises.coop, 'credit_committee', 'Comité de crédit');
    const appoint = (json: unknown) => call('direction', 'POST', `${flat}governance/${organ}/members/`, json);
    const chair = await appoint({ full_name: 'Jean Fouda', office: 'chair', term_start: '2026-01-01' });
    t.is(chair.status, 201);
    const rival = await appoint({ full_name: 'Marie Atangana', office: 'chair', term_start: '2026-02-01' });
    t.is(rival.status, 409);
    t.is(rival.body.code, 'chair_already_serving');
    const member = await appoint({ full_name: 'Marie Atangana', office: 'member', term_start: '2026-02-01' });
    const promoted = await call('direction', 'PATCH', `${flat}governance/members/${member.body.id}/`, {
      office: 'chair',
    });
    t.is(promoted.status, 409);
    t.is(promoted.body.code, 'chair_already_serving');

    const endTerm = (id: string, termEnd: string) =>
      call('direction', 'POST', `${flat}governance/members/${id}/end-term/`, {
        term_end: termEnd,
        reason: 'Mandate expired',
      });
    const early = await endTerm(chair.body.id, '2025-12-31');
    t.is(early.status, 409);
    t.is(early.body.code, 'term_end_before_start');
    t.is((await endTerm(chair.body.id, '2026-01-01')).status, 200, 'a one-day term is a term');
    const again = await endTerm(chair.body.id, '2026-03-01');
    t.is(again.status, 409);
    t.is(again.body.code, 'term_already_ended');
    t.is(
      (await knex('governance_members').where({ id: chair.body.id }).first()).term_end,
      '2026-01-01',
      'the first end stands',
    );

    const restarted = await call('direction', 'PATCH', `${flat}governance/members/${chair.body.id}/`, {
      term_start: '2026-01-02',
    });
    t.is(restarted.status, 409, 'an ended term cannot be made to start after its end');
    t.is(restarted.body.code, 'term_end_before_start');
    t.is(
      (await appoint({ full_name: 'Marie Atangana', office: 'chair', term_start: '2026-01-02' })).status,
      201,
      'the chair is free once the term ended',
    );
  },
);

/** The fields of a 400, each named once, in order. */
const fieldsOf = (response: { body: { errors: { field: string }[] } }) =>
  [...new Set(response.body.errors.map((error) => error.field))].sort();

/** A bad end of term changes nothing; bad list filters and a bad id are refused by name. */
async function assertEndTermAndQueriesRefused(t: ExecutionContext, target: string) {
  const seated = await insertMember(target, 'member', 'Awa Bello');
  const end = await call('direction', 'POST', `${flat}governance/members/${seated}/end-term/`, {
    term_end: '2026-13-01',
    reason: '',
  });
  t.deepEqual(fieldsOf(end), ['reason', 'term_end']);
  t.is((await knex('governance_members').where({ id: seated }).first()).term_end, null);

  const list = await call('cashier', 'GET', `${flat}governance/?kind=council&enterprise=nope&page_size=101`);
  t.deepEqual(fieldsOf(list), ['enterprise', 'kind', 'page_size']);
  const current = await call('cashier', 'GET', `${flat}governance/${target}/members/?current=sometimes`);
  t.deepEqual(fieldsOf(current), ['current']);
  const badId = await call('cashier', 'GET', `${flat}governance/123/`);
  t.deepEqual(fieldsOf(badId), ['id']);
}

test.serial('invalid fields are refused with 400 naming each of them, and nothing is written', async (t) => {
  const before = await knex('governance_organs').count('* as count');

  const organ = await call('direction', 'POST', `${flat}governance/`, {
    enterprise: 'not-a-uuid',
    kind: 'council',
    name: 'x'.repeat(201),
    description: 'd'.repeat(1001),
  });
  t.is(organ.status, 400);
  t.deepEqual(fieldsOf(organ), ['description', 'enterprise', 'kind', 'name']);
  const unknown = await call('direction', 'POST', `${flat}governance/`, {
    enterprise: enterprises.coop,
    kind: 'general_assembly',
    name: 'AG',
    quorum: 50,
  });
  t.is(unknown.status, 400);
  t.deepEqual(unknown.body.errors, [{ field: 'quorum', message: 'quorum is not a known field' }]);
  const target = (
    await knex('governance_organs').where({ enterprise_id: enterprises.coop, kind: 'board_of_directors' }).first()
  ).id;
  const kindChange = await call('direction', 'PATCH', `${flat}governance/${target}/`, { kind: 'credit_committee' });
  t.is(kindChange.status, 400);
  t.deepEqual(fieldsOf(kindChange), ['kind']);
  t.deepEqual(await knex('governance_organs').count('* as count'), before);
  t.is((await knex('governance_organs').where({ id: target }).first()).kind, 'board_of_directors');
  const membersBefore = (await knex('governance_members').where({ organ_id: target })).length;

  const member = await call('direction', 'POST', `${flat}governance/${target}/members/`, {
    full_name: 'A',
    office: 'president',
    member_number: 'n'.repeat(31),
    term_start: '2026-02-30',
  });
  t.is(member.status, 400);
  t.deepEqual(fieldsOf(member), ['full_name', 'member_number', 'office', 'term_start']);
  t.deepEqual(
    member.body.errors.find((error: { field: string }) => error.field === 'term_start'),
    { field: 'term_start', message: 'term_start is not a real date' },
  );
  const format = await call('direction', 'POST', `${flat}governance/${target}/members/`, {
    full_name: 'Awa Bello',
    office: 'member',
    term_start: '1/2/2026',
  });
  t.deepEqual(fieldsOf(format), ['term_start']);
  t.true(
    format.body.errors.some(
      (error: { message: string }) => error.message === 'term_start must be a date as YYYY-MM-DD',
    ),
  );
  const missing = await call('direction', 'POST', `${flat}governance/${target}/members/`, {});
  t.deepEqual(fieldsOf(missing), ['full_name', 'office', 'term_start']);
  t.is((await knex('governance_members').where({ organ_id: target })).length, membersBefore);
  await assertEndTermAndQueriesRefused(t, target);
});

test.serial('nested paths answer as the flat ones; another enterprise in the path is a 404', async (t) => {
  const base = nested(enterprises.coop);
  const wrong = nested(enterprises.other);
  // The path names the enterprise: a body `enterprise` is ignored, not obeyed.
  const created = await call('direction', 'POST', `${base}governance/`, {
    enterprise: enterprises.other,
    kind: 'general_assembly',
    name: 'Assemblée générale',
  });
  t.is(created.status, 201);
  t.is(created.body.enterprise, enterprises.coop);
  const organ = created.body.id;

  const nestedList = await call('cashier', 'GET', `${base}governance/`);
  const flatList = await call('cashier', 'GET', `${flat}governance/?enterprise=${enterprises.coop}`);
  t.is(nestedList.status, 200);
  t.deepEqual(nestedList.body.results, flatList.body.results);
  t.is(nestedList.body.count, 4, 'the four organs of coop, whatever the outsider set up elsewhere');
  t.deepEqual(
    (await call('cashier', 'GET', `${base}governance/${organ}/`)).body,
    (await call('cashier', 'GET', `${flat}governance/${organ}/`)).body,
  );

  const appointed = await call('admin', 'POST', `${base}governance/${organ}/members/`, {
    full_name: 'Samuel Eto',
    office: 'chair',
    term_start: '2026-03-01',
  });
  t.is(appointed.status, 201);
  const member = appointed.body.id;
  t.is(
    (await call('admin', 'PATCH', `${base}governance/members/${member}/`, { member_number: 'M-7' })).body.member_number,
    'M-7',
  );
  t.deepEqual(
    (await call('cashier', 'GET', `${base}governance/${organ}/members/`)).body.results.map((m: { id: string }) => m.id),
    [member],
  );

  // The platform administrator sees every enterprise, so only the mismatch can explain these 404s.
  for (const [method, path, json] of [
    ['GET', `${wrong}governance/${organ}/`],
    ['GET', `${flat}governance/${organ}/?enterprise=${enterprises.other}`],
    ['PATCH', `${wrong}governance/${organ}/`, { name: 'Hijacked' }],
    ['GET', `${wrong}governance/${organ}/members/`],
    [
      'POST',
      `${wrong}governance/${organ}/members/`,
      { full_name: 'Intrus', office: 'member', term_start: '2026-03-01' },
    ],
    ['PATCH', `${wrong}governance/members/${member}/`, { full_name: 'Intrus' }],
    ['PATCH', `${flat}governance/members/${member}/?enterprise=${enterprises.other}`, { full_name: 'Intrus' }],
    ['POST', `${wrong}governance/members/${member}/end-term/`, { term_end: '2026-04-01', reason: 'Removed' }],
  ] as const) {
    t.is((await call('platform', method, path, json)).status, 404, `${method} ${path}`);
  }
  t.is((await knex('governance_organs').where({ id: organ }).first()).name, 'Assemblée générale');
  t.like(await knex('governance_members').where({ id: member }).first(), { full_name: 'Samuel Eto', term_end: null });
  t.is((await knex('governance_members').where({ organ_id: organ })).length, 1);
  await insertOrgan(enterprises.other, 'general_assembly', 'Assemblée générale');
  const unseen = await call('cashier', 'GET', `${wrong}governance/`);
  t.is(unseen.status, 404, 'a nested list of an enterprise one cannot see is not disclosed');
  t.is(
    (await call('platform', 'GET', `${nested('7d0f3c2a-1b4e-4c5d-8e9f-0a1b2c3d4e5f')}governance/`)).status,
    404,
    'nor one of an enterprise that does not exist, even for a platform administrator',
  );
});

test.serial('a platform administrator sees every enterprise; an unknown enterprise is a 404', async (t) => {
  const list = await call('platform', 'GET', `${flat}governance/?page_size=100`);
  t.deepEqual(
    new Set(list.body.results.map((organ: { enterprise: string }) => organ.enterprise)),
    new Set([enterprises.coop, enterprises.other]),
  );
  const unknown = await call('platform', 'POST', `${flat}governance/`, {
    enterprise: '00000000-0000-4000-8000-000000000000',
    kind: 'general_assembly',
    name: 'AG',
  });
  t.is(unknown.status, 404);
});

interface Call {
  method: string;
  path: string;
  json?: unknown;
}

const send = (who: string | null, request: Call) => call(who, request.method, request.path, request.json);

/** Every governance route, aimed at `organ` and `member`; `create` makes an organ of `kind`. */
function matrixCalls(
  base: string,
  enterprise: string,
  target: { organ: string; member: string; kind: string },
): Record<string, Call> {
  return {
    list: { method: 'GET', path: `${base}governance/` },
    detail: { method: 'GET', path: `${base}governance/${target.organ}/` },
    members: { method: 'GET', path: `${base}governance/${target.organ}/members/` },
    create: { method: 'POST', path: `${base}governance/`, json: { enterprise, kind: target.kind, name: 'Organe' } },
    update: { method: 'PATCH', path: `${base}governance/${target.organ}/`, json: { name: 'Renamed' } },
    appoint: {
      method: 'POST',
      path: `${base}governance/${target.organ}/members/`,
      json: { full_name: 'New Member', office: 'member', term_start: '2026-01-01' },
    },
    updateMember: {
      method: 'PATCH',
      path: `${base}governance/members/${target.member}/`,
      json: { full_name: 'Renamed Member' },
    },
    endTerm: {
      method: 'POST',
      path: `${base}governance/members/${target.member}/end-term/`,
      json: { term_end: '2026-12-31', reason: 'Mandate expired' },
    },
  };
}

for (const variant of ['flat', 'nested'] as const) {
  test.serial(`access matrix (${variant}): who may read and write`, async (t) => {
    const enterprise = variant === 'flat' ? enterprises.matrixFlat : enterprises.matrixNested;
    const base = variant === 'flat' ? flat : nested(enterprise);
    const organ = await insertOrgan(enterprise, 'general_assembly', 'Seeded Organ');
    const member = await insertMember(organ, 'member', 'Seeded Member');
    const denied = matrixCalls(base, enterprise, { organ, member, kind: 'credit_committee' });
    const expect = async (who: string | null, name: string, status: number) => {
      t.is((await send(who, denied[name]!)).status, status, `${who ?? 'anonymous'} ${name}`);
    };
    const writes = ['create', 'update', 'appoint', 'updateMember', 'endTerm'];

    for (const name of Object.keys(denied)) await expect(null, name, 401);
    // Holds neither role anywhere: the router refuses.
    for (const name of writes) await expect('roleless', name, 403);
    for (const name of writes) await expect('cashier', name, 403);
    for (const name of writes) await expect('mixed', name, 403);
    // Direction elsewhere: this enterprise is not disclosed.
    for (const name of writes) await expect('outsider', name, 404);
    for (const name of ['detail', 'members']) {
      await expect('roleless', name, 404);
      await expect('outsider', name, 404);
      await expect('cashier', name, 200);
      await expect('mixed', name, 200);
    }
    const listed = async (who: string) =>
      (await send(who, denied.list!)).body.results.map((row: { id: string }) => row.id);
    t.true((await listed('cashier')).includes(organ));
    if (variant === 'flat') {
      t.deepEqual(await listed('roleless'), []);
      t.false((await listed('outsider')).includes(organ));
    } else {
      // The path names an enterprise the caller cannot see: not disclosed, as its resources are not.
      await expect('roleless', 'list', 404);
      await expect('outsider', 'list', 404);
    }
    t.like(await knex('governance_organs').where({ id: organ }).first(), { name: 'Seeded Organ' });
    t.like(await knex('governance_members').where({ id: member }).first(), {
      full_name: 'Seeded Member',
      term_end: null,
    });
    t.is((await knex('governance_members').where({ organ_id: organ })).length, 1);
    t.is((await knex('governance_organs').where({ enterprise_id: enterprise })).length, 1);

    for (const [writer, kind] of [
      ['direction', 'credit_committee'],
      ['admin', 'board_of_directors'],
    ] as const) {
      const created = await send(writer, matrixCalls(base, enterprise, { organ: '', member: '', kind }).create!);
      t.is(created.status, 201, `${writer} create`);
      const own = matrixCalls(base, enterprise, { organ: created.body.id, member: '', kind });
      t.is((await send(writer, own.update!)).status, 200, `${writer} update`);
      const appointed = await send(writer, own.appoint!);
      t.is(appointed.status, 201, `${writer} appoint`);
      const mandate = matrixCalls(base, enterprise, { organ: created.body.id, member: appointed.body.id, kind });
      t.is((await send(writer, mandate.updateMember!)).status, 200, `${writer} update member`);
      t.is((await send(writer, mandate.endTerm!)).status, 200, `${writer} end term`);
    }
  });
}
