/**
 * The closed set of failures the product reports to its callers. Each carries a stable machine `code`
 * (clients branch on it) and a kind that the API maps to an HTTP status; domain and activities never
 * speak HTTP. Anything that is not an AppError is a bug and is answered as a generic 500.
 */
export type ErrorKind
  = | 'validation' // 400: the request is malformed or a field is invalid
    | 'unauthenticated' // 401
    | 'forbidden' // 403
    | 'not_found' // 404: absent, or not visible to this user
    | 'conflict' // 409: valid request, refused by the current state (insufficient funds, wrong step…)
    | 'precondition_failed' // 412: the resource changed since the version the client read (If-Match)
    | 'unprocessable' // 422: well-formed, but breaks a business rule regardless of state
    | 'rate_limited' // 429
    | 'unavailable'; // 503: a dependency (Temporal) could not be reached

export interface FieldError {
  /** Dotted path of the offending field, e.g. `amount` or `lines[2].account`. */
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly fieldErrors: readonly FieldError[] = [],
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export class ValidationError extends AppError {
  constructor(fieldErrors: readonly FieldError[], message = 'The request has invalid fields.') {
    super('validation', 'invalid_request', message, fieldErrors);
    this.name = 'ValidationError';
  }
}

export class NotFoundError extends AppError {
  constructor(what: string, code = 'not_found') {
    super('not_found', code, `${what} was not found.`);
    this.name = 'NotFoundError';
  }
}

export class RateLimitedError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', 'too_many_attempts', message);
    this.name = 'RateLimitedError';
  }
}
