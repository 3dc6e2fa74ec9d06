import jwt from 'jsonwebtoken';
import { signingKey, tokenAlgorithm, type TokenClaims } from '../../activities/auth/tokens';
import { BoundedMemo } from '../bounded-memo';
import type { AppState } from '../context';

export type AccessTokenCheck = { claims: TokenClaims } | { failure: NonNullable<AppState['authFailure']> };

/** Tokens whose signature was verified, at most: a sign-in's access token is presented on each of its requests. */
const maxRemembered = 10_000;

/**
 * The verifier of access tokens (HS256 only, so `alg: none` and foreign algorithms fail), for one secret.
 *
 * A token's signature and claims never change, so a token verified once is remembered by its exact text and not
 * hashed and parsed again on each request; its expiry is checked against `now` every time. Only verified tokens
 * are remembered (a forged one costs its verification every time, as before), in insertion order, the oldest
 * forgotten first. Whether the sign-in is still alive is not a property of the token: the principal's lookup
 * reads it from the database on every request.
 */
export function accessTokenVerifier(secret: string): (token: string, now: Date) => AccessTokenCheck {
  const key = signingKey(secret);
  const verified = new BoundedMemo<TokenClaims & { exp: number }>(maxRemembered);
  return (token, now) => {
    const seconds = Math.floor(now.getTime() / 1000);
    let claims = verified.get(token);
    if (claims === undefined) {
      try {
        claims = jwt.verify(token, key, { algorithms: [tokenAlgorithm], clockTimestamp: seconds }) as TokenClaims & { exp: number };
      } catch (error) {
        return { failure: error instanceof jwt.TokenExpiredError ? 'token_expired' : 'token_invalid' };
      }
      // A token without an expiry is not one of ours, whatever signed it: never remembered.
      if (typeof claims.exp !== 'number' || claims.typ !== 'access') return { failure: 'token_invalid' };
      verified.remember(token, claims);
    }
    if (seconds >= claims.exp) {
      verified.forget(token);
      return { failure: 'token_expired' };
    }
    return { claims };
  };
}
