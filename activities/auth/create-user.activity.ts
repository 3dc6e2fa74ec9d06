import type { Knex } from 'knex';
import { createHash, randomBytes } from 'node:crypto';
import { AppError, NotFoundError, ValidationError } from '../../domain/errors';
import { passwordProblems } from '../../domain/password-policy';
import { RoleGrant } from '../../db/models/role-grant.model';
import { User } from '../../db/models/user.model';
import { isUniqueViolation } from '../../db/errors';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor, RequestOrigin } from '../context';
import { hashPassword } from './passwords';
import { assertGrantable, roleAlreadyGranted, type GrantRoleInput } from './users.activity';

export interface CreateUserInput {
  username: string;
  fullName: string;
  email: string;
  /** Made with the account. */
  grants: readonly Omit<GrantRoleInput, 'userId'>[];
  /** Checked with the others, then left to the caller to grant once the account exists (under four eyes). */
  grantsAfterwards: readonly Omit<GrantRoleInput, 'userId'>[];
}

export interface Invitation {
  /** Given once, in the answer to the creation; only its SHA-256 is kept. */
  token: string;
  expiresAt: Date;
}

const invitationTtlMs = 7 * 24 * 3600 * 1000;
// Never the result of hashPassword (`scrypt$…`): verifyPassword refuses every password against it.
const noPasswordYet = 'invited';

const tokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

const newInvitation = (clock: () => Date): Invitation => ({
  token: randomBytes(32).toString('base64url'),
  expiresAt: new Date(clock().getTime() + invitationTtlMs),
});

/**
 * A staff account made by an administrator, with its roles, in one transaction, audited. It has no password:
 * the answer's invitation token lets its person set one (`acceptInvitation`), so no administrator ever knows
 * it. Not throttled as sign-ups are: only an administrator calls it, and it hashes no password.
 */
export async function createStaffUser(
  context: ActivityContext,
  actor: Actor,
  input: CreateUserInput,
): Promise<{ user: User; grants: RoleGrant[]; invitation: Invitation }> {
  const username = input.username.toLowerCase();
  const invitation = newInvitation(context.clock);
  try {
    return await inTransaction(context.knex, async (trx) => {
      for (const [index, grant] of [...input.grants, ...input.grantsAfterwards].entries())
        await assertGrantable(trx, actor, grant, `roles[${index}].`);
      // Two creations with one email would both find it free: the email's lock orders them.
      await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`user-email:${input.email.toLowerCase()}`]);
      if ((await User.query(trx).whereRaw('lower(email) = ?', [input.email.toLowerCase()]).resultSize()) > 0) {
        throw new AppError('conflict', 'email_taken', `The email ${input.email} is already another user's.`);
      }
      const user = await User.query(trx).insertAndFetch({
        username,
        passwordHash: noPasswordYet,
        fullName: input.fullName,
        email: input.email,
        invitationTokenHash: tokenHash(invitation.token),
        invitationExpiresAt: invitation.expiresAt,
      });
      // Every role may be left to four eyes: then the account comes with none yet.
      const rows = input.grants.map((grant) => ({ ...grant, userId: user.id, grantedBy: actor.userId }));
      const grants = rows.length === 0 ? [] : await RoleGrant.query(trx).insertAndFetch(rows);
      const enterprises = [...new Set([...input.grants, ...input.grantsAfterwards].map((grant) => grant.enterpriseId))];
      await recordAudit(trx, actor, {
        action: 'user.create',
        entityType: 'user',
        entityId: user.id,
        enterpriseId: enterprises.length === 1 ? enterprises[0]! : null,
        details: {
          username,
          roles: grants.map((grant) => ({
            grant_id: grant.id,
            role: grant.role,
            enterprise_id: grant.enterpriseId,
            branch_id: grant.branchId,
          })),
        },
      });
      return { user, grants, invitation };
    });
  } catch (error) {
    if (isUniqueViolation(error, 'users_username_unique'))
      throw new AppError('conflict', 'username_taken', `The username ${username} is already taken.`);
    throw roleAlreadyGranted(error);
  }
}

/**
 * The one enterprise a user belongs to, by their roles and the import that brought them in; null for none or several.
 */
async function enterpriseOfUser(trx: Knex.Transaction, userId: string): Promise<string | null> {
  const { rows } = (await trx.raw(
    `SELECT g.enterprise_id FROM role_grants g WHERE g.user_id = :userId AND g.revoked_at IS NULL
      AND g.enterprise_id IS NOT NULL
    UNION SELECT i.enterprise_id FROM users u JOIN imports i ON i.id = u.import_id WHERE u.id = :userId`,
    { userId },
  )) as { rows: { enterprise_id: string }[] };
  return rows.length === 1 ? rows[0]!.enterprise_id : null;
}

/**
 * A new invitation for a user who has no password yet: one an import brought in (docs/domain.md §15.3), or one
 * whose invitation expired. The previous one, if unused, stops working: only the new token's hash is kept. Only
 * first passwords: a user who has one changes it signed in, and no administrator takes an account over by setting
 * it anew. The caller has checked the user is within its scope.
 */
export async function inviteUser(context: ActivityContext, actor: Actor, userId: string): Promise<Invitation> {
  const invitation = newInvitation(context.clock);
  return inTransaction(context.knex, async (trx) => {
    const user = await User.query(trx).findById(userId).forUpdate();
    if (user === undefined) throw new NotFoundError('The user');
    if (!user.isActive)
      throw new AppError(
        'conflict',
        'user_deactivated',
        'The user is deactivated: reactivate them before inviting them.',
      );
    if (user.passwordHash !== noPasswordYet)
      throw new AppError(
        'conflict',
        'user_has_password',
        'The user has set a password: an invitation sets a first one.',
      );
    await User.query(trx)
      .findById(userId)
      .patch({ invitationTokenHash: tokenHash(invitation.token), invitationExpiresAt: invitation.expiresAt });
    await recordAudit(trx, actor, {
      action: 'user.invite',
      entityType: 'user',
      entityId: userId,
      enterpriseId: await enterpriseOfUser(trx, userId),
      details: {
        replaced_unused_invitation: user.invitationTokenHash !== null,
        expires_at: invitation.expiresAt.toISOString(),
      },
    });
    return invitation;
  });
}

/** The invitation's person sets their password; the token is spent (used once, or never after its end). */
export async function acceptInvitation(
  context: ActivityContext,
  input: { token: string; password: string } & Required<RequestOrigin>,
): Promise<void> {
  const invalid = () =>
    new AppError('validation', 'invalid_invitation', 'The invitation is unknown, already used or expired.', [
      { field: 'token', message: 'token is unknown, used or expired' },
    ]);
  const hash = tokenHash(input.token);
  const user = await User.query(context.knex).findOne({ invitation_token_hash: hash });
  if (user === undefined || !user.isActive || user.invitationExpiresAt! <= context.clock()) throw invalid();
  const problems = passwordProblems(input.password, user.username);
  if (problems.length > 0) throw new ValidationError(problems);
  const passwordHash = await hashPassword(input.password);
  await inTransaction(context.knex, async (trx) => {
    // Matched on the token again: of two acceptances at once, one sets the password.
    const spent = await User.query(trx)
      .where({ id: user.id, invitation_token_hash: hash })
      .patch({ passwordHash, invitationTokenHash: null, invitationExpiresAt: null });
    if (spent === 0) throw invalid();
    await recordAudit(
      trx,
      { userId: user.id, requestId: input.requestId, address: input.address },
      { action: 'user.accept_invitation', entityType: 'user', entityId: user.id, enterpriseId: null },
    );
  });
}
