import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError } from '../domain/errors';

/**
 * Optimistic concurrency for editors (RFC 9110 §13): a detail answers an `ETag`, a strong validator of its
 * representation, and a PATCH sent with `If-Match` applies only to the version the editor read; otherwise
 * 412, and the editor reads again instead of silently overwriting a colleague's change.
 */

/** The same representation always answers the same tag; any change of a field changes it. */
export function entityTagOf(representation: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(representation)).digest('base64url').slice(0, 27)}"`;
}

/** `If-Match: *` or a list of tags one of which is the current one (strong comparison: no `W/`). */
function matches(ifMatch: string, current: string): boolean {
  return ifMatch.split(',').some((tag) => tag.trim() === '*' || tag.trim() === current);
}

/**
 * Runs `change` if the representation `read` returns still has the tag of `If-Match`. Conditional changes of
 * one resource are serialized by an advisory lock on its key, so no other one lands between the check and
 * the change.
 */
export async function changeIfMatch<T>(
  knex: Knex,
  resourceKey: string,
  ifMatch: string,
  read: () => Promise<unknown>,
  change: () => Promise<T>,
): Promise<T> {
  return knex.transaction(async (lock) => {
    await lock.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`if-match:${resourceKey}`]);
    if (!matches(ifMatch, entityTagOf(await read()))) {
      throw new AppError(
        'precondition_failed',
        'precondition_failed',
        'The resource changed since you read it: read it again (its new ETag), then apply your change.',
      );
    }
    return change();
  });
}
