import { randomBytes, scrypt } from 'node:crypto';
import { promisify } from 'node:util';
import test from 'ava';
import type { Knex } from 'knex';
import { verifyPassword } from '../../activities/auth/passwords';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { fileTeardown } from '../helpers/teardown';
import { createUser, testPassword } from '../helpers/users';

/** Sessions and throttling (issue 12, items 9 to 14), each against the real app with a clock the test moves. */
const file = fileTeardown(test);
let knex: Knex;
let app: TestApp;
let now = new Date('2026-11-22T08:00:00Z');
const hours = (count: number) => count * 3600 * 1000;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, clock: () => now });
});

function cookiesOf(response: TestResponse): Record<string, string> {
  return Object.fromEntries(
    response.headers.getSetCookie().map((line) => line.split(';', 1)[0]!.split('=') as [string, string]),
  );
}
const signIn = (username: string, address: string) =>
  app.request('POST', '/api/v1/token/', {
    json: { username, password: testPassword },
    headers: { 'x-forwarded-for': address },
  });

test.serial(
  'behind one trusted proxy the client address is the one it appended, not what the client wrote on the left',
  async (t) => {
    await createUser(knex, 'proxied');
    for (let index = 0; index < 5; index += 1) {
      const wrong = await app.request('POST', '/api/v1/token/', {
        json: { username: 'proxied', password: 'not it at all' },
        headers: { 'x-forwarded-for': `192.0.2.${index}, 10.30.0.1` },
      });
      t.is(wrong.status, 401);
    }
    const spoofed = await app.request('POST', '/api/v1/token/', {
      json: { username: 'proxied', password: testPassword },
      headers: { 'x-forwarded-for': '192.0.2.99, 10.30.0.1' },
    });
    t.is(spoofed.status, 429, 'a forged left part does not make a new address');
  },
);

test.serial(
  'a sign-in ends at its absolute lifetime however often it is refreshed; no token outlives it',
  async (t) => {
    await createUser(knex, 'forever');
    const started = now;
    let pair = (await signIn('forever', '10.31.0.1')).body;
    try {
      for (let day = 1; day <= 7; day += 1) {
        now = new Date(started.getTime() + hours(23 * day));
        const refreshed = await app.request('POST', '/api/v1/token/refresh/', { json: { refresh: pair.refresh } });
        t.is(refreshed.status, 200, `refresh after ${23 * day} h`);
        pair = refreshed.body;
      }
      const expiry = (token: string) =>
        JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp * 1000;
      t.is(
        expiry(pair.refresh),
        started.getTime() + hours(24 * 7),
        'the last refresh token ends with the sign-in, not 24 h later',
      );
      now = new Date(started.getTime() + hours(24 * 7) - 1000);
      const last = await app.request('POST', '/api/v1/token/refresh/', { json: { refresh: pair.refresh } });
      t.is(expiry(last.body.access), started.getTime() + hours(24 * 7), 'nor an access token');
      const family = await knex('token_families as f')
        .join('users as u', 'u.id', 'f.user_id')
        .where('u.username', 'forever')
        .first('f.expires_at');
      t.is((family.expires_at as Date).getTime(), started.getTime() + hours(24 * 7));
      now = new Date(started.getTime() + hours(24 * 7) + 1000);
      const over = await app.request('POST', '/api/v1/token/refresh/', { json: { refresh: last.body.refresh } });
      t.is(over.status, 401, 'past seven days: sign in again');
      t.is(over.body.code, 'token_expired');
      t.is(
        (
          await knex('token_families')
            .whereNotNull('revoked_at')
            .whereIn('user_id', knex('users').where({ username: 'forever' }).select('id'))
        ).length,
        0,
        'it ended, nobody revoked it',
      );
    } finally {
      now = started;
    }
  },
);

