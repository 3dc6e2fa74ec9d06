import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import * as yup from 'yup';
import type { SchemaObjectDescription } from 'yup';
import { buildOpenApiDocument, genericCodes } from '../../api/openapi';
import { defineRoute } from '../../api/route';
import { apiRoutes } from '../../api/routes';
import { errorCatalogue } from '../../domain/error-catalogue';
import { contractBreach } from '../helpers/contract';
import { createTestDatabase } from '../helpers/database';
import { startTestApp } from '../helpers/app';
import { bearer, createUser } from '../helpers/users';

const createProduct = defineRoute({
  method: 'post',
  path: '/api/v1/probe/products/{product_id}/rates/',
  module: 'probe',
  operationId: 'createRate',
  summary: 'Add a rate to a product',
  access: 'public',
  status: 201,
  params: yup.object({ product_id: yup.string().uuid().required() }),
  query: yup.object({ dry_run: yup.boolean().optional().meta({ description: 'Validate only.' }) }),
  body: yup.object({
    rate: yup
      .string()
      .required()
      .matches(/^0\.\d{1,6}$/)
      .meta({ description: 'Annual rate as a decimal string.', example: '0.18' }),
    term_months: yup.number().integer().min(1).max(360).required(),
    frequency: yup.string().oneOf(['monthly', 'quarterly']).required(),
    note: yup.string().max(200).nullable().optional(),
    tags: yup.array(yup.string().required()).max(5).optional(),
  }),
  response: yup.object({ id: yup.string().uuid().required() }),
  errorStatuses: [404, 409],
  handler: () => ({ id: '6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f' }),
});
const otherModuleRoute = defineRoute({
  method: 'get',
  path: '/api/v1/other/things/',
  module: 'other',
  operationId: 'listThings',
  summary: 'List things',
  access: 'public',
  handler: () => [],
});

test('the generator states the validation rules of each declared route', (t) => {
  const document = buildOpenApiDocument([createProduct, otherModuleRoute], { title: 'T', version: '1.2.3' }) as any;
  t.is(document.openapi, '3.1.0');
  t.is(document.info.version, '1.2.3');
  const operation = document.paths['/api/v1/probe/products/{product_id}/rates/'].post;
  t.is(operation.operationId, 'createRate');
  t.deepEqual(operation.tags, ['probe']);
  t.deepEqual(operation.parameters, [
    { name: 'product_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
    { name: 'dry_run', in: 'query', required: false, description: 'Validate only.', schema: { type: 'boolean' } },
  ]);
  const body = operation.requestBody.content['application/json'].schema;
  t.deepEqual(body.required.sort(), ['frequency', 'rate', 'term_months']);
  t.deepEqual(body.properties.rate, {
    type: 'string',
    pattern: '^0\\.\\d{1,6}$',
    description: 'Annual rate as a decimal string.',
    examples: ['0.18'],
  });
  t.deepEqual(body.properties.term_months, { type: 'integer', minimum: 1, maximum: 360 });
  t.deepEqual(body.properties.frequency.enum, ['monthly', 'quarterly']);
  t.deepEqual(body.properties.note, { type: ['string', 'null'], maxLength: 200 });
  t.deepEqual(body.properties.tags, { type: 'array', maxItems: 5, items: { type: 'string' } });
  t.is(body.additionalProperties, false);
  // The statuses it declares, then those any operation with a body answers (issue 27 item 9: 405, 413, 415, 431, 503).
  t.deepEqual(Object.keys(operation.responses).sort(), [
    '201',
    '400',
    '404',
    '405',
    '409',
    '413',
    '415',
    '431',
    '500',
    '503',
  ]);
  t.deepEqual(operation.responses['201'].content['application/json'].schema.properties.id, {
    type: 'string',
    format: 'uuid',
  });
  t.is(operation.responses['409'].content['application/problem+json'].schema.$ref, '#/components/schemas/Problem');
});

test(
  'every operation documents the statuses the service answers everywhere, ' + 'as shared responses (issue 27 item 9)',
  (t) => {
    const document = buildOpenApiDocument(apiRoutes, { title: 'T', version: '1' }) as any;
    t.deepEqual(Object.keys(document.components.responses).sort(), [
      'ContentTooLarge',
      'HeadersTooLarge',
      'MethodNotAllowed',
      'UnsupportedMediaType',
    ]);
    t.deepEqual(document.components.responses.HeadersTooLarge['x-error-codes'], ['headers_too_large']);
    const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
    let pagedLists = 0;
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const where = `${method} ${path}`;
        t.deepEqual(operation.responses['405'], ref('MethodNotAllowed'), where);
        t.deepEqual(operation.responses['431'], ref('HeadersTooLarge'), where);
        const readsBody = operation.requestBody !== undefined;
        t.deepEqual(operation.responses['413'], readsBody ? ref('ContentTooLarge') : undefined, where);
        t.deepEqual(operation.responses['415'], readsBody ? ref('UnsupportedMediaType') : undefined, where);
        if (operation['x-access'] !== 'public')
          t.true(operation.responses['401']['x-error-codes'].includes('token_expired'), where);
        if (operation.parameters.some((parameter: { name: string }) => parameter.name === 'page')) {
          pagedLists += 1;
          t.true(operation.responses['404']['x-error-codes'].includes('page_not_found'), where);
        }
      }
    }
    t.true(pagedLists > 30, `only ${pagedLists} paged lists found`);
    const throttled = document.paths['/api/v1/token/'].post.responses;
    t.deepEqual(throttled['429']['x-error-codes'], ['too_many_attempts']);
    t.is(document.paths['/api/v1/auth/users/me/'].get.responses['429'], undefined, '429 only where throttled');
  },
);

