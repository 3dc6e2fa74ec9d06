import type { Knex } from 'knex';
import { RateLimitedError } from '../../domain/errors';

// Failed sign-ins allowed per window: few per username (guessing one account's password), more per client
// address (a shared office connection has several users).
const windowSeconds = 15 * 60;
const failuresMax = { user: 5, address: 20 } as const;

export interface ThrottleKeys {
  user: string;
  address: string;
}

export function throttleKeys(username: string, clientAddress: string): ThrottleKeys {
  return { user: `user:${username}`, address: `address:${clientAddress}` };
}

/** Refuses with 429 and Retry-After while either key has used up its failures in the current window. */
export async function assertNotThrottled(knex: Knex, keys: ThrottleKeys, now: Date): Promise<void> {
  const since = new Date(now.getTime() - windowSeconds * 1000);
  for (const kind of ['user', 'address'] as const) {
    const failures = await knex('login_failures')
      .where('throttle_key', keys[kind])
      .where('failed_at', '>', since)
      .orderBy('failed_at', 'desc')
      .limit(failuresMax[kind])
      .pluck('failed_at');
    if (failures.length >= failuresMax[kind]) {
      const oldestCounted = new Date(failures[failures.length - 1] as Date);
      const retryAfterSeconds = Math.max(1, Math.ceil((oldestCounted.getTime() + windowSeconds * 1000 - now.getTime()) / 1000));
      throw new RateLimitedError('Too many failed sign-ins. Try again later.', retryAfterSeconds);
    }
  }
}

export async function recordFailure(knex: Knex, keys: ThrottleKeys, now: Date): Promise<void> {
  await knex('login_failures').insert([
    { throttle_key: keys.user, failed_at: now },
    { throttle_key: keys.address, failed_at: now },
  ]);
}

export async function clearUserFailures(trx: Knex.Transaction, keys: ThrottleKeys): Promise<void> {
  await trx('login_failures').where('throttle_key', keys.user).delete();
}
