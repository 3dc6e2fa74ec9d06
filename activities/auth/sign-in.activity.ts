import { AppError } from '../../domain/errors';
import { User } from '../../db/models/user.model';
import { inTransaction } from '../../db/transaction';
import type { ActivityContext } from '../context';
import { decoyPasswordHash, hashPassword, needsRehash, verifyPassword } from './passwords';
import { forgiveAttempts, signInKeys, takeAttempt } from './throttle';
import { startSession, type TokenPair } from './tokens';

export interface SignInInput {
  username: string;
  password: string;
  clientAddress: string;
}

/**
 * Checks credentials and opens a session. Unknown user, wrong password and deactivated account give the same
 * answer after the same work (a password hash is always verified), so the answer reveals nothing.
 */
export async function signIn(context: ActivityContext, input: SignInInput): Promise<{ user: User; tokens: TokenPair }> {
  const username = input.username.toLowerCase();
  const keys = signInKeys(username, input.clientAddress);
  // Counted before the hash is verified: parallel guesses cannot all pass the count first.
  const attempts = await takeAttempt(context.knex, keys, context.clock());
  const user = await User.query(context.knex).findOne({ username });
  const passwordMatches = await verifyPassword(input.password, user?.passwordHash ?? (await decoyPasswordHash()));
  if (user === undefined || !passwordMatches || !user.isActive) {
    throw new AppError(
      'unauthenticated',
      'invalid_credentials',
      'The username or password is wrong, or the account is deactivated.',
    );
  }
  // Hashed outside the transaction: a memory-hard hash holds no lock.
  const rehashed = needsRehash(user.passwordHash) ? await hashPassword(input.password) : undefined;
  return inTransaction(context.knex, async (trx) => {
    // The owner proved the password from this address: its earlier failures from here are forgiven.
    await forgiveAttempts(trx, attempts, [keys[0]!.key]);
    const signedIn = await User.query(trx).patchAndFetchById(user.id, {
      lastLoginAt: context.clock(),
      ...(rehashed === undefined ? {} : { passwordHash: rehashed }),
    });
    return { user: signedIn, tokens: await startSession(trx, context, user.id) };
  });
}
