import { createHmac, createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Knex } from 'knex';
import { AppError } from '../../domain/errors';
import { inTransaction } from '../../db/transaction';
import type { ActivityContext, AuthSettings } from '../context';

/** The only algorithm accepted: a token signed otherwise (or `alg: none`) is refused. */
export const tokenAlgorithm = 'HS256';

export interface TokenPair {
  access: string;
  refresh: string;
  accessExpiresAt: Date;
  refreshExpiresAt: Date;
  /** The sign-in the pair belongs to: the CSRF proof of a browser session is derived from it. */
  familyId: string;
}

/** Claims of both token kinds. `fam` ties a token to its sign-in, so revoking the family stops both. */
export interface TokenClaims {
  sub: string;
  fam: string;
  typ: 'access' | 'refresh';
  jti?: string;
}

const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);

const keys = new Map<string, KeyObject>();
/**
 * The signing key as a KeyObject, made once per secret: given a plain string, jsonwebtoken first tries to
 * read it as a public key on every call and fails (an exception per request), before treating it as a secret.
 */
export function signingKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (key === undefined) keys.set(secret, (key = createSecretKey(Buffer.from(secret, 'utf8'))));
  return key;
}

function sign(claims: TokenClaims, now: Date, expiresAt: Date, secret: string): string {
  return jwt.sign({ ...claims, iat: seconds(now), exp: seconds(expiresAt) }, signingKey(secret), {
    algorithm: tokenAlgorithm,
  });
}

/** A new sign-in: a token family, which ends at the absolute session lifetime whatever happens, and its first pair. */
export async function startSession(
  trx: Knex.Transaction,
  context: ActivityContext,
  userId: string,
): Promise<TokenPair> {
  const expiresAt = new Date(context.clock().getTime() + context.auth.sessionTtlSeconds * 1000);
  const [family] = await trx('token_families').insert({ user_id: userId, expires_at: expiresAt }).returning('id');
  return issueTokenPair(trx, context, userId, { id: family.id as string, expiresAt });
}

/** A pair of the family: each token lives its configured time, but never beyond the end of the sign-in. */
async function issueTokenPair(
  trx: Knex.Transaction,
  context: ActivityContext,
  userId: string,
  family: { id: string; expiresAt: Date },
): Promise<TokenPair> {
  const now = context.clock();
  const { jwtSecret, accessTokenTtlSeconds, refreshTokenTtlSeconds } = context.auth;
  const until = (ttlSeconds: number) =>
    new Date(Math.min(now.getTime() + ttlSeconds * 1000, family.expiresAt.getTime()));
  const jti = randomUUID();
  const accessExpiresAt = until(accessTokenTtlSeconds);
  const refreshExpiresAt = until(refreshTokenTtlSeconds);
  await trx('refresh_tokens').insert({ jti, family_id: family.id, expires_at: refreshExpiresAt });
  return {
    access: sign({ sub: userId, fam: family.id, typ: 'access' }, now, accessExpiresAt, jwtSecret),
    refresh: sign({ sub: userId, fam: family.id, typ: 'refresh', jti }, now, refreshExpiresAt, jwtSecret),
    accessExpiresAt,
    refreshExpiresAt,
    familyId: family.id,
  };
}

/**
 * The CSRF proof of a browser sign-in: derived from its family with the server's key, so it cannot be planted
 * by whoever can set a cookie on the domain, and it changes with every sign-in.
 */
export const csrfTokenOf = (familyId: string, secret: string): string =>
  createHmac('sha256', signingKey(secret)).update(`csrf:${familyId}`).digest('base64url');

