import type { Context } from 'koa';
import koaJwt from 'koa-jwt';
import jwt from 'jsonwebtoken';
import { tokenAlgorithm, type TokenClaims } from '../../activities/auth/tokens';
import { BoundedMemo } from '../bounded-memo';
import type { AppState } from '../context';

export type AccessTokenCheck = { claims: TokenClaims } | { failure: NonNullable<AppState['authFailure']> };

/** Tokens whose signature was verified, at most: a sign-in's access token is presented on each of its requests. */
const maxRemembered = 10_000;
const nothingAfter = async () => {};

/**
 * The verifier of access tokens, for one secret: koa-jwt (the design card's package) verifies a token's signature
 * and expiry, HS256 only, so `alg: none` and foreign algorithms fail. It is run in passthrough mode and never
 * refuses by itself: a route that needs a user refuses (docs/architecture.md §7). jsonwebtoken reads koa-jwt's
 * options at each verification, so `clockTimestamp` is the API's clock, which tests set.
 *
 * A token's signature and claims never change, so a token verified once is remembered by its exact text and not
 * verified again on each request; its expiry is checked against the clock every time. Only verified tokens are
 * remembered, the oldest forgotten first. Whether the sign-in is still alive is not a property of the token: the
 * principal's lookup reads it from the database on every request.
 */
export function accessTokenVerifier(secret: string, clock: () => Date): (ctx: Context, token: string) => Promise<AccessTokenCheck> {
  const verified = new BoundedMemo<TokenClaims & { exp: number }>(maxRemembered);
  const seconds = () => Math.floor(clock().getTime() / 1000);
  // jsonwebtoken's own option, passed through by koa-jwt: read at each verification.
  const options: koaJwt.Options & { readonly clockTimestamp: number } = {
    secret: Buffer.from(secret, 'utf8'),
    algorithms: [tokenAlgorithm],
    passthrough: true,
    key: 'verifiedToken',
    getToken: (ctx) => (ctx.state as { tokenToVerify?: string }).tokenToVerify ?? null,
    get clockTimestamp() {
      return seconds();
    },
  };
  const verifyWithKoaJwt = koaJwt(options);
  return async (ctx, token) => {
    let claims = verified.get(token);
    if (claims === undefined) {
      const state = ctx.state as { tokenToVerify?: string; verifiedToken?: TokenClaims & { exp: number }; jwtOriginalError?: unknown };
      state.tokenToVerify = token;
      await verifyWithKoaJwt(ctx, nothingAfter);
      const { verifiedToken, jwtOriginalError } = state;
      delete state.tokenToVerify;
      delete state.verifiedToken;
      delete state.jwtOriginalError;
      if (verifiedToken === undefined) return { failure: jwtOriginalError instanceof jwt.TokenExpiredError ? 'token_expired' : 'token_invalid' };
      // A token without an expiry is not one of ours, whatever signed it: never remembered.
      if (typeof verifiedToken.exp !== 'number' || verifiedToken.typ !== 'access') return { failure: 'token_invalid' };
      verified.remember(token, (claims = verifiedToken));
    }
    if (seconds() >= claims.exp) {
      verified.forget(token);
      return { failure: 'token_expired' };
    }
    return { claims };
  };
}
