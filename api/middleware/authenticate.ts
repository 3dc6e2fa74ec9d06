import type { Middleware } from 'koa';
import type { AppState } from '../context';
import type { ApiDeps } from '../deps';
import { accessTokenAuthentication } from '../auth/access-token';
import { cookieNames } from '../auth/cookies';
import { loadPrincipal } from '../auth/principal';

/**
 * Authenticates the request by its access token (cookie first, else `Authorization: Bearer`; api/auth/access-token.ts)
 * and loads the principal from the database. It never refuses by itself: a route that needs a user refuses when
 * `ctx.state.principal` is missing, with the reason kept in `ctx.state.authFailure`, and public routes work
 * whatever the caller sends.
 */
export function authenticate(deps: Pick<ApiDeps, 'knex' | 'clock' | 'auth' | 'secureCookies'>): Middleware<AppState> {
  const authenticateRequest = accessTokenAuthentication({
    secret: deps.auth.jwtSecret,
    clock: deps.clock,
    accessCookie: cookieNames(deps.secureCookies).access,
    principalOf: (ctx, claims, via) =>
      loadPrincipal(deps.knex, claims, via, { requestId: (ctx.state as AppState).requestId, address: ctx.ip }),
  });
  return async (ctx, next) => {
    await authenticateRequest(ctx);
    return next();
  };
}
