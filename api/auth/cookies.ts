import { randomBytes } from 'node:crypto';
import type { TokenPair } from '../../activities/auth/tokens';
import type { AppContext } from '../context';
import { AppError } from '../../domain/errors';

export const accessCookie = 'access_token';
export const refreshCookie = 'refresh_token';
export const csrfCookie = 'csrf_token';
export const csrfHeader = 'X-CSRF-Token';
/** The refresh cookie travels only to the refresh endpoint: nothing else can leak or misuse it. */
export const refreshPath = '/api/v1/token/refresh/';

/**
 * Sets the session cookies: access and refresh tokens HttpOnly (no script reads them), SameSite=Lax, and a
 * readable CSRF token the client echoes in the X-CSRF-Token header (double submit).
 */
export function setSessionCookies(ctx: AppContext, tokens: TokenPair, secure: boolean): string {
  const csrfToken = randomBytes(24).toString('base64url');
  const common = { sameSite: 'lax' as const, secure, overwrite: true };
  if (secure) ctx.cookies.secure = true; // TLS ends at a proxy in front: the cookies library must not refuse
  ctx.cookies.set(accessCookie, tokens.access, { ...common, httpOnly: true, path: '/', expires: tokens.accessExpiresAt });
  ctx.cookies.set(refreshCookie, tokens.refresh, { ...common, httpOnly: true, path: refreshPath, expires: tokens.refreshExpiresAt });
  ctx.cookies.set(csrfCookie, csrfToken, { ...common, httpOnly: false, path: '/', expires: tokens.refreshExpiresAt });
  return csrfToken;
}

export function clearSessionCookies(ctx: AppContext, secure: boolean): void {
  if (secure) ctx.cookies.secure = true;
  for (const [name, path] of [[accessCookie, '/'], [refreshCookie, refreshPath], [csrfCookie, '/']] as const) {
    ctx.cookies.set(name, null, { path, sameSite: 'lax', secure, httpOnly: name !== csrfCookie, overwrite: true });
  }
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A cookie-authenticated unsafe request must echo the CSRF cookie in the header: a foreign site cannot. */
export function assertCsrfProof(ctx: AppContext): void {
  if (safeMethods.has(ctx.method)) return;
  const cookie = ctx.cookies.get(csrfCookie);
  const header = ctx.get(csrfHeader);
  if (cookie === undefined || cookie === '' || header !== cookie) {
    throw new AppError('forbidden', 'csrf_failed', `Cookie-authenticated requests must send the ${csrfCookie} cookie's value in the ${csrfHeader} header.`);
  }
}
