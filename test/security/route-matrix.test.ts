import test from 'ava';
import type { AnyRoute } from '../../api/route';
import { apiRoutes } from '../../api/routes';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/app';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';

/**
 * Every declared route, mechanically: whatever a stranger or a careless client sends, the answer is the
 * intended refusal, never a 500 and never a success it should not get. New routes are covered the day they
 * are declared.
 */
const file = fileTeardown(test);
let app: TestApp;
let callers: Record<'nobody' | 'root', Record<string, string>>;
const unknownId = '7d0f3c2a-1b4e-4c5d-8e9f-0a1b2c3d4e5f';
const guarded = apiRoutes.filter((route) => route.access !== 'public');
const withBody = apiRoutes.filter((route) => route.body !== undefined && route.access !== 'public');

test.before(async () => {
  const { knex } = await createTestDatabase(file);
  app = await startTestApp(file, { knex });
  await createUser(knex, 'nobody');
  await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  callers = { nobody: await bearer(app, 'nobody', '10.20.0.1'), root: await bearer(app, 'root', '10.20.0.2') };
});

const sharedLists = new Set(['listUsers', 'listAccountPlans', 'listAccountRecords', 'listJournals']);
const pathOf = (route: AnyRoute) => route.path.replace(/\{[a-z_]+\}/g, unknownId);
const label = (route: AnyRoute) => `${route.method.toUpperCase()} ${route.path}`;

test('every guarded route refuses an anonymous caller with 401', async (t) => {
  t.true(guarded.length > 40, `${guarded.length} guarded routes`);
  for (const route of guarded) {
    const response = await app.request(route.method.toUpperCase(), pathOf(route), {
      json: route.body ? {} : undefined,
    });
    t.is(response.status, 401, label(route));
  }
});

test('a signed-in user without any role gets no success on a role route, and no 500 anywhere', async (t) => {
  // Logout would end the very session this loop uses (auth.test.ts covers it).
  for (const route of guarded.filter((candidate) => candidate.operationId !== 'logout')) {
    const response = await app.request(route.method.toUpperCase(), pathOf(route), {
      headers: callers.nobody,
      json: route.body ? {} : undefined,
    });
    t.true(response.status < 500, `${label(route)} answered ${response.status}`);
    if (Array.isArray(route.access))
      t.true([400, 403, 404].includes(response.status), `${label(route)} answered ${response.status}`);
  }
});

test('malformed bodies are 400 naming a field, for every route that takes one', async (t) => {
  t.true(withBody.length > 15);
  // Cash is handled by tellers only: a platform administrator is refused before the body is read.
  for (const route of withBody.filter(
    (candidate) => !Array.isArray(candidate.access) || candidate.access.includes('admin'),
  )) {
    for (const body of [[], { unexpected_field: 1 }, 'text']) {
      const response = await app.request(route.method.toUpperCase(), pathOf(route), {
        headers: callers.root,
        json: body,
      });
      t.true(
        [400, 404].includes(response.status),
        `${label(route)} with ${JSON.stringify(body)} answered ${response.status}`,
      );
      if (response.status === 400)
        t.true(Array.isArray(response.body.errors) && response.body.errors.length > 0, label(route));
    }
  }
});

test('unknown ids answer 404 (or an empty list), never 500, even for a platform administrator', async (t) => {
  for (const route of guarded.filter((candidate) => candidate.method === 'get')) {
    const response = await app.request('GET', pathOf(route), { headers: callers.root });
    t.true([200, 400, 404].includes(response.status), `${label(route)} answered ${response.status}`);
    // No enterprise exists here, so enterprise data lists are empty; the reference plan, the journals and the two
    // callers are not.
    if (response.status === 200 && 'count' in response.body && !sharedLists.has(route.operationId))
      t.is(response.body.count, 0, label(route));
  }
});
