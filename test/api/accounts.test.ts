import fs from 'node:fs';
import test, { type ExecutionContext } from 'ava';
import knexFactory from 'knex';
import { apiRoutes } from '../../api/routes';
import { accountRoutes } from '../../api/modules/accounts/account-plans.routes';
import { pcemfChartRecords, pcemfCsvPath } from '../../db/fixtures/pcemf';
import type { Knex } from '../../db/knex';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/app';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';

const file = fileTeardown(test);
// The product's routes may include these already (once wired in api/routes.ts): add each route once.
const routes = [...apiRoutes, ...accountRoutes.filter((route) => !apiRoutes.includes(route))];
// The plan and every chart hold classes 1 to 9 (class 9 since issue 28's off-balance part).
const records = pcemfChartRecords(fs.readFileSync(pcemfCsvPath, 'utf8'));
let app: TestApp;
let knex: Knex;
let url: string;
let root: Record<string, string>;
let pcemf: string;

test.before(async () => {
  ({ knex, url } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, routes });
  await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  root = await bearer(app, 'root');
  pcemf = (await knex('account_plans').where({ code: 'PCEMF-2010' }).first('id')).id;
});

/** An enterprise made as the product makes it (through the API), with the path of its chart's accounts. */
async function newEnterprise(code: string): Promise<{ id: string; chart: string; entries: string }> {
  const created = await app.request('POST', '/api/v1/enterprise/enterprises/', {
    headers: root,
    json: { code, name: `Coop ${code}`, legal_form: 'Coopérative', country: 'CM' },
  });
  if (created.status !== 201) throw new Error(created.text);
  const charts = await app.request('GET', `/api/v1/accounts/charts/?enterprise=${created.body.id}`, { headers: root });
  const chart = charts.body.results[0].id as string;
  return { id: created.body.id, chart, entries: `/api/v1/accounts/charts/${chart}/entries/` };
}

const get = (path: string, headers = root) => app.request('GET', path, { headers });
const codesOf = (response: { body: { results: { code: string }[] } }) => response.body.results.map((row) => row.code);
const entryId = async (chart: string, code: string) =>
  (await knex('company_chart_entries').where({ chart_id: chart, code }).first('id')).id as string;

test('a new enterprise gets the whole PCEMF as its chart: 1,492 accounts, as in the plan, all active', async (t) => {
  const enterprise = await newEnterprise('CH1');
  const list = await get(enterprise.entries);
  t.is(list.body.count, 1492);
  const rows = await knex('company_chart_entries').where({ chart_id: enterprise.chart }).orderBy('code');
  const copy = rows.map((row) => [row.code, row.label, row.class, row.parent_code, row.is_system]);
  const plan = [...records]
    .sort((a, b) => (a.code < b.code ? -1 : 1))
    .map((record) => [record.code, record.label, record.class, record.parentCode, record.isSystem]);
  t.deepEqual(copy, plan);
  t.true(rows.every((row) => row.is_active && row.record_id !== null && row.enterprise_id === enterprise.id));
  t.like((await get(`${enterprise.entries}${await entryId(enterprise.chart, '5710')}/`)).body, {
    code: '5710',
    label: 'Caisse FCFA',
    class: 5,
    is_system: false,
    is_leaf: true,
    parent_code: '571',
  });
});

