import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument, genericCodes } from '../../api/openapi';
import type { JsonSchema } from '../../api/json-schema';
import { apiRoutes } from '../../api/routes';

/**
 * The OpenAPI document as a contract every test's answers are held to: a 2xx JSON answer must match the schema
 * its operation documents, and a problem must carry a code its operation lists at that status (`x-error-codes`),
 * or the test that received it fails; so must any answer at a status its operation does not document (a 405 is
 * held to the operations of its path). Every API test thereby checks the contract a generated client relies on,
 * field by field (the schemas forbid undocumented fields), and the codes it may switch on.
 */

interface OperationContract {
  method: string;
  operationId: string;
  pattern: RegExp;
  /** Literal segments of the template: `/events/replays/` wins over `/events/{id}/`, as in the router. */
  literals: number;
  responses: Map<string, JsonSchema>;
  /** Statuses whose answer must carry a `Location` header. */
  locatedStatuses: Set<string>;
  /** The problem codes documented at each error status. */
  errorCodes: Map<string, readonly string[]>;
  /** Every status documented, shared responses included. */
  statuses: Set<string>;
}

type OpenApiResponse = {
  content?: Record<string, { schema: JsonSchema }>;
  headers?: Record<string, unknown>;
  'x-error-codes'?: string[];
};

interface OpenApiOperation {
  operationId: string;
  responses: Record<string, OpenApiResponse | { $ref: string }>;
}

const document = buildOpenApiDocument(apiRoutes, { title: 'contract', version: 'test' }) as {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema>; responses: Record<string, OpenApiResponse> };
};

/** A response as written, or the shared one (components/responses) it references. */
const resolved = (response: OpenApiResponse | { $ref: string }): OpenApiResponse =>
  '$ref' in response ? document.components.responses[response.$ref.replace('#/components/responses/', '')]! : response;

// The document's references point at `#/components/schemas/X`; ajv resolves them in a schema of its own.
const componentsId = 'https://coopbank.test/components.json';
const relocated = (schema: JsonSchema): JsonSchema =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${componentsId}#/$defs/`)) as JsonSchema;

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, keywords: ['example'] });
addFormats(ajv);
ajv.addSchema({ $id: componentsId, $defs: relocated(document.components.schemas) });

/** A segment of a path template as a pattern: a {parameter} matches any one segment, the rest only itself. */
const segmentPattern = (segment: string): string =>
  /^\{.+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

const operations: OperationContract[] = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => {
    const segments = path.split('/');
    const responses = new Map<string, JsonSchema>();
    const locatedStatuses = new Set<string>();
    const errorCodes = new Map<string, readonly string[]>();
    for (const [status, written] of Object.entries(operation.responses)) {
      const response = resolved(written);
      if (response['x-error-codes'] !== undefined) errorCodes.set(status, response['x-error-codes']);
      const schema = response.content?.['application/json']?.schema;
      if (status.startsWith('2') && schema !== undefined) responses.set(status, schema);
      if (response.headers?.Location !== undefined) locatedStatuses.add(status);
    }
    return {
      method: method.toUpperCase(),
      operationId: operation.operationId,
      pattern: new RegExp(`^${segments.map(segmentPattern).join('/')}$`),
      literals: segments.filter((segment) => segment !== '' && !segment.startsWith('{')).length,
      responses,
      locatedStatuses,
      errorCodes,
      statuses: new Set(Object.keys(operation.responses)),
    };
  }),
);

const validators = new Map<string, ValidateFunction>();

function validatorOf(operation: OperationContract, status: string, schema: JsonSchema): ValidateFunction {
  const key = `${operation.operationId} ${status}`;
  let validate = validators.get(key);
  if (validate === undefined) {
    validate = ajv.compile(relocated(schema));
    validators.set(key, validate);
  }
  return validate;
}

/**
 * The operation the router serves for a request, or undefined (the docs pages, unknown paths). A method the
 * path does not serve (a 405) is held to the path's first operation: every one documents the same 405.
 */
function operationFor(method: string, target: string, status: number): OperationContract | undefined {
  const path = target.split('?')[0]!;
  // The docs pages are served before the product routes (api/docs.ts): /events/schema/ is no event.
  if (/^\/api\/v1\/(?:[a-z-]+\/)?(?:schema|docs)\/$|^\/api\/v1\/docs\/assets\//.test(path)) return undefined;
  return operations
    .filter(
      (operation) => (operation.method === method.toUpperCase() || status === 405) && operation.pattern.test(path),
    )
    .sort((a, b) => b.literals - a.literals)[0];
}

/**
 * Why a problem breaks its operation's documented codes, or undefined when its code is listed at its status.
 * At a status the operation does not document, only the generic codes of the status pass: every route can
 * answer them (the database out of reach is a 503 anywhere), whether or not its spec names the status.
 */
function problemBreach(operation: OperationContract, status: number, body: unknown): string | undefined {
  const code = (body as { code?: unknown }).code as string;
  const codes = operation.errorCodes.get(String(status)) ?? genericCodes[status] ?? [];
  if (codes.includes(code)) return undefined;
  return (
    `${operation.operationId} answered ${status} with code ${code}, which its x-error-codes at ${status} ` +
    `do not list (${codes.join(', ') || 'none'}): declare it in the route's refusals`
  );
}

/**
 * Why a JSON answer breaks its operation's documented schema, headers or problem codes, or undefined when it
 * matches (or nothing is documented).
 */
export function contractBreach(
  method: string,
  target: string,
  status: number,
  body: unknown,
  headers: Headers,
): string | undefined {
  const operation = operationFor(method, target, status);
  if (operation === undefined) return undefined;
  if (!operation.statuses.has(String(status)))
    return (
      `${operation.operationId} answered ${status}, ` +
      `a status it does not document (${[...operation.statuses].join(', ')})`
    );
  if (!/json/.test(headers.get('content-type') ?? '')) return undefined;
  if (status >= 400 && /^application\/problem\+json/.test(headers.get('content-type') ?? ''))
    return problemBreach(operation, status, body);
  if (status < 200 || status > 299) return undefined;
  const schema = operation.responses.get(String(status));
  if (operation.locatedStatuses.has(String(status)) && headers.get('location') === null)
    return `${operation.operationId} answered ${status} without its Location header`;
  if (schema === undefined)
    return operation.responses.size === 0
      ? undefined
      : `${operation.operationId} answered ${status}, which it does not document`;
  const validate = validatorOf(operation, String(status), schema);
  if (validate(body)) return undefined;
  const errors = (validate.errors ?? [])
    .slice(0, 5)
    .map((error) => `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
  return `${operation.operationId} answered ${status} outside its documented schema: ${errors.join('; ')}`;
}
