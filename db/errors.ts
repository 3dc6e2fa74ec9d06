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

/**
 * Why the database could not serve a query, when the cause is the database and not the query: `unreachable`
 * (refused or lost connections, a server shutting down or starting up, too many connections) or `busy` (no
 * pooled connection free within the acquire timeout, or the statement stopped by statement_timeout / lock_timeout).
 * Undefined for anything else. Both are worth a retry by the client; nothing of the failed transaction was kept.
 */
export function databaseUnavailability(error: unknown): 'unreachable' | 'busy' | undefined {
  if ((error as { name?: unknown } | null)?.name === 'KnexTimeoutError') return 'busy';
  const { code } = pgError(error);
  if (code === '57014' || code === '55P03') return 'busy'; // query_canceled (statement_timeout), lock_not_available
  if (typeof code === 'string' && (code.startsWith('08') || unreachableCodes.has(code))) return 'unreachable';
  const message = String((error as { message?: unknown } | null)?.message ?? '');
  return lostConnection.test(message) ? 'unreachable' : undefined;
}

// admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections; then the socket errors of Node.
const unreachableCodes = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// What node-postgres says, without a code, of a connection that ended or that a failure left unusable (knex puts
// the statement and ' - ' before it).
const lostConnection = /(^|- )(Connection terminated|Client has encountered a connection error|Client was closed)/;