test('plans: listed to any signed-in user; created empty by platform administrators only, codes unique', async (t) => {
  const enterprise = await newEnterprise('PL1');
  await createUser(knex, 'pl-admin', [{ role: 'admin', enterpriseId: enterprise.id, branchId: null }]);
  await createUser(knex, 'pl-cashier', [{ role: 'cashier', enterpriseId: enterprise.id, branchId: null }]);
  const enterpriseAdmin = await bearer(app, 'pl-admin');
  const cashier = await bearer(app, 'pl-cashier');
  const body = { code: 'CUSTOM-1', name: 'Plan maison', description: 'Essai' };
  t.is((await app.request('POST', '/api/v1/accounts/plans/', { json: body })).status, 401);
  t.is((await app.request('POST', '/api/v1/accounts/plans/', { headers: cashier, json: body })).status, 403);
  const byEnterpriseAdmin = await app.request('POST', '/api/v1/accounts/plans/', {
    headers: enterpriseAdmin,
    json: body,
  });
  t.is(byEnterpriseAdmin.status, 403, 'plans are shared: an enterprise administrator may not add one');
  const created = await app.request('POST', '/api/v1/accounts/plans/', { headers: root, json: body });
  t.is(created.status, 201);
  t.like(created.body, body);
  t.is(
    (await app.request('POST', '/api/v1/accounts/plans/', { headers: root, json: body })).body.code,
    'plan_code_taken',
  );
  const invalid = await app.request('POST', '/api/v1/accounts/plans/', {
    headers: root,
    json: { code: 'a b', name: 'x' },
  });
  t.deepEqual(invalid.body.errors.map((error: { field: string }) => error.field).sort(), ['code', 'name']);
  const plans = await get('/api/v1/accounts/plans/?ordering=-code', cashier);
  t.deepEqual(codesOf(plans), ['PCEMF-2010', 'CUSTOM-1']);
  t.is((await get(`/api/v1/accounts/records/?plan=${created.body.id}`)).body.count, 0, 'a custom plan starts empty');
  t.is((await get(`/api/v1/accounts/records/tree/?plan=${created.body.id}&class=1`)).status, 404);
  t.is((await get('/api/v1/accounts/plans/', {})).status, 401);
});

test('records: filters by plan, class, parent, code prefix and text; pages through all 1,492', async (t) => {
  const base = `/api/v1/accounts/records/?plan=${pcemf}`;
  t.is((await get(base)).body.count, 1492);
  t.deepEqual(codesOf(await get(`${base}&class=8`)), ['8', '80', '81', '82', '83', '84', '85', '86', '87']);
  const underCash = records
    .filter((record) => record.parentCode === '57')
    .map((record) => record.code)
    .sort();
  t.deepEqual(codesOf(await get(`${base}&parent=57`)), underCash);
  t.true(underCash.length > 1);
  const prefixed = await get(`${base}&code_prefix=571&page_size=100`);
  t.deepEqual(
    codesOf(prefixed),
    records
      .filter((record) => record.code.startsWith('571'))
      .map((record) => record.code)
      .sort(),
  );
  const found = await get(`${base}&search=caisse fcfa`);
  t.true(codesOf(found).includes('5710'));
  t.true(found.body.results.every((row: { label: string }) => /caisse fcfa/i.test(row.label)));
  t.deepEqual(codesOf(await get(`${base}&search=5710`)), ['5710']);
  const last = await get(`${base}&page_size=100&page=15&ordering=-code`);
  t.is(last.body.results.length, 92);
  t.is(last.body.next, null);
  t.truthy(last.body.previous);
  t.is((await get(`${base}&page_size=100&page=16`)).body.code, 'page_not_found');
  t.is(
    (await get(`${base}&class=9`)).body.count,
    137,
    'class 9 (off-balance): its root and the 136 accounts of the file',
  );
  t.is((await get(`${base}&class=10`)).status, 400);
  t.is((await get(`${base}&code_prefix=57a`)).status, 400);
  t.is((await get('/api/v1/accounts/records/', {})).status, 401);
});

test('records: one class as a tree from its root', async (t) => {
  const tree = await get(`/api/v1/accounts/records/tree/?plan=${pcemf}&class=5`);
  t.is(tree.status, 200);
  t.like(tree.body, { code: '5', label: 'Trésorerie et opérations interbancaires', is_system: false });
  t.deepEqual(
    tree.body.children.map((node: { code: string }) => node.code),
    records
      .filter((record) => record.parentCode === '5')
      .map((record) => record.code)
      .sort(),
  );
  type Node = { code: string; children: Node[] };
  const count = (node: Node): number => 1 + node.children.reduce((sum, child) => sum + count(child), 0);
  t.is(count(tree.body), records.filter((record) => record.class === 5).length);
  const cash = tree.body.children.find((node: Node) => node.code === '57');
  t.true(cash.children.some((node: Node) => node.children.some((leaf: Node) => leaf.code === '5710')));
  t.true((await get(`/api/v1/accounts/records/tree/?plan=${pcemf}&class=7`)).body.is_system);
  const missing = await get(`/api/v1/accounts/records/tree/?plan=${pcemf}`);
  t.deepEqual(
    missing.body.errors.map((error: { field: string }) => error.field),
    ['class'],
  );
});

