import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import { holdsRole, isPlatformAdmin, type Role } from '../../domain/access';
import { Branch } from '../../db/models/branch.model';
import { RoleGrant } from '../../db/models/role-grant.model';
import { User } from '../../db/models/user.model';
import { isUniqueViolation } from '../../db/errors';
import { inTransaction } from '../../db/transaction';
import { changedValues, recordAudit } from '../audit';
import type { ActivityContext, Actor, DataContext } from '../context';
import { revokeFamily } from './tokens';

export interface GrantRoleInput {
  userId: string;
  role: Role;
  /** null: every enterprise (platform administrators only). */
  enterpriseId: string | null;
  branchId: string | null;
}

/**
 * Administrators grant and revoke roles within what they administer: their enterprise, or their branch for a
 * branch grant; only a platform administrator grants platform-wide.
 */
function assertMayAdminister(actor: Actor, scope: { enterpriseId: string | null; branchId: string | null }): void {
  const allowed =
    scope.enterpriseId === null
      ? isPlatformAdmin(actor.grants)
      : holdsRole(actor.grants, ['admin'], { enterpriseId: scope.enterpriseId, branchId: scope.branchId });
  if (!allowed)
    throw new AppError(
      'forbidden',
      'not_allowed',
      `Only an administrator of this ${scope.branchId === null ? 'enterprise' : 'branch'} may do this.`,
    );
}

/**
 * The checks of a grant before it is written, in the transaction that writes it: a platform grant is the admin role
 * only, the actor administers the scope, an auditor's is a whole enterprise, and a branch is one of the enterprise's.
 * `field` prefixes the name of the field a refusal names (`roles[0].` for the grants of a new user).
 */
export async function assertGrantable(
  trx: Knex.Transaction,
  actor: Actor,
  grant: Omit<GrantRoleInput, 'userId'>,
  field = '',
): Promise<void> {
  if (grant.enterpriseId === null && (grant.role !== 'admin' || grant.branchId !== null)) {
    throw new AppError(
      'unprocessable',
      'platform_grant_admin_only',
      'Only the admin role can be granted for every enterprise.',
    );
  }
  assertMayAdminister(actor, grant);
  if (grant.branchId === null) return;
  // The trail and the chains are the whole enterprise's: an auditor of one branch could read neither.
  if (grant.role === 'auditor') {
    throw new AppError(
      'unprocessable',
      'auditor_grant_whole_enterprise',
      'The auditor role is granted over a whole enterprise, not a branch.',
      [{ field: `${field}branch`, message: `${field}branch must be null for the auditor role` }],
    );
  }
  const branch = await Branch.query(trx).findById(grant.branchId);
  if (branch === undefined || branch.enterpriseId !== grant.enterpriseId) {
    throw new AppError('validation', 'invalid_request', 'The branch does not belong to the enterprise.', [
      { field: `${field}branch`, message: `${field}branch must be a branch of the given enterprise` },
    ]);
  }
}

/** The unique index of active grants, refused as a conflict: the same role twice at one scope. */
export function roleAlreadyGranted(error: unknown): unknown {
  return isUniqueViolation(error, 'role_grants_active_unique')
    ? new AppError('conflict', 'role_already_granted', 'The user already holds this role at this scope.')
    : error;
}

export async function grantRole(context: DataContext, actor: Actor, input: GrantRoleInput): Promise<RoleGrant> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      const user = await User.query(trx).findById(input.userId);
      if (user === undefined) throw new NotFoundError('The user');
      await assertGrantable(trx, actor, input);
      const grant = await RoleGrant.query(trx).insertAndFetch({ ...input, grantedBy: actor.userId });
      await recordAudit(trx, actor, {
        action: 'user.grant_role',
        entityType: 'user',
        entityId: user.id,
        enterpriseId: input.enterpriseId,
        details: { grant_id: grant.id, role: input.role, branch_id: input.branchId },
      });
      return grant;
    });
  } catch (error) {
    throw roleAlreadyGranted(error);
  }
}

export async function revokeGrant(
  context: ActivityContext,
  actor: Actor,
  userId: string,
  grantId: string,
): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const grant = await RoleGrant.query(trx).findById(grantId).forUpdate();
    if (grant === undefined || grant.userId !== userId || grant.revokedAt !== null)
      throw new NotFoundError('The role grant');
    assertMayAdminister(actor, grant);
    await RoleGrant.query(trx).patchAndFetchById(grantId, { revokedAt: context.clock(), revokedBy: actor.userId });
    await recordAudit(trx, actor, {
      action: 'user.revoke_role',
      entityType: 'user',
      entityId: userId,
      enterpriseId: grant.enterpriseId,
      details: { grant_id: grantId, role: grant.role, branch_id: grant.branchId },
    });
  });
}

/** Deactivation takes effect at once: every session of the user is revoked, and sign-in is refused. */
export async function setUserActive(
  context: ActivityContext,
  actor: Actor,
  userId: string,
  active: boolean,
): Promise<User> {
  if (!isPlatformAdmin(actor.grants) && !actor.grants.some((grant) => grant.role === 'admin')) {
    throw new AppError('forbidden', 'not_allowed', 'Only an administrator may do this.');
  }
  if (userId === actor.userId && !active) {
    throw new AppError('conflict', 'cannot_deactivate_self', 'Administrators cannot deactivate themselves.');
  }
  return inTransaction(context.knex, async (trx) => {
    const user = await User.query(trx).findById(userId).forUpdate();
    if (user === undefined) throw new NotFoundError('The user');
    const updated = await User.query(trx).patchAndFetchById(userId, { isActive: active });
    if (!active) {
      const families = await trx('token_families').where({ user_id: userId }).whereNull('revoked_at').pluck('id');
      for (const familyId of families) await revokeFamily(trx, familyId as string, 'deactivated');
    }
    await recordAudit(trx, actor, {
      action: active ? 'user.activate' : 'user.deactivate',
      entityType: 'user',
      entityId: userId,
      enterpriseId: null,
      ...changedValues({ isActive: active }, user, updated),
    });
    return updated;
  });
}