export function verifyToken(token: string, settings: AuthSettings, now: Date, type: TokenClaims['typ']): TokenClaims {
  let claims: TokenClaims;
  try {
    claims = jwt.verify(token, signingKey(settings.jwtSecret), {
      algorithms: [tokenAlgorithm],
      clockTimestamp: seconds(now),
    }) as TokenClaims;
  } catch (error) {
    const expired = error instanceof jwt.TokenExpiredError;
    throw new AppError(
      'unauthenticated',
      expired ? 'token_expired' : 'token_invalid',
      expired ? 'The token has expired.' : 'The token is not valid.',
    );
  }
  if (claims.typ !== type || typeof claims.sub !== 'string' || typeof claims.fam !== 'string') {
    throw new AppError(
      'unauthenticated',
      'token_invalid',
      `This is not a${type === 'access' ? 'n access' : ' refresh'} token.`,
    );
  }
  return claims;
}

/** The sign-in a token of ours belongs to, even expired (logout ends it all the same); undefined for a forged one. */
export function familyOfToken(token: string, settings: AuthSettings): string | undefined {
  try {
    const claims = jwt.verify(token, signingKey(settings.jwtSecret), {
      algorithms: [tokenAlgorithm],
      ignoreExpiration: true,
    }) as Partial<TokenClaims>;
    return typeof claims.fam === 'string' ? claims.fam : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Logout's end of a sign-in, checked explicitly against the sign-in's own end: an expired access token still ends
 * it within its absolute lifetime; past it, the sign-in ended by itself and is left so (not recorded as revoked).
 */
export async function endSignIn(knex: Knex, familyId: string, now: Date): Promise<void> {
  await knex('token_families')
    .where({ id: familyId })
    .whereNull('revoked_at')
    .where('expires_at', '>', now)
    .update({ revoked_at: knex.fn.now(), revoked_reason: 'logout' });
}

export async function revokeFamily(trx: Knex.Transaction | Knex, familyId: string, reason: string): Promise<void> {
  await trx('token_families')
    .where({ id: familyId })
    .whereNull('revoked_at')
    .update({ revoked_at: trx.fn.now(), revoked_reason: reason });
}

/**
 * Rotation: the presented refresh token is spent and a new pair of the same family issued. A token presented
 * a second time was stolen (or replayed): the whole family is revoked, so thief and owner both sign in again.
 */
export async function rotateRefreshToken(context: ActivityContext, refreshToken: string): Promise<TokenPair> {
  const claims = verifyToken(refreshToken, context.auth, context.clock(), 'refresh');
  const outcome = await inTransaction(context.knex, async (trx) => {
    const row = await trx('refresh_tokens as t')
      .join('token_families as f', 'f.id', 't.family_id')
      .join('users as u', 'u.id', 'f.user_id')
      .where('t.jti', claims.jti ?? '')
      .forUpdate()
      .first(
        't.jti',
        't.used_at',
        'f.id as family_id',
        'f.revoked_at',
        'f.expires_at',
        'u.id as user_id',
        'u.is_active',
      );
    if (row === undefined || row.revoked_at !== null || !row.is_active)
      return { refused: 'token_revoked' as const, tokens: undefined };
    if ((row.expires_at as Date).getTime() <= context.clock().getTime())
      return { refused: 'session_expired' as const, tokens: undefined };
    if (row.used_at !== null) {
      await revokeFamily(trx, row.family_id, 'reuse');
      return { refused: 'token_reused' as const, tokens: undefined };
    }
    await trx('refresh_tokens').where({ jti: row.jti }).update({ used_at: context.clock() });
    return {
      refused: undefined,
      tokens: await issueTokenPair(trx, context, row.user_id, { id: row.family_id, expiresAt: row.expires_at }),
    };
  });
  // Refused after the commit, so a detected reuse stays revoked.
  if (outcome.refused === 'token_reused') {
    throw new AppError(
      'unauthenticated',
      outcome.refused,
      'This refresh token was already used: every session of this sign-in is revoked. Sign in again.',
    );
  }
  if (outcome.refused === 'token_revoked') {
    throw new AppError('unauthenticated', outcome.refused, 'This refresh token is revoked. Sign in again.');
  }
  if (outcome.refused === 'session_expired') {
    throw new AppError(
      'unauthenticated',
      outcome.refused,
      'This sign-in has reached its maximum lifetime. Sign in again.',
    );
  }
  return outcome.tokens;
}