test('the contract helper fails an answer at a status its operation does not document, as it does a body', (t) => {
  const problem = (status: number, code: string) => ({
    type: `urn:coopbank:problem:${code}`,
    title: 't',
    status,
    detail: 'd',
    code,
  });
  const headers = new Headers({ 'content-type': 'application/problem+json' });
  t.regex(
    contractBreach('GET', '/api/v1/auth/users/me/', 429, problem(429, 'too_many_attempts'), headers) ?? '',
    /getCurrentUser answered 429, a status it does not document/,
  );
  t.regex(
    contractBreach('POST', '/api/v1/auth/logout/', 202, '', new Headers()) ?? '',
    /logout answered 202/,
    'whatever the content type',
  );
  t.is(contractBreach('GET', '/api/v1/auth/users/me/', 431, problem(431, 'headers_too_large'), headers), undefined);
  t.is(
    contractBreach('DELETE', '/api/v1/auth/users/me/', 405, problem(405, 'method_not_allowed'), headers),
    undefined,
    'a 405 is held to its path',
  );
  t.is(contractBreach('POST', '/api/v1/token/', 429, problem(429, 'too_many_attempts'), headers), undefined);
});

test('a module document holds only that module', (t) => {
  const document = buildOpenApiDocument([createProduct, otherModuleRoute], {
    title: 'T',
    version: '1',
    module: 'other',
  }) as any;
  t.deepEqual(Object.keys(document.paths), ['/api/v1/other/things/']);
  t.deepEqual(document.tags, [{ name: 'other' }]);
});

test('operation ids of the product routes are unique', (t) => {
  const ids = apiRoutes.map((route) => route.operationId);
  t.is(new Set(ids).size, ids.length);
});

/** Answered by the router or the HTTP server to a request no operation serves (another method, oversized headers). */
const outsideOperations: readonly string[] = ['method_not_allowed', 'headers_too_large', 'not_implemented'];
/** Raised only by the month end's workflow activities: the run records the failure, no request waits for it. */
const workflowOnly: readonly string[] = ['month_end_step_pending', 'accrual_rule_unsupported'];

test(
  'every catalogue code is generic, declared in the refusals of an operation, ' +
    "or listed here as no operation's answer",
  (t) => {
    const generic = Object.values(genericCodes).flat();
    const declared = apiRoutes.flatMap((route) => route.refusals ?? []);
    const known = new Set<string>([...generic, ...declared]);
    const undocumented = Object.keys(errorCatalogue).filter(
      (code) => !known.has(code) && !outsideOperations.includes(code) && !workflowOnly.includes(code),
    );
    t.deepEqual(undocumented, [], 'declare each code in the refusals of the routes that answer it');
    t.deepEqual(
      [...outsideOperations, ...workflowOnly].filter((code) => known.has(code)),
      [],
      'a code an operation answers is no exception',
    );
  },
);