test('entries: filters by class, parent, prefix, text, activity and leaf; pagination', async (t) => {
  const { entries, chart } = await newEnterprise('FI1');
  const system = await get(`${entries}?class=6&page_size=100`);
  t.is(system.body.count, records.filter((record) => record.class === 6).length);
  t.true(system.body.results.every((row: { is_system: boolean; class: number }) => row.is_system && row.class === 6));
  const leaves = (await get(`${entries}?leaf=true`)).body.count;
  const totals = await get(`${entries}?leaf=false&code_prefix=57&page_size=100`);
  t.is(leaves + (await get(`${entries}?leaf=false`)).body.count, 1492);
  t.is(leaves, records.filter((record) => !records.some((child) => child.parentCode === record.code)).length);
  t.true(codesOf(totals).includes('57') && !codesOf(totals).includes('5710'));
  t.true(totals.body.results.every((row: { is_leaf: boolean }) => !row.is_leaf));
  t.deepEqual(
    codesOf(await get(`${entries}?parent=571`)),
    records
      .filter((record) => record.parentCode === '571')
      .map((record) => record.code)
      .sort(),
  );
  t.deepEqual(codesOf(await get(`${entries}?search=caisse fcfa&class=5`)), ['5710']);
  t.is((await get(`${entries}?is_active=false`)).body.count, 0);
  await app.request('PATCH', `${entries}${await entryId(chart, '5711')}/`, {
    headers: root,
    json: { is_active: false },
  });
  t.deepEqual(codesOf(await get(`${entries}?is_active=false`)), ['5711']);
  const first = await get(`${entries}?page_size=2&ordering=-code`);
  t.deepEqual(codesOf(first), [...records.map((record) => record.code)].sort().reverse().slice(0, 2));
  t.is(first.body.next, `${app.baseUrl}${entries}?page_size=2&ordering=-code&page=2`);
  t.is((await get(`${entries}?ordering=class`)).status, 400);
});

