import type { Context } from 'koa';
import type { ErrorKind, FieldError } from '../domain/errors';

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

export const statusOfKind: Record<ErrorKind, number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
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
  code: string,
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
  ctx.status = status;
  ctx.type = 'application/problem+json';
  ctx.body = problem;
}
