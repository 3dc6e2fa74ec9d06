import { createHmac } from 'node:crypto';
import { testJwtSecret } from '../helpers/app';
import { testClock } from '../helpers/clock';

const base64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

function jwt(header: object, claims: object, secret: string | undefined): string {
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  if (secret === undefined) return `${unsigned}.`;
  const algorithm = (header as { alg?: string }).alg === 'HS512' ? 'sha512' : 'sha256';
  return `${unsigned}.${createHmac(algorithm, secret).update(unsigned).digest('base64url')}`;
}

/** The claims of a real access token (its payload, unverified). */
function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

/**
 * Authorization headers that must not let anyone in, each built from the caller's real token so that only
 * the flaw differs: unsigned (`alg: none`), tampered, signed with another key or algorithm, expired, a
 * refresh token, plus no header at all and junk.
 */
export function bogusAuthorizations(realAuthorization: string): Record<string, string | undefined> {
  const token = realAuthorization.replace(/^Bearer /, '');
  const claims = claimsOf(token);
  const now = Math.floor(testClock().getTime() / 1000); // the app's clock, not the calendar's
  const [head, payload, signature = ''] = token.split('.');
  const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
  // Signed as the API signs its tokens.
  const signed = (body: object) => `Bearer ${jwt({ alg: 'HS256', typ: 'JWT' }, body, testJwtSecret)}`;
  // An id that names no user and no sign-in.
  const unknownId = '00000000-0000-4000-8000-000000000000';
  return {
    'no token': undefined,
    'alg none': `Bearer ${jwt({ alg: 'none', typ: 'JWT' }, claims, undefined)}`,
    'alg none, signature kept': `Bearer ${jwt({ alg: 'none', typ: 'JWT' }, claims, undefined)}${signature}`,
    'tampered signature': `Bearer ${head}.${payload}.${flipped}`,
    'tampered claims': `Bearer ${head}.${base64url(JSON.stringify({ ...claims, sub: unknownId }))}.${signature}`,
    'other secret': `Bearer ${jwt({ alg: 'HS256', typ: 'JWT' }, claims, 'another-secret-another-secret-another')}`,
    'HS512 with the right secret': `Bearer ${jwt({ alg: 'HS512', typ: 'JWT' }, claims, testJwtSecret)}`,
    expired: signed({ ...claims, iat: now - 7200, exp: now - 3600 }),
    'refresh token as access': signed({ ...claims, typ: 'refresh' }),
    'unknown session': signed({ ...claims, fam: unknownId }),
    'empty bearer': 'Bearer ',
    junk: 'Bearer abc.def.ghi',
    'basic credentials': `Basic ${Buffer.from('admin:admin').toString('base64')}`,
    'token twice': `Bearer ${token} ${token}`,
    'long junk': `Bearer ${'A'.repeat(8000)}`,
  };
}
