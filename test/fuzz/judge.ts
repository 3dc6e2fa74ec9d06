import type { FuzzRequest } from './attacks';
import type { RawResponse } from './http';
import { textViolation, violation, type Operation } from './schema';

/** Why the request must be refused; an unknown parent id of a list may instead answer an empty page. */
export interface Refusal {
  reason: string;
  emptyPageAllowed?: boolean;
}

const decode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // as a router that cannot decode it leaves it
  }
};

const isJsonMediaType = (contentType: string | undefined): boolean => {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || /^application\/[^/]+\+json$/.test(media);
};

/**
 * Whether the OpenAPI document says this request must be refused: a bogus token on a guarded operation, a
 * path, query or body that breaks the declared parameters and schema, a body that is not JSON or is over
 * the limit. Undefined when it may be valid: then any answer but a 5xx will do.
 */
export function mustRefuse(
  op: Operation,
  request: FuzzRequest,
  known: Set<string>,
  bodyLimitBytes: number,
): Refusal | undefined {
  if (request.bogusAuthorization !== undefined && op.access !== 'public')
    return { reason: `the token is bogus (${request.bogusAuthorization.name})` };
  for (const parameter of op.pathParams) {
    const value = decode(request.pathValues[parameter.name]!);
    const broken = textViolation(parameter.schema, value, `path ${parameter.name}`);
    if (broken !== undefined) return { reason: broken };
    if (!known.has(value))
      return { reason: `path ${parameter.name} is no known resource`, emptyPageAllowed: op.isList };
  }
  const query = queryRefusal(op, request.query);
  if (query !== undefined) return { reason: query };
  return op.body === undefined ? undefined : bodyRefusal(op, request, bodyLimitBytes);
}

/** An operation without query parameters ignores a query string: only declared parameters are judged. */
function queryRefusal(op: Operation, query: [string, string][]): string | undefined {
  if (op.queryParams.length === 0) return undefined;
  const given = new URLSearchParams(query.map(([key, value]) => `${key}=${value}`).join('&'));
  for (const key of new Set(given.keys())) {
    const parameter = op.queryParams.find((candidate) => candidate.name === key);
    if (parameter === undefined) return `query ${JSON.stringify(key)} is not a declared parameter`;
    if (given.getAll(key).length > 1) return `query ${key} is given more than once`;
    const broken = textViolation(parameter.schema, given.get(key)!, `query ${key}`);
    if (broken !== undefined) return broken;
  }
  const missing = op.queryParams.find((parameter) => parameter.required && !given.has(parameter.name));
  return missing === undefined ? undefined : `query ${missing.name} is required`;
}

function bodyRefusal(op: Operation, request: FuzzRequest, bodyLimitBytes: number): Refusal | undefined {
  if (request.body === undefined || request.body === '') return undefined;
  if (!isJsonMediaType(request.contentType))
    return { reason: `the body is ${request.contentType ?? 'of no media type'}, not JSON` };
  if (Buffer.byteLength(request.body) > bodyLimitBytes) return { reason: 'the body is over the limit' };
  let value: unknown;
  try {
    value = JSON.parse(request.body);
  } catch {
    return { reason: 'the body is not valid JSON' };
  }
  const broken = violation(op.body!, value, 'body');
  return broken === undefined ? undefined : { reason: broken };
}

/**
 * What is wrong with the answer, if anything: none, a 5xx, a success where a refusal is due, a 4xx not in problem+json.
 */
export function faultOf(response: RawResponse, refusal: Refusal | undefined): string | undefined {
  if (response.status === 0) return `no answer (${response.text})`;
  if (response.status >= 500) return `${response.status} answer`;
  if (
    response.status >= 200 &&
    response.status < 300 &&
    refusal !== undefined &&
    !(refusal.emptyPageAllowed && isEmptyPage(response.text))
  ) {
    return `accepted with ${response.status} though ${refusal.reason}`;
  }
  if (response.status >= 400 && !/^application\/problem\+json/i.test(response.contentType))
    return `${response.status} answer in ${response.contentType || 'no media type'}, not application/problem+json`;
  return undefined;
}

function isEmptyPage(text: string): boolean {
  try {
    const page = JSON.parse(text) as { count?: unknown; results?: unknown };
    return page.count === 0 && Array.isArray(page.results) && page.results.length === 0;
  } catch {
    return false;
  }
}
