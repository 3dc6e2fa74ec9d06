import http from 'node:http';
import test from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';

/**
 * The causes of 500s an outside fuzzer found (issue 12, item 18), one by one: each is now a 4xx problem naming
 * the field, and nothing is written.
 */
const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
const unknownId = '7d0f3c2a-1b4e-4c5d-8e9f-0a1b2c3d4e5f';

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  world = await createLoanWorld(app, knex, 'HOS');
});

const as = (name: string) => world.users[name]!.headers;
const raw = (method: string, path: string, body: string, name = 'direction') =>
  app.request(method, path, { headers: { ...as(name), 'content-type': 'application/json' }, body });
const problem = (
  t: { is(a: unknown, b: unknown, m?: string): void; regex(a: string, b: RegExp, m?: string): void },
  response: TestResponse,
  status: number,
  field?: string,
) => {
  t.is(response.status, status, response.text.slice(0, 300));
  t.regex(response.headers.get('content-type') ?? '', /application\/problem\+json/);
  if (field !== undefined) t.is(response.body.errors?.[0]?.field, field, response.text.slice(0, 300));
};

test('prototype keys are unknown fields, in a body and in a query string', async (t) => {
  for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    problem(
      t,
      await raw(
        'POST',
        '/api/v1/shares/types/',
        `{"enterprise": "${world.enterpriseId}", "code": "003", "nominal_value": "100", "${key}": {"a": 1}}`,
      ),
      400,
      key,
    );
    problem(t, await app.request('GET', `/api/v1/members/clients/?${key}=1`, { headers: as('cashier') }), 400, key);
  }
  t.is((await knex('share_types').where({ enterprise_id: world.enterpriseId, code: '003' })).length, 0);
});

test('strict JSON types in a body: an object where a string is trimmed, [true], "12", 1e300', async (t) => {
  const client = await memberOf(world);
  problem(
    t,
    await app.request('PATCH', `/api/v1/members/clients/${client}/`, {
      headers: as('cashier'),
      json: { city: { toString: 'x' } },
    }),
    400,
    'city',
  );
  problem(
    t,
    await app.request('PATCH', `/api/v1/members/clients/${client}/`, {
      headers: as('cashier'),
      json: { city: ['Douala'] },
    }),
    400,
    'city',
  );
  problem(
    t,
    await app.request('PATCH', `/api/v1/members/clients/${client}/`, {
      headers: as('branch_head'),
      json: { politically_exposed: [true] },
    }),
    400,
    'politically_exposed',
  );
  const configuration = `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`;
  problem(
    t,
    await app.request('PATCH', configuration, {
      headers: as('direction'),
      json: { share_withdrawal_notice_days: '12' },
    }),
    400,
    'share_withdrawal_notice_days',
  );
  problem(
    t,
    await app.request('PATCH', configuration, {
      headers: as('direction'),
      json: { share_withdrawal_notice_days: 1e300 },
    }),
    400,
    'share_withdrawal_notice_days',
  );
  t.is((await app.request('GET', configuration, { headers: as('direction') })).body.share_withdrawal_notice_days, 90);
});

test('a repeated query parameter, page=1e18, a NUL byte or a lone surrogate: 400 naming the parameter', async (t) => {
  problem(
    t,
    await app.request('GET', '/api/v1/members/clients/?status=active&status=left', { headers: as('cashier') }),
    400,
    'status',
  );
  problem(t, await app.request('GET', '/api/v1/members/clients/?page=1e18', { headers: as('cashier') }), 400, 'page');
  problem(
    t,
    await app.request('GET', '/api/v1/members/clients/?search=a%00b', { headers: as('cashier') }),
    400,
    'search',
  );
  const client = await memberOf(world);
  problem(
    t,
    await app.request('PATCH', `/api/v1/members/clients/${client}/`, {
      headers: as('cashier'),
      json: { city: 'Dou\u0000ala' },
    }),
    400,
    'city',
  );
  problem(t, await raw('PATCH', `/api/v1/members/clients/${client}/`, '{"city": "\\ud800"}', 'cashier'), 400, 'city');
  t.is((await knex('client_profiles').where({ id: client }).first()).city, '');
});

test('deep nesting is refused before it is parsed, at the top or inside a field', async (t) => {
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const top = await raw('POST', '/api/v1/shares/types/', deep(300_000));
  problem(t, top, 400);
  t.is(top.body.code, 'too_deeply_nested');
  problem(
    t,
    await raw(
      'PATCH',
      `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`,
      `{"provisioning_ladder": ${deep(3000)}}`,
    ),
    400,
  );
  problem(
    t,
    await raw(
      'PATCH',
      `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`,
      `{"provisioning_ladder": ${deep(5)}}`,
    ),
    400,
    'provisioning_ladder[0]',
  );
});

test('ids that do not exist and dates out of range: 404 and 400, never a database error', async (t) => {
  // A platform administrator passes every role check: the enterprise's absence is found by the database.
  problem(
    t,
    await app.request('POST', '/api/v1/shares/types/', {
      headers: as('root'),
      json: { enterprise: unknownId, code: '001', nominal_value: '1000' },
    }),
    404,
  );
  for (const date of ['9999-12-31', '0001-01-01']) {
    problem(
      t,
      await app.request('POST', `/api/v1/loans/products/${world.productId}/simulation/`, {
        headers: as('cashier'),
        json: { amount: '100000', term_periods: 6, start_date: date },
      }),
      400,
      'start_date',
    );
  }
  problem(
    t,
    await app.request('GET', `/api/v1/enterprise/enterprises/${unknownId}/branches/`, { headers: as('root') }),
    404,
  );
});

/** One raw HTTP exchange, to see what fetch hides: the connection header, a chunked body. */
function exchange(
  options: http.RequestOptions,
  body?: string | Buffer,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const url = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, ...options }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString(),
        }),
      );
    });
    request.on('error', reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

test('a body over the limit is a 413 that closes the connection; headers too large are a 431 problem', async (t) => {
  const tooLarge = await exchange(
    {
      method: 'POST',
      path: '/api/v1/shares/types/',
      headers: { ...as('direction'), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    },
    Buffer.alloc(1024 * 1024 + 10, 0x20),
  );
  t.is(tooLarge.status, 413);
  t.is(tooLarge.headers.connection, 'close');
  const headers = await exchange({ method: 'GET', path: '/healthz', headers: { 'x-padding': 'x'.repeat(20_000) } });
  t.is(headers.status, 431);
  t.regex(String(headers.headers['content-type']), /application\/problem\+json/);
  t.is(JSON.parse(headers.text).code, 'headers_too_large');
});
