import test from 'ava';
import * as yup from 'yup';
import { authRoutes } from '../../api/modules/auth/auth.routes';
import { enterpriseFilter, idParams } from '../../api/modules/common.schemas';
import { enterpriseLoaders } from '../../api/modules/enterprise/enterprise.queries';
import { eventRoutes } from '../../api/modules/events/events.routes';
import { replayRoutes } from '../../api/modules/events/replays.routes';
import { provisionRoutes } from '../../api/modules/loans/provisions.routes';
import type { RouteDeps } from '../../api/deps';
import type { Knex } from '../../db/knex';
import { defineRoute } from '../../api/route';
import { buildRouter } from '../../api/router';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { insertEnterprise } from '../helpers/mothers';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';

/**
 * A route that declares `load` gets its resource from the router, found and authorized in one place
 * (api/router.ts): these probes load branches, whose staff see them and whose enterprise changes them.
 */
const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
const ids = { enterprise: '', other: '', branch1: '', branch2: '' };
const sessions: Record<string, Record<string, string>> = {};
const unknownId = '7d0f3c2a-1b4e-4c5d-8e9f-0a1b2c3d4e5f';
const branchAnswer = yup.object({ code: yup.string().required() });

/** A branch named by the path's `{branch_pk}`, as a chart's reports name their chart by `{chart_pk}`. */
const branchByParent = { ...enterpriseLoaders.branch, param: 'branch_pk' };

const probeRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/probes/{id}/',
    module: 'enterprise',
    operationId: 'readProbe',
    summary: 'Reads a branch',
    access: 'authenticated',
    load: enterpriseLoaders.branch,
    params: idParams,
    query: yup.object({ enterprise: enterpriseFilter }),
    response: branchAnswer,
    errorStatuses: [401, 404],
    // `resource` is typed by the loader: a Branch, whose code tsc knows.
    handler: ({ resource }) => ({ code: resource.code }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/enterprise/probes/{id}/',
    module: 'enterprise',
    operationId: 'changeProbe',
    summary: 'Changes a branch',
    access: ['direction'],
    load: enterpriseLoaders.branch,
    params: idParams,
    response: branchAnswer,
    errorStatuses: [401, 403, 404],
    handler: ({ resource }) => ({ code: resource.code }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/probes/{branch_pk}/children/{id}/',
    module: 'enterprise',
    operationId: 'readProbeParent',
    summary: 'Reads the branch a parameter other than {id} names',
    access: 'authenticated',
    load: branchByParent,
    params: yup.object({ branch_pk: yup.string().uuid().required(), id: yup.string().required() }),
    response: branchAnswer,
    errorStatuses: [401, 404],
    handler: ({ resource }) => ({ code: resource.code }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/probes/{id}/consolidated/',
    module: 'enterprise',
    operationId: 'readProbeWhole',
    summary: "Reads a branch as the enterprise's consolidated document",
    access: 'authenticated',
    load: { ...enterpriseLoaders.branch, wholeEnterprise: () => true },
    params: idParams,
    response: branchAnswer,
    errorStatuses: [401, 404],
    handler: ({ resource }) => ({ code: resource.code }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/enterprise/probes/',
    module: 'enterprise',
    operationId: 'nameProbe',
    summary: 'Names a branch in the body',
    access: 'authenticated',
    body: yup.object({ branch: yup.string().uuid().required() }),
    response: branchAnswer,
    errorStatuses: [401, 404],
    handler: async ({ body, load }) => ({ code: (await load(enterpriseLoaders.branch, body.branch)).code }),
  }),
];

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, {
    knex,
    routes: [...authRoutes, ...probeRoutes, ...provisionRoutes, ...eventRoutes, ...replayRoutes],
  });
  ids.enterprise = await insertEnterprise(knex, 'LOAD');
  ids.other = await insertEnterprise(knex, 'ELSE');
  const rows = await knex('branches')
    .insert([
      { enterprise_id: ids.enterprise, code: 'B1', name: 'Branch 1', is_head_office: true },
      { enterprise_id: ids.enterprise, code: 'B2', name: 'Branch 2' },
    ])
    .returning('id');
  [ids.branch1, ids.branch2] = rows.map((row: { id: string }) => row.id) as [string, string];
  const users = {
    cashier1: [{ role: 'cashier', enterpriseId: ids.enterprise, branchId: ids.branch1 }],
    branchdirection: [{ role: 'direction', enterpriseId: ids.enterprise, branchId: ids.branch1 }],
    direction: [{ role: 'direction', enterpriseId: ids.enterprise, branchId: null }],
    admin: [{ role: 'admin', enterpriseId: ids.enterprise, branchId: null }],
    otheradmin: [{ role: 'admin', enterpriseId: ids.other, branchId: null }],
  } as const;
  for (const [name, grants] of Object.entries(users)) {
    await createUser(knex, name, grants);
    sessions[name] = await bearer(app, name, `10.40.0.${Object.keys(sessions).length + 1}`);
  }
});

