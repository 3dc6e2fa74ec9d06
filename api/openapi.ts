import type { Schema } from 'yup';
import { reportContentTypes } from '../activities/report-files';
import { errorCatalogue, type ProblemCode } from '../domain/error-catalogue';
import { idempotencyKeyPattern } from './idempotency-key';
import { statusOfKind } from './problem';
import { toJsonSchema, type Components, type JsonSchema } from './json-schema';
import type { AnyRoute } from './route';

export const apiTitle = 'Coopbank API';

export interface OpenApiOptions {
  title: string;
  version: string;
  /** Only the routes of this module; all modules when omitted. */
  module?: string;
}

const problemSchema: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details. Branch on `code`; `errors` lists invalid fields.',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', description: 'Stable machine-readable error code.' },
    instance: { type: 'string' },
    request_id: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { field: { type: 'string' }, message: { type: 'string' } },
        required: ['field', 'message'],
      },
    },
  },
  required: ['type', 'title', 'status', 'detail', 'code'],
};

const errorDescriptions: Record<number, string> = {
  400: 'Invalid request: see `errors` for the fields.',
  401: 'Not signed in.',
  403: 'Signed in, but not allowed.',
  404: 'Not found (or not visible to this user).',
  409: 'Refused by the current state.',
  412: 'The resource changed since the version named by If-Match: read it again.',
  413: 'Request body too large.',
  405: 'The path does not serve this method: `Allow` lists those it serves.',
  415: 'Request body is not JSON.',
  422: 'Breaks a business rule.',
  429: 'Too many requests.',
  431: 'Request headers too large.',
  500: 'Unexpected error: quote the request id to support.',
  503: 'A dependency is unavailable.',
};

/** The codes any route can answer at a status (the router, the body reader, the session, the dependencies). */
export const genericCodes: Record<number, readonly ProblemCode[]> = {
  400: ['invalid_request', 'malformed_json', 'too_deeply_nested', 'invalid_value'],
  401: ['not_authenticated', 'token_expired', 'token_invalid', 'token_revoked'],
  403: ['role_required', 'csrf_failed'],
  404: ['not_found'],
  412: ['precondition_failed'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  500: ['internal_error'],
  503: ['database_unavailable', 'database_busy'],
};

/** A list read page by page (api/pagination.ts): a page past the last is a 404 `page_not_found`. */
const isPaged = (route: AnyRoute): boolean =>
  (route.query?.describe() as { fields?: Record<string, unknown> } | undefined)?.fields?.page !== undefined;

/** The codes an operation documents at an error status: the generic ones of the status, then its own refusals. */
const codesAt = (route: AnyRoute, status: number): ProblemCode[] => [
  ...new Set([
    ...(genericCodes[status] ?? []),
    ...(status === 404 && isPaged(route) ? ['page_not_found' as const] : []),
    ...(route.refusals ?? []).filter((code) => statusOfKind[errorCatalogue[code].kind] === status),
  ]),
];

/**
 * The statuses every operation of its kind can answer, whatever its declaration says: the session's (401, and
 * 403 for a role or a cookie session's CSRF proof), a resource or page not found (404), a dependency out of
 * reach (503: the database, for every route but liveness and metrics).
 */
function implicitStatuses(route: AnyRoute): number[] {
  const signedIn = route.access !== 'public';
  return [
    ...(signedIn ? [401] : []),
    ...(Array.isArray(route.access) || (signedIn && route.method !== 'get') ? [403] : []),
    ...(route.params !== undefined || isPaged(route) ? [404] : []),
    ...(route.module === 'system' ? [] : [503]),
  ];
}

/** A problem answer documented once (components/responses) and referenced by every operation that can answer it. */
const problemResponse = (status: number, code: ProblemCode): JsonSchema => ({
  description: errorDescriptions[status],
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  'x-error-codes': [code],
});

/**
 * The protocol's refusals, answered before a route runs (api/middleware/errors.ts, api/json-body.ts, Node's
 * HTTP parser in runtime/services.ts): the same on every operation, so each references one shared response.
 */
const sharedResponses: Record<string, { status: number; response: JsonSchema; applies: (route: AnyRoute) => boolean }> =
  {
    MethodNotAllowed: { status: 405, response: problemResponse(405, 'method_not_allowed'), applies: () => true },
    ContentTooLarge: {
      status: 413,
      response: problemResponse(413, 'payload_too_large'),
      applies: (route) => route.body !== undefined || route.upload !== undefined,
    },
    UnsupportedMediaType: {
      status: 415,
      response: problemResponse(415, 'unsupported_media_type'),
      applies: (route) => route.body !== undefined || route.upload !== undefined,
    },
    HeadersTooLarge: { status: 431, response: problemResponse(431, 'headers_too_large'), applies: () => true },
  };

/** What each module (an OpenAPI tag, a folder per layer) is about. */
const moduleDescriptions: Record<string, string> = {
  auth: 'Sign-in, sessions, users and their roles.',
  enterprise: 'Cooperatives, branches, accounting years (exercices), configuration, profile and governance.',
  accounts:
    'Charts of accounts (PCEMF 2010 and each enterprise’s) and the ledger reads: journal entries, movements, balances.',
  events: 'Business events, the accounting rule of each kind, and their replays.',
  members: 'Members (clients), savings products, members’ accounts (comptes clients) and the cash that moves on them.',
  loans: 'Loan products, applications and their approval circuit, loans, repayments, guarantees, provisioning.',
  shares: 'Share capital: share types, subscriptions, payments (libérations), withdrawals, the register.',
  system: 'Liveness, readiness and metrics.',
  imports:
    'Moving a cooperative onto Coopbank (issue 31): go-live imports, ' +
    'their templates, file uploads, validation and its report.',
  accounting: "The cooperative's own books (issue 28): suppliers, their expense invoices and payments.",
  cash:
    "Cash and the working day (issue 29): tills, the vault and the cashiers' till " +
    'sessions with their counts, transfers between members and standing orders, the ' +
    "liaison between branches, the branch's day and its close before the end of day.",
};

/** Builds the OpenAPI 3.1 document of `routes` (or one module of them) from their declarations. */
export function buildOpenApiDocument(routes: readonly AnyRoute[], options: OpenApiOptions): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const components: Components = { Problem: problemSchema };
  const visible = routes.filter(
    (route) => !route.hidden && (options.module === undefined || route.module === options.module),
  );
  const readable = new Set(routes.filter((route) => route.method === 'get').map((route) => route.path));
  const editable = new Set(routes.filter((route) => route.method === 'patch').map((route) => route.path));
  for (const route of visible) {
    paths[route.path] ??= {};
    // As the router does (api/conditional.ts): If-Match on a PATCH whose path a GET serves, an ETag on that GET.
    const versioning = {
      conditional: route.method === 'patch' && readable.has(route.path),
      versioned: route.method === 'get' && editable.has(route.path),
    };
    paths[route.path]![route.method] = operation(route, components, versioning);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: options.module === undefined ? options.title : `${options.title}: ${options.module}`,
      version: options.version,
    },
    // Paths are absolute (/api/v1/…): the document is served by, and describes, the server that serves it.
    servers: [{ url: '/', description: 'The server serving this document' }],
    tags: [...new Set(visible.map((route) => route.module))].sort().map((name) =>
      moduleDescriptions[name] === undefined
        ? { name }
        : {
            name,
            description: moduleDescriptions[name],
          },
    ),
    paths,
    components: {
      schemas: sortedByName(components),
      responses: Object.fromEntries(Object.entries(sharedResponses).map(([name, { response }]) => [name, response])),
      securitySchemes,
    },
  };
}