test('the app serves the whole and per-module documents and Swagger UI pages', async (t) => {
  const { knex } = await createTestDatabase(t);
  const app = await startTestApp(t, { knex, routes: [...apiRoutes, createProduct] });

  const whole = await app.request('GET', '/api/v1/schema/');
  t.is(whole.status, 200);
  t.truthy(whole.body.paths['/readyz']);
  t.truthy(whole.body.paths['/api/v1/probe/products/{product_id}/rates/']);
  t.falsy(whole.body.paths['/api/v1/schema/'], 'the docs routes do not document themselves');

  const probe = await app.request('GET', '/api/v1/probe/schema/');
  t.deepEqual(Object.keys(probe.body.paths), ['/api/v1/probe/products/{product_id}/rates/']);

  for (const path of ['/api/v1/docs/', '/api/v1/probe/docs/', '/api/v1/system/docs/']) {
    const page = await app.request('GET', path);
    t.is(page.status, 200, path);
    t.regex(page.headers.get('content-type') ?? '', /text\/html/);
    const asset = /src="(\/api\/v1\/docs\/assets\/[^"]+swagger-ui-bundle\.js)"/.exec(page.text)?.[1];
    t.truthy(asset, 'the page loads Swagger UI from this server, not a CDN');
    t.true(page.text.includes(path.replace('docs/', 'schema/')));
    const script = await app.request('GET', asset!);
    t.is(script.status, 200);
  }
  t.is((await app.request('GET', '/api/v1/docs/assets/0.0.0/swagger-ui-bundle.js')).status, 400);
  t.is((await app.request('GET', '/api/v1/nomodule/schema/')).status, 404);
});

test(
  'every module has its docs pages, events included; ' + 'ordering is declared only where a list can be sorted',
  async (t) => {
    const { knex } = await createTestDatabase(t);
    const app = await startTestApp(t, { knex });
    for (const module of ['events', 'shares', 'loans']) {
      t.is((await app.request('GET', `/api/v1/${module}/docs/`)).status, 200, module);
      t.is((await app.request('GET', `/api/v1/${module}/schema/`)).status, 200, module);
    }
    const whole = (await app.request('GET', '/api/v1/schema/')).body;
    const parameters = (path: string) =>
      (whole.paths[path].get.parameters as { name: string }[]).map((parameter) => parameter.name);
    t.false(parameters('/api/v1/members/deposits/').includes('ordering'), 'deposits come newest first, in one order');
    t.true(parameters('/api/v1/members/clients/').includes('ordering'));
  },
);

test(
  'the document declares how to sign in on every guarded operation, ' + 'and the Idempotency-Key where it is read',
  async (t) => {
    const { knex } = await createTestDatabase(t);
    const app = await startTestApp(t, { knex });
    const whole = (await app.request('GET', '/api/v1/schema/')).body;
    t.deepEqual(Object.keys(whole.components.securitySchemes).sort(), ['bearer', 'csrfHeader', 'sessionCookie']);
    for (const [path, methods] of Object.entries(
      whole.paths as Record<string, Record<string, { security?: unknown; 'x-access': unknown }>>,
    )) {
      for (const [method, operation] of Object.entries(methods)) {
        t.is((operation.security as unknown[]).length > 0, operation['x-access'] !== 'public', `${method} ${path}`);
      }
    }
    const deposit = whole.paths['/api/v1/members/accounts/{id}/deposits/'].post;
    t.true(
      deposit.parameters.some(
        (parameter: { name: string; in: string }) => parameter.name === 'Idempotency-Key' && parameter.in === 'header',
      ),
    );
    t.truthy(deposit.responses['201'].headers['Idempotent-Replayed']);
    t.false(
      whole.paths['/api/v1/members/clients/'].post.parameters.some(
        (parameter: { name: string }) => parameter.name === 'Idempotency-Key',
      ),
    );
  },
);

