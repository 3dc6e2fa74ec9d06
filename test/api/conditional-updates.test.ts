import test from 'ava';
import { apiRoutes } from '../../api/routes';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { bearer, createUser } from '../helpers/users';

async function enterprise(app: TestApp, headers: Record<string, string>, code: string): Promise<string> {
  const created = await app.request('POST', '/api/v1/enterprise/enterprises/', {
    headers,
    json: { code, name: `Coop ${code}`, legal_form: 'Coopérative', country: 'CM' },
  });
  if (created.status !== 201) throw new Error(created.text);
  return created.body.id as string;
}

test('every PATCH edits what a GET of its path shows, so every edit can be conditional', (t) => {
  const readable = new Set(apiRoutes.filter((route) => route.method === 'get').map((route) => route.path));
  for (const route of apiRoutes.filter((candidate) => candidate.method === 'patch'))
    t.true(readable.has(route.path), `${route.operationId} has a GET of ${route.path}`);
});

test('If-Match: an editor changes only the version read; a stale version is 412 and changes nothing', async (t) => {
  const { knex } = await createTestDatabase(t);
  const app = await startTestApp(t, { knex });
  await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  const root = await bearer(app, 'root');
  const id = await enterprise(app, root, 'ETAG1');
  const path = `/api/v1/enterprise/enterprises/${id}/`;

  const read = await app.request('GET', path, { headers: root });
  const version = read.headers.get('etag')!;
  t.regex(version, /^"[\w-]{27}"$/);
  t.is(
    (await app.request('GET', path, { headers: root })).headers.get('etag'),
    version,
    'the same representation, the same tag',
  );

  const first = await app.request('PATCH', path, {
    headers: { ...root, 'if-match': version },
    json: { name: 'Coop renamed by Awa' },
  });
  t.is(first.status, 200, first.text);
  t.not(first.headers.get('etag'), version);
  t.is(
    first.headers.get('etag'),
    (await app.request('GET', path, { headers: root })).headers.get('etag'),
    'the answer carries the new version',
  );

  const stale = await app.request('PATCH', path, {
    headers: { ...root, 'if-match': version },
    json: { name: 'Coop renamed by Bella' },
  });
  t.is(stale.status, 412);
  t.is(stale.body.code, 'precondition_failed');
  t.is(
    (await app.request('GET', path, { headers: root })).body.name,
    'Coop renamed by Awa',
    "Bella's stale edit changed nothing",
  );

  t.is(
    (await app.request('PATCH', path, { headers: { ...root, 'if-match': '*' }, json: { name: 'Coop any version' } }))
      .status,
    200,
    'If-Match: * is any version',
  );
  t.is(
    (await app.request('PATCH', path, { headers: root, json: { name: 'Coop unconditional' } })).status,
    200,
    'without If-Match the edit is unconditional',
  );
});

test('two editors with the same version at the same moment: one change lands, the other is 412', async (t) => {
  const { knex } = await createTestDatabase(t);
  const app = await startTestApp(t, { knex });
  await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  const root = await bearer(app, 'root');
  const id = await enterprise(app, root, 'ETAG2');
  const path = `/api/v1/enterprise/enterprises/${id}/`;
  const version = (await app.request('GET', path, { headers: root })).headers.get('etag')!;
  const names = ['Coop edit one', 'Coop edit two', 'Coop edit three', 'Coop edit four'];
  const answers = await Promise.all(
    names.map((name) => app.request('PATCH', path, { headers: { ...root, 'if-match': version }, json: { name } })),
  );
  t.deepEqual(answers.map((answer) => answer.status).sort(), [200, 412, 412, 412]);
  const winner = names[answers.findIndex((answer) => answer.status === 200)];
  t.is((await app.request('GET', path, { headers: root })).body.name, winner);
});