const call = (who: string, method: string, path: string, json?: unknown) =>
  app.request(method, path, { json, headers: sessions[who] });

test('the handler receives the resource the path names, loaded and authorized by the router', async (t) => {
  const response = await call('cashier1', 'GET', `/api/v1/enterprise/probes/${ids.branch1}/`);
  t.is(response.status, 200);
  t.deepEqual(response.body, { code: 'B1' });
});

test(
  'an absent resource, one the caller cannot see and one of another ' +
    "enterprise than named are the same 404, with the loader's name",
  async (t) => {
    for (const [who, path] of [
      ['cashier1', `/api/v1/enterprise/probes/${unknownId}/`],
      ['cashier1', `/api/v1/enterprise/probes/${ids.branch2}/`],
      ['direction', `/api/v1/enterprise/probes/${ids.branch1}/?enterprise=${ids.other}`],
    ] as const) {
      const response = await call(who, 'GET', path);
      t.is(response.status, 404, path);
      t.like(response.body, { code: 'not_found', detail: 'The branch was not found.' }, path);
    }
    t.is(
      (await call('direction', 'GET', `/api/v1/enterprise/probes/${ids.branch2}/?enterprise=${ids.enterprise}`)).status,
      200,
    );
  },
);

test(
  "the route's roles are checked where the loader says a change is decided: " + 'a branch at its enterprise',
  async (t) => {
    // Seen by a direction role of the branch itself, but changed only by the enterprise's.
    t.is((await call('branchdirection', 'GET', `/api/v1/enterprise/probes/${ids.branch1}/`)).status, 200);
    const refused = await call('branchdirection', 'POST', `/api/v1/enterprise/probes/${ids.branch1}/`);
    t.is(refused.status, 403);
    t.is(refused.body.code, 'role_required');
    const changed = await call('direction', 'POST', `/api/v1/enterprise/probes/${ids.branch2}/`);
    t.is(changed.status, 200);
    t.deepEqual(changed.body, { code: 'B2' });
  },
);

test('a resource named in the body goes through the same check', async (t) => {
  t.deepEqual((await call('cashier1', 'POST', '/api/v1/enterprise/probes/', { branch: ids.branch1 })).body, {
    code: 'B1',
  });
  const hidden = await call('cashier1', 'POST', '/api/v1/enterprise/probes/', { branch: ids.branch2 });
  t.is(hidden.status, 404);
  t.is(hidden.body.detail, 'The branch was not found.');
});

test('a route that loads a resource has an {id} in its path', (t) => {
  const detail = probeRoutes[0]!;
  // The router reads its dependencies only when answering: building it needs none.
  const withoutId = { ...detail, path: '/api/v1/enterprise/probes/' };
  t.throws(() => buildRouter([withoutId], {} as RouteDeps), {
    message: /readProbe: a route that loads its resource has an \{id\} in its path/,
  });
});

test("a loader's `param` names the path parameter it loads; a route without it is refused", async (t) => {
  const parent = `/api/v1/enterprise/probes/${ids.branch1}/children/anything/`;
  t.deepEqual((await call('cashier1', 'GET', parent)).body, { code: 'B1' });
  const hidden = await call('cashier1', 'GET', `/api/v1/enterprise/probes/${ids.branch2}/children/anything/`);
  t.is(hidden.status, 404);
  t.is(hidden.body.detail, 'The branch was not found.');
  const withoutParam = { ...probeRoutes[2]!, path: '/api/v1/enterprise/probes/{id}/children/' };
  t.throws(() => buildRouter([withoutParam], {} as RouteDeps), {
    message: /readProbeParent: a route that loads its resource has an \{branch_pk\} in its path/,
  });
});

