import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import { createKnex } from '../../db/knex';
import { createTestDatabase } from '../helpers/database';
import { startTestApp } from '../helpers/app';

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
  t.regex(response.body.checks.database, /^failed: /);
  t.is(response.body.checks.temporal, 'ok');
});

test('readyz is a 503 naming Temporal when it is unreachable', async (t) => {
  const { knex } = await createTestDatabase(t);
  const unreachable = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 500 }) });
  const app = await startTestApp(t, { knex, temporal: unreachable });
  const response = await app.request('GET', '/readyz');
  t.is(response.status, 503);
  t.is(response.body.checks.database, 'ok');
  t.regex(response.body.checks.temporal, /^failed: /);
});

test('metrics count requests and time them by declared route and status', async (t) => {
  const { knex } = await createTestDatabase(t);
  const app = await startTestApp(t, { knex });
  await app.request('GET', '/healthz');
  await app.request('GET', '/healthz');
  await app.request('GET', '/no/such/path/');
  const response = await app.request('GET', '/metrics');
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /^text\/plain/);
  t.true(response.text.includes('http_requests_total{method="GET",route="/healthz",status="200"} 2'));
  t.true(response.text.includes('http_requests_total{method="GET",route="unmatched",status="404"} 1'));
  t.regex(response.text, /http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/healthz",status="200"\} \d/);
});
