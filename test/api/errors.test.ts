import test from 'ava';
import * as yup from 'yup';
import { AppError } from '../../domain/errors';
import { defineRoute, type AnyRoute } from '../../api/route';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/app';
import { fileTeardown } from '../helpers/teardown';

const bodyLimitBytes = 2048;

// A small module of its own exercises the error paths of the shared middleware and router.
const probeRoutes: AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/api/v1/probe/transfers/',
    module: 'probe',
    operationId: 'createTransfer',
    summary: 'Echo a validated transfer',
    access: 'public',
    status: 201,
    body: yup.object({
      amount: yup.string().required().matches(/^\d+$/, 'amount must be a whole number of francs'),
      reference: yup.string().required().max(10),
      label: yup.string().max(40).optional(),
      note: yup.string().max(200).optional(),
    }),
    handler: ({ body }) => body,
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/probe/items/{id}/',
    module: 'probe',
    operationId: 'getItem',
    summary: 'Fail in a chosen way',
    access: 'public',
    params: yup.object({ id: yup.string().uuid().required() }),
    handler: () => {
      throw new AppError('conflict', 'insufficient_funds', 'The balance does not cover 5000 XAF.');
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/probe/crash/',
    module: 'probe',
    operationId: 'crash',
    summary: 'Throw a programming error',
    access: 'public',
    handler: () => {
      throw new Error('secret internal detail at /srv/app.ts:42');
    },
  }),
];

let app: TestApp;
const file = fileTeardown(test);
test.before(async () => {
  const { knex } = await createTestDatabase(file);
  app = await startTestApp(file, { knex, routes: probeRoutes, bodyLimitBytes });
});

function assertProblem(
  t: import('ava').ExecutionContext,
  response: { status: number; headers: Headers; body: any },
  status: number,
  code: string,
) {
  t.is(response.status, status);
  t.is(response.headers.get('content-type'), 'application/problem+json');
  t.is(response.body.status, status);
  t.is(response.body.code, code);
  t.is(response.body.type, `urn:coopbank:problem:${code}`);
  t.is(typeof response.body.title, 'string');
  t.is(response.body.request_id, response.headers.get('x-request-id'));
}

test('a valid request passes through with the declared status', async (t) => {
  const response = await app.request('POST', '/api/v1/probe/transfers/', { json: { amount: '5000', reference: 'R1' } });
  t.is(response.status, 201);
  t.deepEqual(response.body, { amount: '5000', reference: 'R1' });
});

test('malformed JSON is a 400 malformed_json', async (t) => {
  const response = await app.request('POST', '/api/v1/probe/transfers/', {
    body: '{"amount": ',
    headers: { 'content-type': 'application/json' },
  });
  assertProblem(t, response, 400, 'malformed_json');
});

