import { createHash } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import type { Actor } from '../../activities/context';
import { createEnterprise } from '../../activities/enterprise/enterprises.activity';
import { openAccount } from '../../activities/members/member-accounts.activity';
import { createSavingsProduct } from '../../activities/members/savings-products.activity';
import { createApp } from '../../api/app';
import { createKnex, type Knex } from '../../db/knex';
import { closeServer, listen, portOf } from '../../runtime/services';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, testActivityContext, testAuthSettings, testMetricsToken, type TestApp } from '../helpers/app';
import { seriesValue } from '../helpers/metrics';
import { insertClient } from '../helpers/mothers';
import { bearer, createUser, testPassword } from '../helpers/users';
import { testClock } from '../helpers/clock';
import { until } from '../helpers/until';

test('healthz answers ok without touching any dependency', async (t) => {
  const knex = createKnex('postgres://nobody:nothing@127.0.0.1:1/none');
  t.teardown(() => knex.destroy());
  const app = await startTestApp(t, { knex });
  const response = await app.request('GET', '/healthz');
  t.is(response.status, 200);
  t.deepEqual(response.body, { status: 'ok' });
});

test('readyz is ok when the database and Temporal both answer', async (t) => {
  const { knex } = await createTestDatabase(t);
  const app = await startTestApp(t, { knex });
  // Polled, as an orchestrator polls it: on a loaded machine a first check may pass its bound (2 s for Temporal).
  let response = await app.request('GET', '/readyz');
  await until('readyz to answer 200', async () => (response = await app.request('GET', '/readyz')).status === 200);
  t.deepEqual(response.body, { status: 'ok', checks: { database: 'ok', temporal: 'ok' } });
});

test('readyz is a 503 naming the database when it is unreachable', async (t) => {
  const knex = createKnex('postgres://nobody:nothing@127.0.0.1:1/none');
  t.teardown(() => knex.destroy());
  const app = await startTestApp(t, { knex });
  const response = await app.request('GET', '/readyz');
  t.is(response.status, 503);
  t.is(response.body.status, 'unavailable');
  t.true(['unreachable', 'timeout'].includes(response.body.checks.database), "a kind, never the driver's message");
  t.is(response.body.checks.temporal, 'ok');
});

test('readyz is a 503 naming Temporal when it is unreachable', async (t) => {
  const { knex } = await createTestDatabase(t);
  const unreachable = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 500 }) });
  const app = await startTestApp(t, { knex, temporal: unreachable });
  const response = await app.request('GET', '/readyz');
  t.is(response.status, 503);
  t.is(response.body.checks.database, 'ok');
  t.true(['unreachable', 'timeout'].includes(response.body.checks.temporal));
});

test('metrics count requests and time them by declared route and status', async (t) => {
  const { knex } = await createTestDatabase(t);
  const app = await startTestApp(t, { knex });
  await app.request('GET', '/healthz');
  await app.request('GET', '/healthz');
  await app.request('GET', '/no/such/path/');
  t.is((await app.request('GET', '/metrics')).status, 401, 'metrics need their token');
  t.is(
    (await app.request('GET', '/metrics', { headers: { authorization: 'Bearer a-wrong-token-a-wrong-token' } })).status,
    401,
  );
  const response = await app.request('GET', '/metrics', { headers: { authorization: `Bearer ${testMetricsToken}` } });
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /^text\/plain/);
  t.true(response.text.includes('http_requests_total{method="GET",route="/healthz",status="200"} 2'));
  t.true(response.text.includes('http_requests_total{method="GET",route="unmatched",status="404"} 1'));
  t.regex(
    response.text,
    /http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/healthz",status="200"\} \d/,
  );
});

