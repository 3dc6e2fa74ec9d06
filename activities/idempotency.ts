import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors';
import type { Actor } from './context';

/**
 * The Idempotency-Key contract of money-moving operations: the client's key, made unique per user, names the
 * operation; the same key with the same request answers the first result, with another request it is refused.
 */

/** The operation's key: the client's key per user, or a fresh one when none was sent (nothing to replay then). */
export const operationKey = (prefix: string, actor: Actor, clientKey: string | null): string =>
  clientKey === null ? `${prefix}:${randomUUID()}` : `${prefix}:${actor.userId}:${clientKey}`;

/** The refusal of a key sent again with another request. */
export const keyReusedError = () =>
  new AppError('conflict', 'idempotency_key_reused', 'This Idempotency-Key was already used for a different request.');

/** Same key, same request: compared field by field, since jsonb does not keep the key order of what was stored. */
export function assertSameRequest(stored: Record<string, unknown>, request: Record<string, unknown>): void {
  if (Object.entries(request).some(([field, value]) => stored[field] !== value)) {
    throw keyReusedError();
  }
}