test('sub-accounts: extend a leaf of classes 1 to 5 by 1 to 3 digits; the parent stops being a leaf', async (t) => {
  const { entries, chart, id } = await newEnterprise('SA1');
  const add = (json: object) => app.request('POST', entries, { headers: root, json });
  const savings = await add({ parent_code: '373', code: '37301', label: 'Comptes courants produit Épargne Plus' });
  t.is(savings.status, 201);
  t.like(savings.body, {
    code: '37301',
    parent_code: '373',
    class: 3,
    record: null,
    is_system: false,
    is_active: true,
    is_leaf: true,
    enterprise: id,
  });
  t.false((await get(`${entries}${await entryId(chart, '373')}/`)).body.is_leaf);
  t.is(
    (await add({ parent_code: '373', code: '37302', label: 'Second product' })).status,
    201,
    'a parent takes several sub-accounts',
  );
  t.is(
    (await add({ parent_code: '37301', code: '3730101', label: 'Nested' })).status,
    201,
    'a sub-account may itself be extended',
  );
  t.is((await knex('audit_events').where({ action: 'chart_entry.create', enterprise_id: id })).length, 3);

  const refusals: [object, number, string, string?][] = [
    [{ parent_code: '373', code: '37301', label: 'Twin' }, 409, 'account_code_taken'],
    [{ parent_code: '373', code: '372001', label: 'Elsewhere' }, 400, 'invalid_request', 'code'],
    [{ parent_code: '373', code: '37399999', label: 'Too long' }, 400, 'invalid_request', 'code'],
    [{ parent_code: '373', code: '373', label: 'Itself' }, 400, 'invalid_request', 'code'],
    [{ parent_code: '3799', code: '379901', label: 'Unknown parent' }, 400, 'invalid_request', 'parent_code'],
    [{ parent_code: '713', code: '71301', label: 'Income' }, 409, 'system_account'],
    [{ parent_code: '6011', code: '60111', label: 'Charge' }, 409, 'system_account'],
    [{ parent_code: '371', code: '3719', label: 'Beside the plan' }, 409, 'parent_not_leaf'],
    [{ parent_code: '3', code: '39', label: 'Under a class root' }, 409, 'parent_not_leaf'],
    [{ parent_code: '373', code: '3730', label: 'Around 37301' }, 409, 'account_code_overlaps'],
    [{ parent_code: '373', code: '373011', label: 'Inside 37301' }, 409, 'account_code_overlaps'],
    [{ parent_code: '373', code: '37a', label: 'Letters' }, 400, 'invalid_request', 'code'],
  ];
  for (const [json, status, code, field] of refusals) {
    const refused = await add(json);
    t.is(refused.status, status, JSON.stringify(json));
    t.is(refused.body.code, code, JSON.stringify(json));
    if (field !== undefined)
      t.deepEqual(
        refused.body.errors.map((error: { field: string }) => error.field),
        [field],
        JSON.stringify(json),
      );
  }
  await app.request('PATCH', `${entries}${await entryId(chart, '3712')}/`, {
    headers: root,
    json: { is_active: false },
  });
  t.is((await add({ parent_code: '3712', code: '371201', label: 'Under inactive' })).body.code, 'account_inactive');
  t.is(
    await knex('company_chart_entries')
      .where({ chart_id: chart })
      .count()
      .first()
      .then((row) => Number(row!.count)),
    1495,
    'nothing written on refusal',
  );
});

test('renaming and (de)activating: not the system accounts; audited; one enterprise at a time', async (t) => {
  const own = await newEnterprise('RN1');
  const other = await newEnterprise('RN2');
  const patch = async (code: string, json: object) =>
    app.request('PATCH', `${own.entries}${await entryId(own.chart, code)}/`, { headers: root, json });
  const renamed = await patch('5710', { label: 'Caisse principale' });
  t.like(renamed.body, { code: '5710', label: 'Caisse principale', is_system: false });
  t.is(
    (await knex('company_chart_entries').where({ chart_id: other.chart, code: '5710' }).first()).label,
    'Caisse FCFA',
    'the other chart is unchanged',
  );
  t.is(
    (await knex('account_records').where({ plan_id: pcemf, code: '5710' }).first()).label,
    'Caisse FCFA',
    'the plan is unchanged',
  );
  t.is((await patch('373', { is_active: false })).body.is_active, false);
  t.is((await patch('373', { is_active: true })).body.is_active, true);
  for (const json of [{ label: 'Autre libellé' }, { is_active: false }]) {
    const refused = await patch('713', json);
    t.is(refused.status, 409);
    t.is(refused.body.code, 'system_account');
  }
  t.is((await patch('80', { label: 'PNF' })).body.code, 'system_account', 'class 8 too');
  const unchanged = await patch('5710', { label: 'Caisse principale' });
  t.is(unchanged.status, 200);
  t.is((await patch('713', {})).status, 200, 'an empty PATCH is a no-op, even on a system account');
  const actions = await knex('audit_events')
    .where({ enterprise_id: own.id })
    .where('action', 'like', 'chart_entry.%')
    .orderBy('id')
    .pluck('action');
  t.deepEqual(actions, ['chart_entry.rename', 'chart_entry.deactivate', 'chart_entry.reactivate']);
  t.is((await patch('5710', { label: 'x' })).status, 400);
  t.is((await patch('5710', { code: '5711' })).status, 400, 'a code never changes');
});