/** An enterprise with a cashier of its head office and a member's account there, built by the activities. */
async function cashierWithAccount(knex: Knex) {
  const rootId = await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  const root: Actor = {
    userId: rootId,
    grants: [{ role: 'admin', enterpriseId: null, branchId: null }],
    requestId: 'test',
  };
  const context = testActivityContext(knex);
  const enterprise = await createEnterprise(context, root, {
    code: 'OPS',
    name: 'Coop OPS',
    legalForm: 'C',
    country: 'CM',
    timeZone: 'Africa/Douala',
    headOffice: { code: 'HQ', name: 'HQ', address: '', city: '' },
  });
  const headOffice = (await knex('branches').where({ enterprise_id: enterprise.id }).first('id')).id as string;
  const cashierId = await createUser(knex, 'cashier', [
    { role: 'cashier', enterpriseId: enterprise.id, branchId: headOffice },
  ]);
  const product = await createSavingsProduct(context, root, enterprise.id, {
    code: 'EPA',
    name: 'Épargne',
    kind: 'demand_deposit',
    minimumOpeningBalance: '0',
    minimumBalance: '0',
    withdrawalsAllowed: true,
    interestRate: '0',
    depositAccountCode: '3711',
  });
  const { account } = await openAccount(context, root, {
    clientId: await insertClient(knex, enterprise.id, headOffice, rootId),
    productId: product.id,
    initialDeposit: null,
    idempotencyKey: null,
  });
  return { enterpriseId: enterprise.id, rootId, cashierId, accountId: account.id };
}

test('metrics show the build, the database pool, and the postings a deposit adds', async (t) => {
  const { knex } = await createTestDatabase(t);
  const app = await startTestApp(t, { knex });
  const { accountId } = await cashierWithAccount(knex);
  const cashier = await bearer(app, 'cashier');
  const scrape = async () =>
    (await app.request('GET', '/metrics', { headers: { authorization: `Bearer ${testMetricsToken}` } })).text;
  const deposits = (exposition: string) => seriesValue(exposition, 'coopbank_postings_total{kind="deposit"}');
  const before = await scrape();
  t.is(
    (
      await app.request('POST', `/api/v1/members/accounts/${accountId}/deposits/`, {
        headers: cashier,
        json: { amount: '5000', reference: 'guichet' },
      })
    ).status,
    201,
  );
  const after = await scrape();
  t.is(deposits(after)! - deposits(before)!, 1, 'one entry posted');
  t.is(seriesValue(after, 'coopbank_postings_total{kind="withdrawal"}'), 0, 'known kinds start at 0');
  t.is(seriesValue(after, 'coopbank_provisioning_runs_total{outcome="completed"}'), 0);
  t.is(
    seriesValue(after, `coopbank_build_info{version="0.1.0",commit="unknown",node_version="${process.version}"}`),
    1,
  );
  t.is(seriesValue(after, 'coopbank_db_pool_max_connections'), 10);
  t.true(
    seriesValue(after, 'coopbank_db_pool_free_connections')! >= 1,
    'the connections of the requests before the scrape are back in the pool',
  );
  for (const gauge of ['used_connections', 'pending_acquires', 'pending_creates'])
    t.true(seriesValue(after, `coopbank_db_pool_${gauge}`)! >= 0, gauge);
});

/**
 * The real app with a logger whose lines the test reads (startTestApp's logger is silent); Temporal is never called.
 */
