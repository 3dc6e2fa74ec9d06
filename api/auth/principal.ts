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
  // One round trip on every authenticated request: the user, the sign-in's state and the grants together.
  const user = await knex('users as u')
    .join('token_families as f', 'f.user_id', 'u.id')
    .where({ 'u.id': claims.sub, 'f.id': claims.fam, 'u.is_active': true })
    .whereNull('f.revoked_at')
    .first(
      'u.id',
      'u.username',
      'u.full_name',
      knex.raw(`coalesce((SELECT json_agg(json_build_object('role', g.role, 'enterpriseId', g.enterprise_id, 'branchId', g.branch_id))
                 FROM role_grants g WHERE g.user_id = u.id AND g.revoked_at IS NULL), '[]') AS grants`),
    );
  if (user === undefined) return { refused: 'token_revoked' };
  const grants = user.grants as Grant[];
  return { principal: { userId: user.id, username: user.username, fullName: user.full_name, familyId: claims.fam, via, grants, requestId } };
}
