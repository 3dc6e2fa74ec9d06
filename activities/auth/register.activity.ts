import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
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

/** The user's row and its audit record, in the caller's transaction. */
async function insertUser(
  trx: Knex.Transaction,
  row: { username: string; passwordHash: string; fullName: string; email: string },
  origin: RequestOrigin | null,
): Promise<User> {
  const user = await User.query(trx).insertAndFetch(row);
  await recordAudit(trx, origin === null ? null : { userId: user.id, ...origin }, {
    action: 'user.register',
    entityType: 'user',
    entityId: user.id,
    enterpriseId: null,
  });
  return user;
}

/** Creates a user with no role: an administrator grants roles afterwards. */
export async function registerUser(
  context: ActivityContext,
  input: RegisterInput,
  origin: RequestOrigin | null,
): Promise<User> {
  const username = input.username.toLowerCase();
  const problems = passwordProblems(input.password, username);
  if (problems.length > 0) throw new ValidationError(problems);
  await takeAttempt(
    context.knex,
    [{ key: `register:${input.clientAddress}`, policy: policies.registration }],
    context.clock(),
  );
  const passwordHash = await hashPassword(input.password);
  try {
    return await inTransaction(context.knex, (trx) =>
      insertUser(trx, { username, passwordHash, fullName: input.fullName, email: input.email }, origin),
    );
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
  const username = settings.username.toLowerCase();
  const password = settings.password ?? randomBytes(12).toString('base64url');
  const problems = passwordProblems(password, username);
  if (problems.length > 0) throw new ValidationError(problems);
  const passwordHash = await hashPassword(password);
  // API processes started at once on an empty database (compose's --scale) take turns: one creates the
  // administrator and its role together, the others then find a user and create none.
  const user = await inTransaction(context.knex, async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', ['coopbank:initial-admin']);
    if ((await User.query(trx).resultSize()) > 0) return null;
    const created = await insertUser(trx, { username, passwordHash, fullName: 'Administrator', email: '' }, null);
    await trx('role_grants').insert({ user_id: created.id, role: 'admin', enterprise_id: null, branch_id: null });
    return created;
  });
  if (user === null) return { created: false };
  return {
    created: true,
    username: user.username,
    generatedPassword: settings.password === undefined ? password : undefined,
  };
}