/**
 * How a client signs in: a Bearer access token, or the browser's session cookie with the CSRF header on unsafe
 * methods (Secure cookies are `__Host-access_token`; `access_token` in local development over plain HTTP).
 */
const securitySchemes: JsonSchema = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The `access` token of POST /api/v1/token/.',
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: '__Host-access_token',
    description: 'Set by POST /api/v1/auth/login/.',
  },
  csrfHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-CSRF-Token',
    description: "The CSRF cookie's value, on POST, PATCH, PUT and DELETE of a cookie session.",
  },
};

const idempotencyKeyParameter: JsonSchema = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'A retry with the same key and body answers the first result and ' +
    'moves nothing; the same key with another body is refused (409).',
  schema: { type: 'string', pattern: idempotencyKeyPattern.source },
};

const ifMatchParameter: JsonSchema = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'The ETag of the version read: the change applies only if nobody changed the resource since (412 otherwise).',
  schema: { type: 'string' },
};

const downloadContent: JsonSchema = {
  [reportContentTypes.csv.split(';')[0]!]: {
    schema: {
      type: 'string',
      description: 'format=csv: UTF-8 with a byte-order mark, `;`-separated, the header block then each sheet.',
    },
  },
  [reportContentTypes.xlsx]: {
    schema: {
      type: 'string',
      contentMediaType: reportContentTypes.xlsx,
      description: 'format=xlsx: a workbook, a sheet per table.',
    },
  },
};

const etagHeader: JsonSchema = {
  description: 'The version of this representation, for If-Match on a later PATCH.',
  schema: { type: 'string' },
};

interface Versioning {
  /** A PATCH that honours If-Match. */
  conditional: boolean;
  /** A GET whose answer carries the ETag a PATCH names. */
  versioned: boolean;
}

