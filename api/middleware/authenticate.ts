import type { Middleware } from 'koa';
import type { AppState } from '../context';
import type { ApiDeps } from '../deps';
import { accessTokenVerifier } from '../auth/access-token';
import { cookieNames } from '../auth/cookies';
import { loadPrincipal } from '../auth/principal';

const bearer = /^Bearer$/i;

/**
 * Verifies the access token (cookie first, else `Authorization: Bearer`) and loads the principal from the
 * database. It never refuses by itself: a route that needs a user refuses when `ctx.state.principal` is missing,
 * with the reason kept in `ctx.state.authFailure`, and public routes work whatever the caller sends. An
 * Authorization header that is not `Bearer <token>` is an invalid token, not an absent one.
 */
export function authenticate(deps: Pick<ApiDeps, 'knex' | 'clock' | 'auth' | 'secureCookies'>): Middleware<AppState> {
  const accessCookie = cookieNames(deps.secureCookies).access;
  const verify = accessTokenVerifier(deps.auth.jwtSecret, deps.clock);
  return async (ctx, next) => {
    const cookie = ctx.cookies.get(accessCookie);
    const header = ctx.get('Authorization');
    // No token at all: nothing to verify.
    if (cookie === undefined && header === '') return next();
    const token = cookie || bearerToken(header);
    const check = token === undefined ? ({ failure: 'token_invalid' } as const) : await verify(ctx, token);
    if ('failure' in check) ctx.state.authFailure = check.failure;
    else {
      const lookup = await loadPrincipal(deps.knex, check.claims, cookie ? 'cookie' : 'bearer', ctx.state.requestId);
      if ('principal' in lookup) ctx.state.principal = lookup.principal;
      else ctx.state.authFailure = lookup.refused;
    }
    return next();
  };
}

/** The token of `Authorization: Bearer <token>` (the scheme in any case); undefined for any other form. */
function bearerToken(header: string): string | undefined {
  const parts = header.trim().split(' ');
  return parts.length === 2 && bearer.test(parts[0]!) && parts[1] !== '' ? parts[1] : undefined;
}
