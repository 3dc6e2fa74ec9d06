import { canSee, holdsRole, visibility, type Role, type Scope } from '../../domain/access';
import { AppError, NotFoundError } from '../../domain/errors';
import type { Principal } from './principal';

/**
 * The one access check of handlers, at the resource's own enterprise and branch: a resource the user cannot
 * see answers 404 (its existence is not disclosed), one they see but may not change answers 403.
 */
export function requireRole(principal: Principal, allowed: readonly Role[], scope: Scope, what: string): void {
  requireVisible(principal, scope, what);
  if (!holdsRole(principal.grants, allowed, scope)) {
    throw new AppError(
      'forbidden',
      'role_required',
      `This requires one of the roles ${allowed.join(', ')} for this ${scope.branchId ? 'branch' : 'enterprise'}.`,
    );
  }
}

export function requireVisible(principal: Principal, scope: Scope, what: string): void {
  if (!canSee(principal.grants, scope)) throw new NotFoundError(what);
}

/**
 * For documents of enterprise-wide figures (a month end, a provisioning run: docs/domain.md §8): readable only
 * by a role over the whole enterprise (or the platform). To a user of some branches they answer 404, as the
 * loans and accounts of other branches do.
 */
export function requireWholeEnterprise(principal: Principal, enterpriseId: string, what: string): void {
  if (visibleBranches(principal, enterpriseId) !== 'all') throw new NotFoundError(what);
}

/**
 * The branches of an enterprise whose rows the principal sees: 'all' for a role over the whole enterprise (or
 * the platform), else the branches where they hold one. Ledger reads narrow their lines with it.
 */
export function visibleBranches(principal: Principal, enterpriseId: string): 'all' | readonly string[] {
  const seen = visibility(principal.grants);
  if (seen.all) return 'all';
  const access = seen.enterprises.get(enterpriseId);
  if (access === undefined) return [];
  return access.wholeEnterprise ? 'all' : [...access.branchIds];
}
