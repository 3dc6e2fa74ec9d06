import type { Context } from 'koa';
import { databaseUnavailability } from '../db/errors';
import type { ProblemCode, ProblemKind } from '../domain/error-catalogue';
import type { FieldError } from '../domain/errors';

/** RFC 9457 problem details, with the product's stable `code` and the request id for support. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance: string;
  request_id: string;
  errors?: readonly FieldError[];
}

export const statusOfKind: Record<ProblemKind, number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
  method_not_allowed: 405,
  content_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  internal: 500,
  not_implemented: 501,
};

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

export function sendProblem(
  ctx: Context,
  status: number,
  code: ProblemCode,
  detail: string,
  errors?: readonly FieldError[],
): void {
  const problem: Problem = {
    // A stable, dereferenceable-in-principle identifier per code; clients should branch on `code`.
    type: `urn:coopbank:problem:${code}`,
    title: titles[status] ?? 'Error',
    status,
    detail,
    code,
    instance: ctx.path,
    request_id: String(ctx.state.requestId ?? ''),
  };
  if (errors !== undefined && errors.length > 0) problem.errors = errors;
  // A dependency out of reach or saturated: the client may retry the same request (with its Idempotency-Key).
  if (status === 503) ctx.set('Retry-After', String(unavailableRetryAfterSeconds));
  ctx.status = status;
  ctx.type = 'application/problem+json';
  ctx.body = problem;
}

/** How long a client should wait before retrying a 503: about the time a restarted database or Temporal needs. */
const unavailableRetryAfterSeconds = 5;

const databaseProblems = {
  unreachable: {
    code: 'database_unavailable',
    detail: 'The database is unreachable. Try again shortly (a money movement with the same Idempotency-Key).',
  },
  busy: {
    code: 'database_busy',
    detail:
      'The database is too busy to answer in time. Try again shortly (a money movement with the same Idempotency-Key).',
  },
} as const;

/**
 * The 503 problem of a request that failed because the database was out of reach or saturated, naming it;
 * undefined for any other failure. Its transaction was rolled back whole, unless the connection was lost during
 * the commit: the same request again, with its Idempotency-Key, then answers what was recorded.
 */
export function dependencyProblemOf(error: unknown): { code: ProblemCode; detail: string } | undefined {
  const unavailability = databaseUnavailability(error);
  return unavailability === undefined ? undefined : databaseProblems[unavailability];
}