test.serial(
  'logout with an expired access token revokes the sign-in through the refresh token and clears the cookies',
  async (t) => {
    await createUser(knex, 'leaving');
    const login = await app.request('POST', '/api/v1/auth/login/', {
      json: { username: 'leaving', password: testPassword },
      headers: { 'x-forwarded-for': '10.32.0.1' },
    });
    const jar = cookiesOf(login);
    const started = now;
    // The access token (60 min) has expired; the browser keeps only the others.
    now = new Date(started.getTime() + hours(2));
    try {
      const cookie = `refresh_token=${jar.refresh_token}; csrf_token=${jar.csrf_token}`;
      t.is(
        (await app.request('POST', '/api/v1/auth/logout/', { headers: { cookie } })).status,
        403,
        'a cookie logout still needs its CSRF proof',
      );
      const logout = await app.request('POST', '/api/v1/auth/logout/', {
        headers: { cookie, 'x-csrf-token': jar.csrf_token! },
      });
      t.is(logout.status, 204);
      t.regex(logout.headers.getSetCookie().join('\n'), /refresh_token=;.*expires=thu, 01 jan 1970/i);
      const refresh = await app.request('POST', '/api/v1/token/refresh/', {
        headers: { cookie, 'x-csrf-token': jar.csrf_token! },
      });
      t.is(refresh.status, 401);
      t.is(refresh.body.code, 'token_revoked');
      // A JSON client sends its refresh token in the body.
      await createUser(knex, 'leaving.json');
      const pair = (await signIn('leaving.json', '10.32.0.2')).body;
      t.is((await app.request('POST', '/api/v1/auth/logout/', { json: { refresh: pair.refresh } })).status, 204);
      t.is(
        (await app.request('POST', '/api/v1/token/refresh/', { json: { refresh: pair.refresh } })).body.code,
        'token_revoked',
      );
      t.is(
        (await app.request('POST', '/api/v1/auth/logout/', {})).status,
        204,
        'with nothing to end, logout still clears the cookies',
      );
    } finally {
      now = started;
    }
  },
);

test.serial('logout with only an expired access token still ends the sign-in (issue 27 item 5)', async (t) => {
  await createUser(knex, 'leaving.bearer');
  await createUser(knex, 'leaving.cookie');
  const pair = (await signIn('leaving.bearer', '10.32.0.3')).body;
  const login = await app.request('POST', '/api/v1/auth/login/', {
    json: { username: 'leaving.cookie', password: testPassword },
    headers: { 'x-forwarded-for': '10.32.0.4' },
  });
  const jar = cookiesOf(login);
  const started = now;
  // The access tokens (60 min) have expired, the sign-ins (7 days) have not.
  now = new Date(started.getTime() + hours(2));
  try {
    const forged = `${pair.access.slice(0, -4)}AAAA`;
    t.is(
      (await app.request('POST', '/api/v1/auth/logout/', { headers: { authorization: `Bearer ${forged}` } })).status,
      204,
    );
    t.is(
      (await app.request('POST', '/api/v1/token/refresh/', { json: { refresh: pair.refresh } })).status,
      200,
      'a forged token ends nothing',
    );
    const renewed = (await signIn('leaving.bearer', '10.32.0.3')).body;
    now = new Date(now.getTime() + hours(2));
    t.is(
      (await app.request('POST', '/api/v1/auth/logout/', { headers: { authorization: `Bearer ${renewed.access}` } }))
        .status,
      204,
    );
    const refresh = await app.request('POST', '/api/v1/token/refresh/', { json: { refresh: renewed.refresh } });
    t.is(refresh.status, 401, 'the refresh token of the sign-in ended with it');
    t.is(refresh.body.code, 'token_revoked');
    const cookie = `access_token=${jar.access_token}; csrf_token=${jar.csrf_token}`;
    t.is(
      (await app.request('POST', '/api/v1/auth/logout/', { headers: { cookie } })).status,
      403,
      'an expired cookie session still needs its CSRF proof',
    );
    t.is(
      (await app.request('POST', '/api/v1/auth/logout/', { headers: { cookie, 'x-csrf-token': jar.csrf_token! } }))
        .status,
      204,
    );
    const cookieRefresh = await app.request('POST', '/api/v1/token/refresh/', { json: { refresh: jar.refresh_token } });
    t.is(cookieRefresh.body.code, 'token_revoked');
  } finally {
    now = started;
  }
});

test.serial(
  "logout checks the sign-in's end explicitly: a genuine token of a sign-in past its lifetime revokes " +
    'nothing, one within it ends it',
  async (t) => {
    await createUser(knex, 'leaving.late');
    await createUser(knex, 'leaving.inside');
    const late = (await signIn('leaving.late', '10.32.0.5')).body;
    const started = now;
    const familyOf = (username: string) =>
      knex('token_families as f')
        .join('users as u', 'u.id', 'f.user_id')
        .where('u.username', username)
        .first('f.revoked_at', 'f.revoked_reason');
    try {
      now = new Date(started.getTime() + hours(24 * 7) - hours(1));
      const inside = (await signIn('leaving.inside', '10.32.0.6')).body;
      // Past the first sign-in's 7 days. The second's access token has expired, its sign-in has not.
      now = new Date(started.getTime() + hours(24 * 7) + 1000);
      t.is(
        (await app.request('POST', '/api/v1/auth/logout/', { headers: { authorization: `Bearer ${late.access}` } }))
          .status,
        204,
        'logout still answers',
      );
      t.like(
        await familyOf('leaving.late'),
        { revoked_at: null, revoked_reason: null },
        'it ended at its lifetime: no one revoked it',
      );
      t.is(
        (await app.request('POST', '/api/v1/auth/logout/', { headers: { authorization: `Bearer ${inside.access}` } }))
          .status,
        204,
      );
      t.like(
        await familyOf('leaving.inside'),
        { revoked_reason: 'logout' },
        'within its lifetime, the expired access token ends its sign-in',
      );
      t.is(
        (await app.request('POST', '/api/v1/token/refresh/', { json: { refresh: inside.refresh } })).body.code,
        'token_revoked',
      );
    } finally {
      now = started;
    }
  },
);

