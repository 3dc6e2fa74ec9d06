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
 * The user, the sign-in's state and the grants, in one statement prepared once per connection (a named
 * statement: PostgreSQL parses and plans it once, not on every request).
 */
const principalSql = `
  SELECT u.id, u.username, u.full_name,
         coalesce((SELECT json_agg(json_build_object('role', g.role, 'enterpriseId', g.enterprise_id,
                                                     'branchId', g.branch_id))
                   FROM role_grants g WHERE g.user_id = u.id AND g.revoked_at IS NULL), '[]') AS grants
  FROM users u JOIN token_families f ON f.user_id = u.id
  WHERE u.id = ? AND f.id = ? AND u.is_active AND f.revoked_at IS NULL`;

/**
 * Loads the user and grants behind verified access-token claims, on every authenticated request, so that a
 * revoked role, a deactivated user or a revoked sign-in (logout, reuse of a refresh token) takes effect on the
 * very next request, in every process: no principal then, whatever the token's expiry says.
 */
export async function loadPrincipal(
  knex: Knex,
  claims: TokenClaims,
  via: Principal['via'],
  request: { requestId: string; address: string },
): Promise<PrincipalLookup> {
  const { rows } = (await knex.raw(principalSql, [claims.sub, claims.fam]).options({ name: 'api_principal' })) as {
    rows: PrincipalRow[];
  };
  const user = rows[0];
  if (user === undefined) return { refused: 'token_revoked' };
  const { requestId, address } = request;
  return {
    principal: {
      userId: user.id,
      username: user.username,
      fullName: user.full_name,
      familyId: claims.fam,
      via,
      grants: user.grants,
      requestId,
      address,
    },
  };
}

interface PrincipalRow {
  id: string;
  username: string;
  full_name: string;
  grants: Grant[];
}