test('a whole-enterprise loader is 404 to a user of some branches, and answers the enterprise', async (t) => {
  // The cashier sees branch 1 itself, yet not the enterprise's consolidated document about it.
  t.is((await call('cashier1', 'GET', `/api/v1/enterprise/probes/${ids.branch1}/`)).status, 200);
  const hidden = await call('cashier1', 'GET', `/api/v1/enterprise/probes/${ids.branch1}/consolidated/`);
  t.is(hidden.status, 404);
  t.is(hidden.body.detail, 'The branch was not found.');
  const branchDirection = await call(
    'branchdirection',
    'GET',
    `/api/v1/enterprise/probes/${ids.branch1}/consolidated/`,
  );
  t.is(branchDirection.status, 404);
  t.deepEqual((await call('direction', 'GET', `/api/v1/enterprise/probes/${ids.branch1}/consolidated/`)).body, {
    code: 'B1',
  });
});

test("a business event of no branch is the enterprise's: 404 to a user of some branches", async (t) => {
  const eventOf = async (branchId: string | null, key: string) =>
    (
      (await knex('business_event_logs')
        .insert({
          enterprise_id: ids.enterprise,
          branch_id: branchId,
          kind: 'share_subscription',
          amount: '5000',
          business_date: '2026-03-31',
          idempotency_key: key,
          request_hash: 'probe',
        })
        .returning('id')) as { id: string }[]
    )[0]!.id;
  const [ofEnterprise, ofBranch1, ofBranch2] = [
    await eventOf(null, 'probe-enterprise'),
    await eventOf(ids.branch1, 'probe-branch-1'),
    await eventOf(ids.branch2, 'probe-branch-2'),
  ];
  const read = async (who: string, id: string) => call(who, 'GET', `/api/v1/events/${id}/`);
  t.is((await read('cashier1', ofBranch1)).body.id, ofBranch1, "its branch's event");
  for (const id of [ofEnterprise, ofBranch2]) {
    const hidden = await read('cashier1', id);
    t.is(hidden.status, 404, id);
    t.is(hidden.body.detail, 'The event was not found.');
  }
  t.is((await read('branchdirection', ofEnterprise)).status, 404, 'a branch head does not see the enterprise');
  t.like((await read('direction', ofEnterprise)).body, { id: ofEnterprise, branch: null });
  t.is((await read('otheradmin', ofBranch1)).status, 404, 'another enterprise');
});

test(
  'the module routes converted to `load`: a provisioning run, ' +
    'a rule and a replay request of another enterprise are 404s with their names',
  async (t) => {
    const ofEach = async (table: string, row: Record<string, unknown>) =>
      Promise.all(
        [ids.enterprise, ids.other].map(
          async (enterprise) =>
            (
              (await knex(table)
                .insert({ ...row, enterprise_id: enterprise })
                .returning('id')) as { id: string }[]
            )[0]!.id,
        ),
      );
    const runs = await ofEach('provisioning_runs', { as_of: '2026-03-31', trigger: 'schedule', status: 'completed' });
    const rules = await ofEach('accounting_rule_configs', {
      kind: 'deposit',
      version: 99,
      legs: JSON.stringify([{ debit: { role: 'cash' }, credit: { role: 'member_deposits' } }]),
      is_active: true,
    });
    const replays = await ofEach('event_replay_requests', {
      date_from: '2026-01-01',
      date_to: '2026-01-31',
      kinds: [],
      mode: 'dry_run',
    });
    for (const [who, path, name] of [
      ['direction', `/api/v1/loans/provisions/runs/${runs[1]}/`, 'provisioning run'],
      ['direction', `/api/v1/events/rule-configs/${rules[1]}/`, 'rule'],
      ['otheradmin', `/api/v1/events/replays/${replays[0]}/`, 'replay request'],
    ] as const) {
      const response = await call(who, 'GET', path);
      t.is(response.status, 404, path);
      t.like(response.body, { code: 'not_found', detail: `The ${name} was not found.` }, path);
    }
    t.is((await call('direction', 'GET', `/api/v1/loans/provisions/runs/${runs[0]}/`)).body.id, runs[0]);
    t.is((await call('direction', 'GET', `/api/v1/events/rule-configs/${rules[0]}/`)).body.version, 99);
    t.is((await call('admin', 'GET', `/api/v1/events/replays/${replays[0]}/`)).body.id, replays[0]);
  },
);
