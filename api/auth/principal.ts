import type { Knex } from 'knex';
import type { Actor } from '../../activities/context';
import type { TokenClaims } from '../../activities/auth/tokens';
import type { Grant } from '../../domain/access';

/** The signed-in user of a request, with grants read from the database for this very request. */
export interface Principal extends Actor {
  username: string;
  fullName: string;
  familyId: string;
  /** Where the access token came from: cookie-authenticated unsafe requests need a CSRF proof. */
  via: 'cookie' | 'bearer';
}

export type PrincipalLookup = { principal: Principal } | { refused: 'token_revoked' };

/**
 * Loads the user and grants behind verified access-token claims. A deactivated user or a revoked sign-in
 * (logout, reuse of a refresh token) yields no principal, whatever the token's expiry says.
 */
export async function loadPrincipal(knex: Knex, claims: TokenClaims, via: Principal['via'], requestId: string): Promise<PrincipalLookup> {
  const user = await knex('users as u')
    .join('token_families as f', 'f.user_id', 'u.id')
    .where({ 'u.id': claims.sub, 'f.id': claims.fam, 'u.is_active': true })
    .whereNull('f.revoked_at')
    .first('u.id', 'u.username', 'u.full_name');
  if (user === undefined) return { refused: 'token_revoked' };
  const rows = await knex('role_grants').where({ user_id: user.id }).whereNull('revoked_at').select('role', 'enterprise_id', 'branch_id');
  const grants: Grant[] = rows.map((row) => ({ role: row.role, enterpriseId: row.enterprise_id, branchId: row.branch_id }));
  return { principal: { userId: user.id, username: user.username, fullName: user.full_name, familyId: claims.fam, via, grants, requestId } };
}