test('a body that is not valid UTF-8 is a 400 malformed_json, never stored with U+FFFD in its place', async (t) => {
  const body = Buffer.concat([
    Buffer.from('{"amount": "5000", "reference": "R'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('"}'),
  ]);
  const response = await app.request('POST', '/api/v1/probe/transfers/', {
    body,
    headers: { 'content-type': 'application/json' },
  });
  assertProblem(t, response, 400, 'malformed_json');
  t.regex(response.body.detail, /UTF-8/);
  const overlong = Buffer.concat([
    Buffer.from('{"amount": "5000", "reference": "'),
    Buffer.from([0xc0, 0xaf]),
    Buffer.from('"}'),
  ]);
  assertProblem(
    t,
    await app.request('POST', '/api/v1/probe/transfers/', {
      body: overlong,
      headers: { 'content-type': 'application/json' },
    }),
    400,
    'malformed_json',
  );
});

test(
  'control characters and ANSI escapes are a 400 naming the ' + 'field; free text may span lines, names and labels not',
  async (t) => {
    const transfer = (extra: Record<string, string>) =>
      app.request('POST', '/api/v1/probe/transfers/', { json: { amount: '5000', reference: 'R1', ...extra } });
    for (const [extra, field] of [
      [{ label: '\u001b[31mrouge\u001b[0m' }, 'label'],
      [{ label: 'a\u009b2Jb' }, 'label'],
      [{ label: 'bell\u0007' }, 'label'],
      [{ reference: 'R\u007f' }, 'reference'],
      [{ note: 'next\u0085line' }, 'note'],
      [{ label: 'two\nlines' }, 'label'],
      [{ label: 'a\ttab' }, 'label'],
    ] as const) {
      const response = await transfer(extra);
      assertProblem(t, response, 400, 'invalid_request');
      t.deepEqual(
        response.body.errors.map((error: { field: string }) => error.field),
        [field],
        JSON.stringify(extra),
      );
    }
    const multiLine = await transfer({ label: 'Épargne été', note: 'first line\r\nsecond\tcolumn' });
    t.is(multiLine.status, 201, 'a note may hold line breaks and tabs');
    t.is(multiLine.body.note, 'first line\r\nsecond\tcolumn');
  },
);

test('invalid fields are a 400 listing every field with its message', async (t) => {
  const response = await app.request('POST', '/api/v1/probe/transfers/', {
    json: { amount: '-5', reference: 'far too long a reference' },
  });
  assertProblem(t, response, 400, 'invalid_request');
  t.deepEqual(response.body.errors.map((error: { field: string }) => error.field).sort(), ['amount', 'reference']);
  t.true(
    response.body.errors.some(
      (error: { message: string }) => error.message === 'amount must be a whole number of francs',
    ),
  );
});

test('a missing body reports each required field', async (t) => {
  const response = await app.request('POST', '/api/v1/probe/transfers/');
  assertProblem(t, response, 400, 'invalid_request');
  t.deepEqual(response.body.errors.map((error: { field: string }) => error.field).sort(), ['amount', 'reference']);
});

test('a JSON array where an object is expected names the body', async (t) => {
  const response = await app.request('POST', '/api/v1/probe/transfers/', { json: [1, 2] });
  assertProblem(t, response, 400, 'invalid_request');
  t.is(response.body.errors[0].field, 'body');
});

test('an invalid path parameter is a 400 naming it', async (t) => {
  const response = await app.request('GET', '/api/v1/probe/items/not-a-uuid/');
  assertProblem(t, response, 400, 'invalid_request');
  t.is(response.body.errors[0].field, 'id');
});

test('an AppError maps by kind and keeps its code and message', async (t) => {
  const response = await app.request('GET', '/api/v1/probe/items/6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f/');
  assertProblem(t, response, 409, 'insufficient_funds');
  t.is(response.body.detail, 'The balance does not cover 5000 XAF.');
});

test('an unknown path is a 404 route_not_found', async (t) => {
  assertProblem(t, await app.request('GET', '/api/v1/nowhere/'), 404, 'route_not_found');
});

test('a wrong method is a 405 with Allow', async (t) => {
  const response = await app.request('DELETE', '/api/v1/probe/transfers/');
  assertProblem(t, response, 405, 'method_not_allowed');
  t.is(response.headers.get('allow'), 'POST');
});

test('a body over the limit is a 413, read no further than the limit', async (t) => {
  const response = await app.request('POST', '/api/v1/probe/transfers/', {
    json: { amount: '1', reference: 'x'.repeat(bodyLimitBytes) },
  });
  assertProblem(t, response, 413, 'payload_too_large');
});

test('a body that is not JSON is a 415', async (t) => {
  const response = await app.request('POST', '/api/v1/probe/transfers/', {
    body: 'amount=5',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assertProblem(t, response, 415, 'unsupported_media_type');
});

test('an unexpected error is a generic 500 with the request id and no internal detail', async (t) => {
  const id = '0b8f5f52-6a1e-4d3c-9f2a-1c2d3e4f5a6b';
  const response = await app.request('GET', '/api/v1/probe/crash/', { headers: { 'x-request-id': id } });
  assertProblem(t, response, 500, 'internal_error');
  t.is(response.body.request_id, id);
  t.true(response.body.detail.includes(id));
  t.false(response.text.includes('secret internal detail'));
  t.false(response.text.includes('.ts'));
});

test('an unsafe incoming request id is replaced by a generated one', async (t) => {
  for (const unsafe of ['bad id\twith "quotes"', 'support-ticket-42', 'x'.repeat(36)]) {
    const response = await app.request('GET', '/api/v1/nowhere/', { headers: { 'x-request-id': unsafe } });
    t.regex(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    t.not(response.headers.get('x-request-id'), unsafe);
  }
});