test(
  'every success answer is typed: a schema for each JSON 2xx, ' +
    'lists as Page components, money as Money, a Location on each 201 and 202',
  (t) => {
    const whole = buildOpenApiDocument(apiRoutes, { title: 'Coopbank API', version: 'test' }) as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            responses: Record<
              string,
              { content?: Record<string, { schema: { $ref?: string } }>; headers?: Record<string, unknown> }
            >;
          }
        >
      >;
      components: { schemas: Record<string, unknown> };
    };
    const getPaths = new Set(apiRoutes.filter((route) => route.method === 'get').map((route) => route.path));
    for (const route of apiRoutes.filter((candidate) => !candidate.hidden)) {
      const status = String(route.status ?? 200);
      const success = whole.paths[route.path]![route.method]!.responses[status]!;
      if (status === '204' || route.produces !== undefined) continue;
      t.truthy(
        success.content?.['application/json']?.schema,
        `${route.operationId} documents the schema of its ${status}`,
      );
      if (
        route.method === 'get' &&
        (route.query?.describe() as SchemaObjectDescription | undefined)?.fields.page !== undefined
      ) {
        const name = (success.content!['application/json']!.schema.$ref ?? '').replace('#/components/schemas/', '');
        const component = whole.components.schemas[name] as { required?: string[] } | undefined;
        t.deepEqual(
          ['count', 'next', 'previous', 'results'].filter((field) => component?.required?.includes(field)),
          ['count', 'next', 'previous', 'results'],
          `${route.operationId} answers a page component`,
        );
      }
      if (status === '201' || status === '202') {
        t.truthy(success.headers?.Location, `${route.operationId} documents its Location`);
        const template = route.location!.replace(/\{\w+\}/g, '{}');
        t.true(
          [...getPaths].some((path) => path.replace(/\{\w+\}/g, '{}') === template),
          `${route.operationId}'s Location ${route.location} is a readable resource`,
        );
      }
    }
    t.like(whole.components.schemas.Money, { type: 'string', pattern: '^-?\\d+$' });
    t.like(whole.components.schemas.CashOperationPage, {
      type: 'object',
      required: ['count', 'next', 'previous', 'results'],
    });
    t.false(JSON.stringify(whole).includes('"default":{}'), 'no implicit default of yup objects');
    const readiness = whole.paths['/readyz']!.get!.responses;
    t.deepEqual(
      readiness['503']!.content?.['application/json']?.schema,
      { $ref: '#/components/schemas/Readiness' },
      'not ready: the same body, naming the failing check',
    );
  },
);

test('the Location of a created resource answers the resource', async (t) => {
  const { knex } = await createTestDatabase(t);
  const app = await startTestApp(t, { knex });
  await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  const root = await bearer(app, 'root');
  const created = await app.request('POST', '/api/v1/enterprise/enterprises/', {
    headers: root,
    json: { code: 'LOC1', name: 'Coop Location', legal_form: 'Coopérative', country: 'CM' },
  });
  t.is(created.status, 201, created.text);
  const location = created.headers.get('location');
  t.is(location, `/api/v1/enterprise/enterprises/${created.body.id}/`);
  const read = await app.request('GET', location!, { headers: root });
  t.is(read.status, 200);
  t.is(read.body.id, created.body.id);
});

test('redocly lint (recommended rules) finds no error in the document', async (t) => {
  const folder = await mkdtemp(path.join(tmpdir(), 'openapi-lint-'));
  t.teardown(() => rm(folder, { recursive: true, force: true }));
  const document = path.join(folder, 'openapi.json');
  await writeFile(
    document,
    JSON.stringify(buildOpenApiDocument(apiRoutes, { title: 'Coopbank API', version: '1.0.0' })),
  );
  const root = path.join(__dirname, '../..');
  const lint = await promisify(execFile)(
    path.join(root, 'node_modules/.bin/redocly'),
    ['lint', '--config', path.join(root, 'redocly.yaml'), '--format=summary', document],
    {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  ).catch((failure: { stdout: string; stderr: string }) => failure);
  t.notRegex(lint.stdout + lint.stderr, /^error /m, lint.stdout + lint.stderr);
  t.regex(lint.stdout + lint.stderr, /Your API description is valid/);
});