function operation(route: AnyRoute, components: Components, versioning: Versioning): JsonSchema {
  const op: JsonSchema = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.module],
    'x-access': route.access,
    parameters: [
      ...parameters(route.params, 'path'),
      ...parameters(route.query, 'query'),
      ...(route.idempotent === true ? [idempotencyKeyParameter] : []),
      ...(versioning.conditional ? [ifMatchParameter] : []),
    ],
    responses: responses(route, components, versioning),
  };
  // An empty list says "no sign-in" explicitly: generators and Swagger UI then send no credentials.
  op.security =
    route.access === 'public'
      ? []
      : [{ bearer: [] }, { sessionCookie: [], ...(route.method === 'get' ? {} : { csrfHeader: [] }) }];
  if (route.description !== undefined) op.description = route.description;
  if (route.body !== undefined) {
    op.requestBody = { required: true, content: { 'application/json': { schema: toJsonSchema(route.body) } } };
  }
  if (route.upload !== undefined) {
    op.requestBody = {
      required: true,
      content: Object.fromEntries(
        route.upload.map((mediaType) => [mediaType, { schema: { type: 'string', format: 'binary' } }]),
      ),
    };
  }
  return op;
}

function parameters(schema: Schema<unknown> | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (schema === undefined) return [];
  const objectSchema = toJsonSchema(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(objectSchema.properties ?? {}).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    const parameter: JsonSchema = {
      name,
      in: location,
      required: location === 'path' || (objectSchema.required ?? []).includes(name),
      schema: propertySchema,
    };
    if (description !== undefined) parameter.description = description;
    return parameter;
  });
}

/** The headers of a route's success answer: a download's file name, Location, Idempotent-Replayed, ETag. */
function successHeaders(route: AnyRoute, versioned: boolean): JsonSchema {
  const headers: JsonSchema = {};
  if (route.downloadable === true)
    headers['Content-Disposition'] = {
      description: 'With format=csv or xlsx: `attachment; filename="<report>-<enterprise>-<date>.<format>"`.',
      schema: { type: 'string' },
    };
  if (route.location !== undefined)
    headers.Location = {
      description: `Where the resource is read: ${route.location}`,
      required: true,
      schema: { type: 'string', format: 'uri-reference' },
    };
  if (route.idempotent === true)
    headers['Idempotent-Replayed'] = {
      description: '`true` when the answer is the first result of the same key: nothing moved again.',
      schema: { type: 'string', enum: ['true'] },
    };
  if (versioned) headers.ETag = etagHeader;
  return headers;
}

function responses(route: AnyRoute, components: Components, { conditional, versioned }: Versioning): JsonSchema {
  const status = String(route.status ?? 200);
  const mediaTypes = [route.produces ?? 'application/json'].flat();
  const success: JsonSchema = { description: route.summary };
  if (route.response !== undefined || route.produces !== undefined) {
    const schema = route.response === undefined ? { type: 'string' } : toJsonSchema(route.response, components);
    success.content = Object.fromEntries(mediaTypes.map((mediaType) => [mediaType.split(';')[0]!, { schema }]));
  }
  // The same figures as a file (api/report-download.ts): `format=csv` or `format=xlsx`.
  if (route.downloadable === true) success.content = { ...(success.content as JsonSchema), ...downloadContent };
  const headers = successHeaders(route, versioned);
  if (Object.keys(headers).length > 0) success.headers = headers;
  const result: JsonSchema = { [status]: success };
  if (route.accepted !== undefined) {
    // Four eyes: the change is held as a request until another authorised user approves it (docs/architecture.md §7).
    result['202'] = {
      description: "Held for a second person's approval: the approval request, its detail at Location.",
      headers: {
        Location: {
          description: 'The request: /api/v1/approvals/requests/{id}/',
          required: true,
          schema: { type: 'string', format: 'uri-reference' },
        },
      },
      content: { 'application/json': { schema: toJsonSchema(route.accepted, components) } },
    };
  }
  for (const other of route.sameBodyStatuses ?? [])
    result[String(other)] = { description: errorDescriptions[other] ?? 'Error.', content: success.content };
  const refusalStatuses = (route.refusals ?? []).map((code) => statusOfKind[errorCatalogue[code].kind]);
  const errorStatuses = new Set([
    ...(route.errorStatuses ?? []),
    ...refusalStatuses,
    ...implicitStatuses(route),
    500,
    ...(conditional ? [412] : []),
  ]);
  if (route.params !== undefined || route.query !== undefined || route.body !== undefined) errorStatuses.add(400);
  const shared = Object.entries(sharedResponses).filter(([, { applies }]) => applies(route));
  for (const [name, { status: sharedStatus }] of shared) {
    errorStatuses.delete(sharedStatus);
    result[String(sharedStatus)] = { $ref: `#/components/responses/${name}` };
  }
  for (const errorStatus of [...errorStatuses].sort()) {
    result[String(errorStatus)] = {
      description: errorDescriptions[errorStatus] ?? 'Error.',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      // The problem's `code`s at this status (domain/error-catalogue.ts), for a client to switch on.
      'x-error-codes': codesAt(route, errorStatus),
    };
  }
  return result;
}

const sortedByName = (components: Components): Components =>
  Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)));
