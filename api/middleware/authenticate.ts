import type { Middleware } from 'koa';
import koaJwt from 'koa-jwt';
import { signingKey, tokenAlgorithm, type TokenClaims } from '../../activities/auth/tokens';
import type { AppState } from '../context';
import type { ApiDeps } from '../deps';
import { cookieNames } from '../auth/cookies';
import { loadPrincipal } from '../auth/principal';

/**
 * Verifies the access token with koa-jwt (cookie first, else `Authorization: Bearer`; HS256 only, so
 * `alg: none` and foreign algorithms fail) and loads the principal from the database. It never refuses by
 * itself: a route that needs a user refuses when `ctx.state.principal` is missing, with the reason kept in
 * `ctx.state.authFailure`, and public routes work whatever the caller sends.
 */
export function authenticate(deps: Pick<ApiDeps, 'knex' | 'clock' | 'auth' | 'secureCookies'>): Middleware<AppState> {
  const accessCookie = cookieNames(deps.secureCookies).access;
  // koa-jwt's types predate jsonwebtoken 9's KeyObject secrets, which it passes through unchanged.
  const options = { secret: signingKey(deps.auth.jwtSecret) as unknown as string, cookie: accessCookie, passthrough: true, key: 'jwt', algorithms: [tokenAlgorithm] };
  // koa-jwt hands its options to jsonwebtoken.verify on each request: a getter makes expiry follow our clock.
  Object.defineProperty(options, 'clockTimestamp', { enumerable: true, get: () => Math.floor(deps.clock().getTime() / 1000) });
  const verify = koaJwt(options);
  return (ctx, next) => {
    // No token at all: nothing to verify (koa-jwt would build and throw an error just to say so).
    if (ctx.cookies.get(accessCookie) === undefined && ctx.get('Authorization') === '') return next();
    return verify(ctx, async () => {
      const claims = (ctx.state as { jwt?: TokenClaims }).jwt;
      const failure = (ctx.state as { jwtOriginalError?: Error }).jwtOriginalError;
      if (failure !== undefined) ctx.state.authFailure = failure.name === 'TokenExpiredError' ? 'token_expired' : 'token_invalid';
      if (claims !== undefined && claims.typ !== 'access') ctx.state.authFailure = 'token_invalid';
      else if (claims !== undefined) {
        const via = ctx.cookies.get(accessCookie) ? 'cookie' : 'bearer';
        const lookup = await loadPrincipal(deps.knex, claims, via, ctx.state.requestId);
        if ('principal' in lookup) ctx.state.principal = lookup.principal;
        else ctx.state.authFailure = lookup.refused;
      }
      await next();
    });
  };
}
