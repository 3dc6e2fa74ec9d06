import type { Context } from 'koa';
import koaJwt from 'koa-jwt';
import jwt from 'jsonwebtoken';
import { signingKey, tokenAlgorithm, type TokenClaims } from '../../activities/auth/tokens';
import { BoundedMemo } from '../bounded-memo';
import type { AppState } from '../context';
import type { Principal, PrincipalLookup } from './principal';

type AccessClaims = TokenClaims & { exp: number };
/** What a request presents: its access token and where it came from, no token at all, or a header of another form. */
type Presented = { token: string; via: Principal['via'] } | 'none' | 'malformed';
/** What koa-jwt leaves on `ctx.state` in passthrough mode, taken off again once read. */
type KoaJwtState = AppState & { verifiedToken?: AccessClaims; jwtOriginalError?: unknown };

export interface AccessTokenSettings {
  secret: string;
  clock: () => Date;
  accessCookie: string;
  /** The user, grants and sign-in behind verified claims, read for this very request. */
  principalOf(ctx: Context, claims: TokenClaims, via: Principal['via']): Promise<PrincipalLookup>;
}

const bearer = /^Bearer$/i;
/** Tokens whose signature was verified, at most: a sign-in's access token is presented on each of its requests. */
const maxRemembered = 10_000;
const nothingAfter = async () => {};

/**
 * The one reader of a request's access token: the access cookie first (browsers), else `Authorization: Bearer
 * <token>`, the scheme in any case. An Authorization header of another form is an invalid token, not an absent one.
 */
function presentedToken(ctx: Context, accessCookie: string): Presented {
  const cookie = ctx.cookies.get(accessCookie);
  if (cookie) return { token: cookie, via: 'cookie' };
  const header = ctx.get('Authorization');
  if (cookie === undefined && header === '') return 'none';
  const [scheme, token, ...rest] = header.trim().split(' ');
  return bearer.test(scheme!) && token && rest.length === 0 ? { token, via: 'bearer' } : 'malformed';
}

/** The access token a request presents, and where from; undefined when it presents none in a readable form. */
export function presentedAccessToken(
  ctx: Context,
  accessCookie: string,
): { token: string; via: Principal['via'] } | undefined {
  const token = presentedToken(ctx, accessCookie);
  return typeof token === 'object' ? token : undefined;
}

/**
 * Claims of one of our access tokens; a refresh token, or a token without an expiry, is not one, whatever signed it.
 */
const isAccessClaims = (claims: Partial<AccessClaims>): claims is AccessClaims =>
  claims.typ === 'access' &&
  typeof claims.exp === 'number' &&
  typeof claims.sub === 'string' &&
  typeof claims.fam === 'string';

/**
 * Access-token authentication by koa-jwt (the design card's package), for one secret. It sets `ctx.state.principal`,
 * or `ctx.state.authFailure` when a token was presented but not accepted, and never refuses by itself: a route that
 * needs a user refuses (docs/architecture.md §7). koa-jwt reads the token (`getToken`, the one reader), verifies its
 * signature and expiry (HS256 only, so `alg: none` and foreign algorithms fail; the signing key a KeyObject made
 * once; `clockTimestamp`, jsonwebtoken's option read at each verification, is the API's clock, which tests set),
 * then asks `isRevoked`, which reads the principal and its sign-in from the database on every request: a revoked
 * sign-in, user or role takes effect on the very next request.
 *
 * A token's signature and claims never change, so a token verified once is remembered by its exact text and not
 * verified again: koa-jwt then runs only for a token not seen yet, and a remembered one gets the same `isRevoked`,
 * its expiry checked against the clock every time. Only access tokens of a live sign-in are remembered, the oldest
 * forgotten first.
 */
export function accessTokenAuthentication(settings: AccessTokenSettings): (ctx: Context) => Promise<void> {
  const verified = new BoundedMemo<AccessClaims>(maxRemembered);
  const seconds = () => Math.floor(settings.clock().getTime() / 1000);
  const presented = (ctx: Context) => presentedToken(ctx, settings.accessCookie);
  // The sign-in's check: the principal, or the reason there is none, on ctx.state; true refuses the token.
  const checkSignIn = async (
    ctx: Context,
    claims: Partial<AccessClaims>,
    via: Principal['via'] | undefined,
  ): Promise<boolean> => {
    const state = ctx.state as AppState;
    if (!isAccessClaims(claims) || via === undefined) {
      state.authFailure = 'token_invalid';
      return true;
    }
    const lookup = await settings.principalOf(ctx, claims, via);
    if ('principal' in lookup) state.principal = lookup.principal;
    else state.authFailure = lookup.refused;
    return state.principal === undefined;
  };
  const viaOf = (token: Presented) => (typeof token === 'object' ? token.via : undefined);
  // jsonwebtoken's own option, passed through by koa-jwt: read at each verification.
  const options: Omit<koaJwt.Options, 'secret'> & { secret: unknown; readonly clockTimestamp: number } = {
    secret: signingKey(settings.secret),
    algorithms: [tokenAlgorithm],
    passthrough: true,
    key: 'verifiedToken',
    getToken: (ctx) => {
      const token = presented(ctx);
      return typeof token === 'object' ? token.token : null;
    },
    isRevoked: (ctx, claims) => checkSignIn(ctx, claims, viaOf(presented(ctx))),
    get clockTimestamp() {
      return seconds();
    },
  };
  const verifyWithKoaJwt = koaJwt(options as koaJwt.Options);
  return async (ctx) => {
    const token = presented(ctx);
    if (token === 'none') return;
    const state = ctx.state as AppState;
    if (token === 'malformed') {
      state.authFailure = 'token_invalid';
      return;
    }
    const claims = verified.get(token.token);
    if (claims === undefined) return verifyWithKoaJwtRemembering(ctx, token.token);
    if (seconds() < claims.exp) {
      await checkSignIn(ctx, claims, token.via);
      return;
    }
    verified.forget(token.token);
    state.authFailure = 'token_expired';
  };
  async function verifyWithKoaJwtRemembering(ctx: Context, token: string): Promise<void> {
    const state = ctx.state as KoaJwtState;
    await verifyWithKoaJwt(ctx, nothingAfter);
    const { verifiedToken, jwtOriginalError } = state;
    delete state.verifiedToken;
    delete state.jwtOriginalError;
    if (verifiedToken !== undefined) verified.remember(token, verifiedToken);
    else if (state.authFailure === undefined) state.authFailure = failureOf(jwtOriginalError);
  }
}

/**
 * Why koa-jwt did not accept a token. An error that is not jsonwebtoken's came from the principal's lookup (the
 * database): not the token's fault, so it is thrown on (a 500, not a 401), where koa-jwt's passthrough kept it.
 */
function failureOf(error: unknown): 'token_expired' | 'token_invalid' {
  if (error instanceof jwt.TokenExpiredError) return 'token_expired';
  if (error instanceof jwt.JsonWebTokenError) return 'token_invalid';
  throw error;
}
