import { randomBytes } from 'node:crypto';
import { AppError, ValidationError } from '../../domain/errors';
import { passwordProblems } from '../../domain/password-policy';
import { User } from '../../db/models/user.model';
import { inTransaction } from '../../db/transaction';
import { isUniqueViolation } from '../../db/errors';
import { recordAudit } from '../audit';
import type { ActivityContext, RequestOrigin } from '../context';
import { hashPassword } from './passwords';
import { policies, takeAttempt } from './throttle';

export interface RegisterInput {
  username: string;
  password: string;
  fullName: string;
  email: string;
  /** Where the sign-up comes from: each costs a memory-hard hash, so a few per address and hour. */
  clientAddress: string;
}

/** Creates a user with no role: an administrator grants roles afterwards. */
export async function registerUser(context: ActivityContext, input: RegisterInput, origin: RequestOrigin | null): Promise<User> {
  const username = input.username.toLowerCase();
  const problems = passwordProblems(input.password, username);
  if (problems.length > 0) throw new ValidationError(problems);
  await takeAttempt(context.knex, [{ key: `register:${input.clientAddress}`, policy: policies.registration }], context.clock());
  const passwordHash = await hashPassword(input.password);
  try {
    return await inTransaction(context.knex, async (trx) => {
      const user = await User.query(trx).insertAndFetch({ username, passwordHash, fullName: input.fullName, email: input.email });
      await recordAudit(trx, origin === null ? null : { userId: user.id, ...origin }, {
        action: 'user.register',
        entityType: 'user',
        entityId: user.id,
        enterpriseId: null,
      });
      return user;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'users_username_unique')) {
      throw new AppError('conflict', 'username_taken', `The username ${username} is already taken.`);
    }
    throw error;
  }
}

/**
 * On first start, when no user exists: the platform administrator, with the configured password or a
 * generated one that is returned (to be printed once) and stored nowhere in clear.
 */
export async function ensureInitialAdmin(
  context: ActivityContext,
  settings: { username: string; password: string | undefined },
): Promise<{ created: false } | { created: true; username: string; generatedPassword: string | undefined }> {
  if ((await User.query(context.knex).resultSize()) > 0) return { created: false };
  const password = settings.password ?? randomBytes(12).toString('base64url');
  const user = await registerUser(context, { username: settings.username, password, fullName: 'Administrator', email: '', clientAddress: 'initial-admin' }, null);
  await context.knex('role_grants').insert({ user_id: user.id, role: 'admin', enterprise_id: null, branch_id: null });
  return { created: true, username: user.username, generatedPassword: settings.password === undefined ? password : undefined };
}
