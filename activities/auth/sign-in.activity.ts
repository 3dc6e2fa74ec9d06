import { AppError } from '../../domain/errors';
import { User } from '../../db/models/user.model';
import { inTransaction } from '../../db/transaction';
import type { ActivityContext } from '../context';
import { assertNotThrottled, clearUserFailures, recordFailure, throttleKeys } from './login-throttle';
import { decoyPasswordHash, verifyPassword } from './passwords';
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
  const keys = throttleKeys(username, input.clientAddress);
  await assertNotThrottled(context.knex, keys, context.clock());
  const user = await User.query(context.knex).findOne({ username });
  const passwordMatches = await verifyPassword(input.password, user?.passwordHash ?? (await decoyPasswordHash()));
  if (user === undefined || !passwordMatches || !user.isActive) {
    await recordFailure(context.knex, keys, context.clock());
    throw new AppError('unauthenticated', 'invalid_credentials', 'The username or password is wrong, or the account is deactivated.');
  }
  return inTransaction(context.knex, async (trx) => {
    await clearUserFailures(trx, keys);
    const signedIn = await User.query(trx).patchAndFetchById(user.id, { lastLoginAt: context.clock() });
    return { user: signedIn, tokens: await startSession(trx, context, user.id) };
  });
}
