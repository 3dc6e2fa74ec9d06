import type { Knex } from 'knex';
import { RateLimitedError } from '../../domain/errors';
import { inTransaction } from '../../db/transaction';

/**
 * Attempts counted per key in a sliding window: sign-ins, registrations, password changes. An attempt is
 * recorded before the work it guards (a password hash), so parallel attempts cannot all pass the count first;
 * a success forgives its own attempt, failures stay counted until the window passes.
 */
export interface ThrottlePolicy {
  /** What the key counts, for the message. */
  what: string;
  windowSeconds: number;
  max: number;
}

const fifteenMinutes = 15 * 60;

export const policies = {
  /** One account from one address: guessing its password. */
  signInPair: { what: 'failed sign-ins', windowSeconds: fifteenMinutes, max: 5 },
  /**
   * One account from anywhere: guessing spread over addresses, still a soft limit so nobody locks an account out for
   * long.
   */
  signInUser: { what: 'failed sign-ins', windowSeconds: fifteenMinutes, max: 20 },
  /** One address, every account: an office shares an address, so the ceiling is high. */
  signInAddress: { what: 'failed sign-ins', windowSeconds: fifteenMinutes, max: 100 },
  /** Each registration costs a memory-hard hash: a handful per address and hour. */
  registration: { what: 'registrations', windowSeconds: 60 * 60, max: 10 },
  /** Wrong current passwords of one user. */
  passwordChange: { what: 'failed password changes', windowSeconds: fifteenMinutes, max: 5 },
} as const satisfies Record<string, ThrottlePolicy>;

export interface ThrottledKey {
  key: string;
  policy: ThrottlePolicy;
}

/**
 * Records one attempt for each key, or refuses (429, Retry-After) when a key has used up its window. The keys
 * are advisory-locked in a fixed order for the transaction, so the count and the insert of concurrent
 * attempts on one key happen one after the other. Returns the ids of the attempts recorded.
 */
export async function takeAttempt(knex: Knex, keys: readonly ThrottledKey[], now: Date): Promise<string[]> {
  const sorted = [...keys].sort((a, b) => a.key.localeCompare(b.key));
  return inTransaction(knex, async (trx) => {
    for (const { key } of sorted) await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
    for (const { key, policy } of sorted) {
      const since = new Date(now.getTime() - policy.windowSeconds * 1000);
      const attempts = await trx('login_failures')
        .where('throttle_key', key)
        .where('failed_at', '>', since)
        .orderBy('failed_at', 'desc')
        .limit(policy.max)
        .pluck('failed_at');
      if (attempts.length >= policy.max) {
        const oldestCounted = new Date(attempts[attempts.length - 1] as Date);
        const retryAfterSeconds = Math.max(
          1,
          Math.ceil((oldestCounted.getTime() + policy.windowSeconds * 1000 - now.getTime()) / 1000),
        );
        throw new RateLimitedError(`Too many ${policy.what}. Try again later.`, retryAfterSeconds);
      }
    }
    const rows = await trx('login_failures')
      .insert(sorted.map(({ key }) => ({ throttle_key: key, failed_at: now })))
      .returning('id');
    return rows.map((row) => String(row.id));
  });
}

/**
 * A success: its own attempts no longer count, nor the earlier failures of `clearedKeys` (the user proved who they
 * are).
 */
export async function forgiveAttempts(
  trx: Knex | Knex.Transaction,
  attemptIds: readonly string[],
  clearedKeys: readonly string[] = [],
): Promise<void> {
  await trx('login_failures').whereIn('id', attemptIds).orWhereIn('throttle_key', clearedKeys).delete();
}

/** The sign-in keys of a username from an address. */
export const signInKeys = (username: string, address: string): ThrottledKey[] => [
  { key: `pair:${address}:${username}`, policy: policies.signInPair },
  { key: `user:${username}`, policy: policies.signInUser },
  { key: `address:${address}`, policy: policies.signInAddress },
];