test('deleting: only sub-accounts without sub-accounts; plan and system accounts stay', async (t) => {
  const { entries, chart, id } = await newEnterprise('DL1');
  const add = (parent_code: string, code: string) =>
    app.request('POST', entries, { headers: root, json: { parent_code, code, label: `Account ${code}` } });
  const parent = (await add('373', '37301')).body.id;
  const child = (await add('37301', '3730101')).body.id;
  const remove = async (entry: string) => app.request('DELETE', `${entries}${entry}/`, { headers: root });
  t.is((await remove(parent)).body.code, 'account_has_children');
  t.is((await remove(await entryId(chart, '373'))).body.code, 'plan_account');
  t.is((await remove(await entryId(chart, '713'))).body.code, 'system_account');
  t.is((await remove(child)).status, 204);
  t.is((await get(`${entries}${child}/`)).status, 404);
  t.is((await remove(parent)).status, 204);
  t.true((await get(`${entries}${await entryId(chart, '373')}/`)).body.is_leaf, 'the parent is a leaf again');
  t.is((await knex('audit_events').where({ action: 'chart_entry.delete', enterprise_id: id })).length, 2);
});

test('an account with postings gets no sub-account and is not deleted', async (t) => {
  // One connection, holding a TEMP journal_lines: temporary tables come first in the search path, so this
  // stands in for the ledger's table (the hook's to_regclass and EXISTS both resolve to it), with or
  // without the ledger's migration, and without building balanced journal entries here.
  const single = knexFactory({ client: 'pg', connection: url, pool: { min: 1, max: 1 } });
  t.teardown(() => single.destroy());
  await single.raw('CREATE TEMP TABLE journal_lines (chart_entry_id uuid NOT NULL)');
  const ledgerApp = await startTestApp(t, { knex: single, routes });
  const { entries, chart } = await newEnterprise('PO1');
  const sub = await app.request('POST', entries, {
    headers: root,
    json: { parent_code: '373', code: '37301', label: 'Posted' },
  });
  await single('journal_lines').insert([
    { chart_entry_id: sub.body.id },
    { chart_entry_id: await entryId(chart, '3712') },
  ]);
  const extend = await ledgerApp.request('POST', entries, {
    headers: root,
    json: { parent_code: '3712', code: '371201', label: 'Under posted' },
  });
  t.is(extend.body.code, 'account_has_postings');
  t.is(
    (await ledgerApp.request('DELETE', `${entries}${sub.body.id}/`, { headers: root })).body.code,
    'account_has_postings',
  );
  t.is(
    (
      await ledgerApp.request('POST', entries, {
        headers: root,
        json: { parent_code: '373', code: '37302', label: 'Unposted' },
      })
    ).status,
    201,
  );
});

/** Each caller lists the charts of its own enterprises only; the plans are public to signed-in users. */
async function assertChartsScoped(
  t: ExecutionContext,
  callers: Record<string, Record<string, string>>,
  own: { chart: string },
  foreign: { id: string; chart: string; entries: string },
) {
  const charts = async (name: string) =>
    (await get('/api/v1/accounts/charts/', callers[name])).body.results.map((chart: { id: string }) => chart.id);
  t.deepEqual(await charts('cashier'), [own.chart]);
  t.deepEqual(await charts('foreign_direction'), [foreign.chart]);
  t.deepEqual(await charts('nobody'), []);
  t.is((await get(`/api/v1/accounts/charts/?enterprise=${foreign.id}`, callers.direction)).body.count, 0);
  t.is(
    (await get(`${foreign.entries}${await entryId(own.chart, '5710')}/`)).status,
    404,
    "an account asked for under another enterprise's chart",
  );
  t.is(
    (await get(`/api/v1/accounts/records/?plan=${pcemf}&page_size=1`, callers.nobody)).status,
    200,
    'the plans are public to signed-in users',
  );
}

