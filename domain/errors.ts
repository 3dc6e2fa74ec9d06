import type { ErrorCode, KindOf } from './error-catalogue';

/**
 * The closed set of failures the product reports to its callers. Each carries a stable machine `code`
 * (clients branch on it) and a kind that the API maps to an HTTP status; domain and activities never
 * speak HTTP. Anything that is not an AppError is a bug and is answered as a generic 500. The codes and their
 * kinds are the catalogue's (domain/error-catalogue.ts): the kind given must be its code's.
 */
export interface FieldError {
  /** Dotted path of the offending field, e.g. `amount` or `lines[2].account`. */
  field: string;
  message: string;
}

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  constructor(
    readonly kind: KindOf<C>,
    readonly code: C,
    message: string,
    readonly fieldErrors: readonly FieldError[] = [],
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export class ValidationError extends AppError<'invalid_request'> {
  constructor(fieldErrors: readonly FieldError[], message = 'The request has invalid fields.') {
    super('validation', 'invalid_request', message, fieldErrors);
    this.name = 'ValidationError';
  }
}

export class NotFoundError extends AppError<'not_found'> {
  constructor(what: string) {
    super('not_found', 'not_found', `${what} was not found.`);
    this.name = 'NotFoundError';
  }
}

export class RateLimitedError extends AppError<'too_many_attempts'> {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', 'too_many_attempts', message);
    this.name = 'RateLimitedError';
  }
}
