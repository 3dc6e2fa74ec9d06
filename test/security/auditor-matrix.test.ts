import test from 'ava';
import type { AnyRoute } from '../../api/route';
import { apiRoutes } from '../../api/routes';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/app';
import { insertEnterprise } from '../helpers/mothers';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';

/**
 * The auditor (issue 27), mechanically over every declared route: it reads every read of its enterprise and
 * changes nothing. New routes are covered the day they are declared.
 */
const file = fileTeardown(test);
let app: TestApp;
let auditor: Record<string, string>;
const unknownId = '7d0f3c2a-1b4e-4c5d-8e9f-0a1b2c3d4e5f';
const guarded = apiRoutes.filter((route) => route.access !== 'public');
const pathOf = (route: AnyRoute) => route.path.replace(/\{[a-z_]+\}/g, unknownId);
const label = (route: AnyRoute) => `${route.method.toUpperCase()} ${route.path}`;
// Reads of the platform itself (its users and their grants, event replays) stay with administrators.
const platformReads = new Set(['listUsers', 'getUser', 'listEventReplays', 'getEventReplay']);

test.before(async () => {
  const { knex } = await createTestDatabase(file);
  app = await startTestApp(file, { knex });
  await createUser(knex, 'auditor', [
    { role: 'auditor', enterpriseId: await insertEnterprise(knex, 'AUDM'), branchId: null },
  ]);
  auditor = await bearer(app, 'auditor', '10.21.0.1');
});

test('every write route refuses an auditor before looking at the request, and none lists the role', async (t) => {
  const writes = guarded.filter((route) => route.method !== 'get' && Array.isArray(route.access));
  t.true(writes.length > 60, `${writes.length} write routes`);
  for (const route of writes) {
    t.false((route.access as readonly string[]).includes('auditor'), `${label(route)} lists auditor`);
    const response = await app.request(route.method.toUpperCase(), pathOf(route), {
      headers: auditor,
      json: route.body ? {} : undefined,
    });
    t.is(response.status, 403, `${label(route)} answered ${response.status}`);
  }
  // The few writes open to any signed-in user act on the caller's own things (their password, their application),
  // compute only (a simulation), or decide a four-eyes request, whose workflow admits only the policy's roles
  // (test/api/approvals.test.ts refuses a wrong role).
  const open = guarded
    .filter((route) => route.method !== 'get' && !Array.isArray(route.access))
    .map((route) => route.operationId)
    .sort();
  t.deepEqual(open, ['approveRequest', 'changePassword', 'rejectRequest', 'simulateLoan', 'withdrawLoanApplication']);
});

test("every read restricted to some roles admits the auditor, but the platform's own", (t) => {
  const restricted = guarded.filter(
    (route) => route.method === 'get' && Array.isArray(route.access) && !platformReads.has(route.operationId),
  );
  t.true(restricted.length >= 6, `${restricted.length} restricted reads`);
  for (const route of restricted)
    t.true((route.access as readonly string[]).includes('auditor'), `${label(route)} does not let auditors read`);
});