test.serial('registrations and wrong current passwords are throttled', async (t) => {
  await knex('login_failures').insert(
    Array.from({ length: 10 }, () => ({ throttle_key: 'register:10.33.0.1', failed_at: now })),
  );
  const register = await app.request('POST', '/api/v1/auth/register/', {
    json: { username: 'eleventh', password: 'a long passphrase', full_name: 'Eleventh' },
    headers: { 'x-forwarded-for': '10.33.0.1' },
  });
  t.is(register.status, 429, 'ten registrations from one address in the hour already');
  t.is((await knex('users').where({ username: 'eleventh' })).length, 0);
  await createUser(knex, 'changer');
  const headers = { authorization: `Bearer ${(await signIn('changer', '10.33.0.2')).body.access}` };
  const change = () =>
    app.request('POST', '/api/v1/auth/users/me/password/', {
      headers,
      json: { current_password: 'a wrong guess', new_password: 'a brand new secret' },
    });
  for (let index = 0; index < 5; index += 1) t.is((await change()).status, 400);
  t.is((await change()).status, 429);
});

test.serial('a hash made with older parameters is replaced at the next sign-in', async (t) => {
  const salt = randomBytes(16);
  const key = (await promisify(scrypt)(testPassword.normalize('NFC'), salt, 32)) as Buffer; // N=2^14, r=8, p=1
  const old = ['scrypt', 2 ** 14, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
  await knex('users').insert({ username: 'legacy', password_hash: old, full_name: 'Legacy' });
  t.is((await signIn('legacy', '10.34.0.1')).status, 200);
  const stored = (await knex('users').where({ username: 'legacy' }).first()).password_hash as string;
  t.not(stored, old);
  t.regex(stored, /^scrypt\$65536\$8\$2\$/);
  t.true(await verifyPassword(testPassword, stored));
});

test.serial("the CSRF token belongs to its sign-in: another sign-in's token is refused", async (t) => {
  await createUser(knex, 'twice');
  const first = cookiesOf(
    await app.request('POST', '/api/v1/auth/login/', {
      json: { username: 'twice', password: testPassword },
      headers: { 'x-forwarded-for': '10.35.0.1' },
    }),
  );
  const second = cookiesOf(
    await app.request('POST', '/api/v1/auth/login/', {
      json: { username: 'twice', password: testPassword },
      headers: { 'x-forwarded-for': '10.35.0.1' },
    }),
  );
  t.not(first.csrf_token, second.csrf_token);
  const planted = await app.request('POST', '/api/v1/auth/logout/', {
    headers: {
      cookie: `access_token=${first.access_token}; csrf_token=${second.csrf_token}`,
      'x-csrf-token': second.csrf_token!,
    },
  });
  t.is(planted.status, 403, 'a CSRF cookie planted from another sign-in does not pass');
  t.is(
    (
      await app.request('POST', '/api/v1/auth/logout/', {
        headers: { cookie: `access_token=${first.access_token}`, 'x-csrf-token': first.csrf_token! },
      })
    ).status,
    204,
  );
});

test.serial(
  'Secure cookies carry the __Host- prefix (the refresh cookie, with its narrower path, __Secure-)',
  async (t) => {
    const secureApp = await startTestApp(t, { knex, secureCookies: true, clock: () => now });
    await createUser(knex, 'tls');
    const login = await secureApp.request('POST', '/api/v1/auth/login/', {
      json: { username: 'tls', password: testPassword },
      headers: { 'x-forwarded-for': '10.36.0.1' },
    });
    const lines = login.headers.getSetCookie();
    t.deepEqual(lines.map((line) => line.split('=', 1)[0]).sort(), [
      '__Host-access_token',
      '__Host-csrf_token',
      '__Secure-refresh_token',
    ]);
    for (const line of lines) t.regex(line.toLowerCase(), /; secure/);
    for (const line of lines.filter((candidate) => candidate.startsWith('__Host-'))) t.regex(line, /path=\/;/);
    const access = cookiesOf(login)['__Host-access_token'];
    t.is(
      (
        await secureApp.request('GET', '/api/v1/auth/users/me/', {
          headers: { cookie: `__Host-access_token=${access}` },
        })
      ).body.username,
      'tls',
    );
  },
);
