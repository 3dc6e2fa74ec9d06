import { UniqueViolationError } from 'objection';

/** PostgreSQL's error code and constraint, whether the error came through Objection or straight from knex. */
function pgError(error: unknown): { code?: string; constraint?: string } {
  const candidate = (error as { nativeError?: unknown })?.nativeError ?? error;
  return (candidate ?? {}) as { code?: string; constraint?: string };
}

/** True for a unique-constraint violation, of `constraint` when one is named. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const { code, constraint: violated } = pgError(error);
  const unique = error instanceof UniqueViolationError || code === '23505';
  return unique && (constraint === undefined || violated === constraint);
}

/** True for an exclusion-constraint violation (overlapping date ranges), of `constraint` when named. */
export function isExclusionViolation(error: unknown, constraint?: string): boolean {
  const { code, constraint: violated } = pgError(error);
  return code === '23P01' && (constraint === undefined || violated === constraint);
}

/**
 * What a database refusal means to the client, when validation let the input through: a reference to a row
 * that does not exist (foreign key) or a value the column cannot hold (a data exception, class 22).
 * Undefined for anything else, which stays a server error.
 */
export function clientFaultOf(error: unknown): 'missing_reference' | 'invalid_value' | undefined {
  const { code } = pgError(error);
  if (code === '23503') return 'missing_reference';
  if (typeof code === 'string' && code.startsWith('22')) return 'invalid_value';
  return undefined;
}