async function appLoggingTo(
  t: ExecutionContext,
  knex: Knex,
  lines: Record<string, unknown>[],
): Promise<TestApp['request']> {
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const app = createApp({
    knex,
    temporal: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
    taskQueue: 'test-no-worker',
    logger,
    clock: testClock,
    auth: testAuthSettings,
    secureCookies: false,
    trustProxy: false,
    trustedProxyHops: 1,
    bodyLimitBytes: 1024 * 1024,
    workflowDayMs: 86_400_000,
    metricsToken: null,
    processMetrics: false,
  });
  const server = await listen(app, 0);
  t.teardown(() => closeServer(server));
  return async (method, path, options = {}) => {
    const response = await fetch(`http://127.0.0.1:${portOf(server)}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...options.headers },
      body: options.json === undefined ? undefined : JSON.stringify(options.json),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: text.startsWith('{') ? JSON.parse(text) : text,
    };
  };
}

test(
  "a request's log line names the signed-in user and the enterprise it concerns, " + 'never a token or a password',
  async (t) => {
    const { knex } = await createTestDatabase(t);
    const { enterpriseId, rootId, cashierId } = await cashierWithAccount(knex);
    const lines: Record<string, unknown>[] = [];
    const request = await appLoggingTo(t, knex, lines);
    const signIn = await request('POST', '/api/v1/token/', { json: { username: 'cashier', password: testPassword } });
    t.is(signIn.status, 200);
    const cashier = { authorization: `Bearer ${signIn.body.access}` };
    await request('GET', '/api/v1/auth/users/me/', { headers: cashier });
    await request('GET', `/api/v1/enterprise/enterprises/${enterpriseId}/configuration/`, { headers: cashier });
    const rootSignIn = await request('POST', '/api/v1/token/', { json: { username: 'root', password: testPassword } });
    await request('GET', `/api/v1/enterprise/branches/?enterprise=${enterpriseId}`, {
      headers: { authorization: `Bearer ${rootSignIn.body.access}` },
    });
    await request('GET', '/api/v1/auth/users/me/', { headers: { authorization: `Bearer ${rootSignIn.body.access}` } });
    const requests = lines.filter((line) => line.msg === 'request');
    const lineOf = (path: string, userId: string) =>
      requests.find((line) => line.path === path && line.user_id === userId);
    t.like(
      lineOf('/api/v1/auth/users/me/', cashierId),
      { username: 'cashier', enterprise_id: enterpriseId, status: 200 },
      "the only enterprise of the user's roles",
    );
    t.like(lineOf(`/api/v1/enterprise/enterprises/${enterpriseId}/configuration/`, cashierId), {
      username: 'cashier',
      enterprise_id: enterpriseId,
    });
    t.like(
      lineOf('/api/v1/enterprise/branches/', rootId),
      { username: 'root', enterprise_id: enterpriseId },
      'named by the query of a platform administrator',
    );
    t.false(
      'enterprise_id' in lineOf('/api/v1/auth/users/me/', rootId)!,
      'a platform administrator naming none: unknown',
    );
    t.false('user_id' in requests.find((line) => line.path === '/api/v1/token/')!, 'a sign-in request has no user yet');
    const logged = JSON.stringify(lines);
    for (const secret of [signIn.body.access, signIn.body.refresh, rootSignIn.body.access, testPassword])
      t.false(logged.includes(secret as string));
  },
);

test(
  'every answer carries the security headers; ' +
    'API answers are never cached; the docs page allows only its own scripts',
  async (t) => {
    const { knex } = await createTestDatabase(t);
    const app = await startTestApp(t, { knex });
    for (const path of ['/healthz', '/api/v1/nowhere/', '/api/v1/auth/users/me/']) {
      const response = await app.request('GET', path);
      t.is(response.headers.get('x-content-type-options'), 'nosniff', path);
      t.is(response.headers.get('referrer-policy'), 'no-referrer', path);
      t.is(response.headers.get('x-frame-options'), 'DENY', path);
      t.is(response.headers.get('cache-control'), 'no-store', path);
      t.is(response.headers.get('content-security-policy'), "default-src 'none'; frame-ancestors 'none'", path);
    }
    const docs = await app.request('GET', '/api/v1/docs/');
    const policy = docs.headers.get('content-security-policy') ?? '';
    t.regex(policy, /script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    t.notRegex(policy, /script-src[^;]*unsafe-inline/);
    const inline = /<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/.exec(docs.text)![1]!;
    t.true(
      policy.includes(`'sha256-${createHash('sha256').update(inline).digest('base64')}'`),
      "the page's own inline script is the one allowed",
    );
  },
);
