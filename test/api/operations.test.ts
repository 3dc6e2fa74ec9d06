import { createHash } from 'node:crypto';
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import { createKnex } from '../../db/knex';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, testMetricsToken } from '../helpers/app';

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
  const response = await app.request('GET', '/readyz');
  t.is(response.status, 200);
  t.deepEqual(response.body, { status: 'ok', checks: { database: 'ok', temporal: 'ok' } });
});

test('readyz is a 503 naming the database when it is unreachable', async (t) => {
  const knex = createKnex('postgres://nobody:nothing@127.0.0.1:1/none');
  t.teardown(() => knex.destroy());
  const app = await startTestApp(t, { knex });
  const response = await app.request('GET', '/readyz');
  t.is(response.status, 503);
  t.is(response.body.status, 'unavailable');
  t.true(['unreachable', 'timeout'].includes(response.body.checks.database), 'a kind, never the driver\'s message');
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
  t.is((await app.request('GET', '/metrics', { headers: { authorization: 'Bearer a-wrong-token-a-wrong-token' } })).status, 401);
  const response = await app.request('GET', '/metrics', { headers: { authorization: `Bearer ${testMetricsToken}` } });
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /^text\/plain/);
  t.true(response.text.includes('http_requests_total{method="GET",route="/healthz",status="200"} 2'));
  t.true(response.text.includes('http_requests_total{method="GET",route="unmatched",status="404"} 1'));
  t.regex(response.text, /http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/healthz",status="200"\} \d/);
});

test('every answer carries the security headers; API answers are never cached; the docs page allows only its own scripts', async (t) => {
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
  t.true(policy.includes(`'sha256-${createHash('sha256').update(inline).digest('base64')}'`), 'the page\'s own inline script is the one allowed');
});
