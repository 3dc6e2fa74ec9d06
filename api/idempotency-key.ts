import { AppError } from '../domain/errors';
import type { AppContext } from './context';

/** Letters, digits, '.', '_', ':' and '-', up to 100: what a client's retry key may be. */
export const idempotencyKeyPattern = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * The optional Idempotency-Key header of a route that declares `idempotent`: read by the router, refused when
 * malformed (400 naming the header), null when absent.
 */
export function idempotencyKeyOf(ctx: AppContext): string | null {
  const key = ctx.get('Idempotency-Key');
  if (key === '') return null;
  if (!idempotencyKeyPattern.test(key)) {
    throw new AppError('validation', 'invalid_request', 'The Idempotency-Key header is malformed.', [
      { field: 'Idempotency-Key', message: 'Idempotency-Key must be 1 to 100 letters, digits, ".", "_", ":" or "-"' },
    ]);
  }
  return key;
}