/** One signed-in caller per kind of grant on `ownId` (and `foreignId`), and an anonymous one. */
async function accessCallers(ownId: string, foreignId: string, headOffice: string) {
  const callers: Record<string, Record<string, string>> = { anonymous: {} };
  const at = (
    role: 'cashier' | 'branch_head' | 'credit_committee' | 'direction' | 'admin',
    enterpriseId = ownId,
    branchId: string | null = null,
  ) => [{ role, enterpriseId, branchId }];
  for (const [name, grants] of Object.entries({
    nobody: [],
    cashier: at('cashier', ownId, headOffice),
    branch_head: at('branch_head', ownId, headOffice),
    credit_committee: at('credit_committee'),
    direction: at('direction'),
    admin: at('admin'),
    foreign_direction: at('direction', foreignId),
    // Direction somewhere, so the route's role check lets them in; the chart's enterprise then refuses them.
    branch_direction: at('direction', ownId, headOffice),
    cashier_directing_elsewhere: [...at('cashier'), ...at('direction', foreignId)],
  })) {
    await createUser(knex, `ac-${name}`, grants);
    callers[name] = await bearer(app, `ac-${name}`);
  }
  return callers;
}

test(
  'access: read by any role in the enterprise, written ' + 'by direction and administrators, 404 elsewhere',
  async (t) => {
    const own = await newEnterprise('AC1');
    const foreign = await newEnterprise('AC2');
    const [headOffice] = await knex('branches').where({ enterprise_id: own.id }).pluck('id');
    const callers = await accessCallers(own.id, foreign.id, headOffice);
    const readers = [
      'cashier',
      'branch_head',
      'credit_committee',
      'direction',
      'admin',
      'branch_direction',
      'cashier_directing_elsewhere',
    ];
    const read = (name: string) => (name === 'anonymous' ? 401 : readers.includes(name) ? 200 : 404);
    const write = (success: number) => (name: string) =>
      name === 'anonymous'
        ? 401
        : ['direction', 'admin'].includes(name)
          ? success
          : name === 'foreign_direction'
            ? 404
            : 403;
    const cash = `${own.entries}${await entryId(own.chart, '5710')}/`;
    const subs: Record<string, string> = {};
    for (const name of ['direction', 'admin']) {
      subs[name] = (
        await app.request('POST', own.entries, {
          headers: root,
          json: { parent_code: '3712', code: `3712${name.length}`, label: name },
        })
      ).body.id;
    }
    const cases: [
      string,
      (name: string) => string,
      ((name: string) => object) | undefined,
      (name: string) => number,
    ][] = [
      ['GET', () => own.entries, undefined, read],
      ['GET', () => cash, undefined, read],
      ['PATCH', () => cash, () => ({ label: 'Caisse siège' }), write(200)],
      [
        'POST',
        () => own.entries,
        (name) => ({ parent_code: '373', code: `373${name.length}`, label: name }),
        write(201),
      ],
      ['DELETE', (name) => `${own.entries}${subs[name] ?? subs.admin}/`, undefined, write(204)],
    ];
    for (const [method, path, json, expected] of cases) {
      for (const [name, headers] of Object.entries(callers)) {
        const response = await app.request(method, path(name), { headers, json: json?.(name) });
        t.is(response.status, expected(name), `${name} ${method} ${path(name)}`);
      }
    }
    await assertChartsScoped(t, callers, own, foreign);
  },
);

test('the module documents its routes, with operation ids unique among all the product routes', async (t) => {
  const schema = await get('/api/v1/accounts/schema/', {});
  t.is(schema.status, 200);
  const operations = Object.values(
    schema.body.paths as Record<string, Record<string, { operationId: string }>>,
  ).flatMap((path) => Object.values(path).map((operation) => operation.operationId));
  // The ledger's routes share the module: these are checked to be there, not to be alone.
  t.deepEqual(
    accountRoutes.map((route) => route.operationId).filter((id) => !operations.includes(id)),
    [],
  );
  t.true(operations.includes('addSubAccount'));
  const ids = routes.map((route) => route.operationId);
  t.is(new Set(ids).size, ids.length);
  t.deepEqual(
    schema.body.paths['/api/v1/accounts/charts/{chart_pk}/entries/'].post.requestBody.content[
      'application/json'
    ].schema.required.sort(),
    ['code', 'label', 'parent_code'],
  );
});
