import { timingSafeEqual } from 'node:crypto';
import { csrfTokenOf, type TokenPair } from '../../activities/auth/tokens';
import type { AppContext } from '../context';
import { AppError } from '../../domain/errors';

const csrfHeader = 'X-CSRF-Token';
/** The refresh cookie travels only under the API, where the refresh and logout endpoints read it. */
const refreshPath = '/api/v1/';

export interface CookieNames {
  access: string;
  refresh: string;
  csrf: string;
}

/**
 * Secure cookies carry the `__Host-` prefix (Secure, Path=/, no Domain: no subdomain can set or shadow them),
 * or `__Secure-` for the refresh cookie, whose path is narrower. Over plain HTTP in local development the
 * browser would refuse prefixed names: plain ones then.
 */
export const cookieNames = (secure: boolean): CookieNames =>
  secure
    ? { access: '__Host-access_token', refresh: '__Secure-refresh_token', csrf: '__Host-csrf_token' }
    : { access: 'access_token', refresh: 'refresh_token', csrf: 'csrf_token' };

/**
 * Sets the session cookies: access and refresh tokens HttpOnly (no script reads them), and a readable CSRF
 * token the client echoes in the X-CSRF-Token header, derived from the sign-in (see csrfTokenOf).
 */
export function setSessionCookies(ctx: AppContext, tokens: TokenPair, secure: boolean, secret: string): string {
  const names = cookieNames(secure);
  const csrfToken = csrfTokenOf(tokens.familyId, secret);
  const common = { secure, overwrite: true };
  if (secure) ctx.cookies.secure = true; // TLS ends at a proxy in front: the cookies library must not refuse
  ctx.cookies.set(names.access, tokens.access, {
    ...common,
    sameSite: 'lax',
    httpOnly: true,
    path: '/',
    expires: tokens.accessExpiresAt,
  });
  // Only our own pages call the refresh and logout endpoints: never sent by a request another site starts.
  ctx.cookies.set(names.refresh, tokens.refresh, {
    ...common,
    sameSite: 'strict',
    httpOnly: true,
    path: refreshPath,
    expires: tokens.refreshExpiresAt,
  });
  ctx.cookies.set(names.csrf, csrfToken, {
    ...common,
    sameSite: 'lax',
    httpOnly: false,
    path: '/',
    expires: tokens.refreshExpiresAt,
  });
  return csrfToken;
}

export function clearSessionCookies(ctx: AppContext, secure: boolean): void {
  if (secure) ctx.cookies.secure = true;
  const names = cookieNames(secure);
  for (const [name, path] of [
    [names.access, '/'],
    [names.refresh, refreshPath],
    [names.csrf, '/'],
  ] as const) {
    ctx.cookies.set(name, null, { path, sameSite: 'lax', secure, httpOnly: name !== names.csrf, overwrite: true });
  }
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A cookie-authenticated unsafe request must send, in the header, the CSRF token of its own sign-in: a
 * foreign site can neither read it nor compute it.
 */
export function assertCsrfProof(ctx: AppContext, familyId: string, secret: string): void {
  if (safeMethods.has(ctx.method)) return;
  const expected = Buffer.from(csrfTokenOf(familyId, secret));
  const sent = Buffer.from(ctx.get(csrfHeader));
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
    throw new AppError(
      'forbidden',
      'csrf_failed',
      `Cookie-authenticated requests must send the sign-in's CSRF token ` +
        `(the csrf_token cookie's value) in the ${csrfHeader} header.`,
    );
  }
}
