import { AppError, ValidationError } from '../../domain/errors';
import { passwordProblems } from '../../domain/password-policy';
import { User } from '../../db/models/user.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext } from '../context';
import { hashPassword, verifyPassword } from './passwords';
import { forgiveAttempts, policies, takeAttempt } from './throttle';

export interface ChangePasswordInput {
  userId: string;
  /** The sign-in making the change stays open; every other one is revoked (a thief's included). */
  keepFamilyId: string;
  currentPassword: string;
  newPassword: string;
  requestId: string;
  address?: string;
}

export async function changePassword(context: ActivityContext, input: ChangePasswordInput): Promise<void> {
  const user = await User.query(context.knex).findById(input.userId).throwIfNotFound();
  // Guessing the current password through a stolen session is throttled as sign-ins are.
  const attempts = await takeAttempt(
    context.knex,
    [{ key: `password:${user.id}`, policy: policies.passwordChange }],
    context.clock(),
  );
  if (!(await verifyPassword(input.currentPassword, user.passwordHash))) {
    throw new ValidationError([{ field: 'current_password', message: 'current_password is wrong' }]);
  }
  await forgiveAttempts(context.knex, attempts);
  const problems = passwordProblems(input.newPassword, user.username);
  if (problems.length > 0)
    throw new ValidationError(problems.map((problem) => ({ ...problem, field: 'new_password' })));
  if (input.newPassword === input.currentPassword) {
    throw new AppError('validation', 'invalid_request', 'The new password must differ.', [
      { field: 'new_password', message: 'new_password must differ from the current one' },
    ]);
  }
  const passwordHash = await hashPassword(input.newPassword);
  await inTransaction(context.knex, async (trx) => {
    await User.query(trx).patchAndFetchById(user.id, { passwordHash });
    await trx('token_families')
      .where({ user_id: user.id })
      .whereNot('id', input.keepFamilyId)
      .whereNull('revoked_at')
      .update({ revoked_at: trx.fn.now(), revoked_reason: 'password_changed' });
    await recordAudit(
      trx,
      { userId: user.id, requestId: input.requestId, address: input.address },
      { action: 'user.change_password', entityType: 'user', entityId: user.id, enterpriseId: null },
    );
  });
}
