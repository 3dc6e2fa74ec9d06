import test from 'ava';
import jwt from 'jsonwebtoken';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, testJwtSecret, type TestApp, type TestResponse } from '../helpers/app';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser, testPassword } from '../helpers/users';
import type { Knex } from '../../db/knex';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let now = new Date('2026-11-22T08:00:00Z');
test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, clock: () => now });
});

/** The cookies a browser would keep from Set-Cookie headers, and the header it would send back. */
function cookiesOf(response: TestResponse): Record<string, { value: string; attributes: string }> {
  const jar: Record<string, { value: string; attributes: string }> = {};
  for (const line of response.headers.getSetCookie()) {
    const [pair, ...attributes] = line.split('; ');
    const [name, value] = pair!.split('=');
    jar[name!] = { value: value!, attributes: attributes.join('; ').toLowerCase() };
  }
  return jar;
}
const cookieHeader = (jar: Record<string, { value: string }>, names: string[]) =>
  names.map((name) => `${name}=${jar[name]!.value}`).join('; ');

test.serial('register creates a user with no role; the password policy and duplicates are refused', async (t) => {
  const created = await app.request('POST', '/api/v1/auth/register/', {
    json: { username: 'Alice.M', password: 'a long passphrase', full_name: 'Alice M' },
  });
  t.is(created.status, 201);
  t.is(created.body.username, 'alice.m');
  t.deepEqual(created.body.roles, []);
  t.false('password' in created.body || 'password_hash' in created.body);

  const duplicate = await app.request('POST', '/api/v1/auth/register/', {
    json: { username: 'alice.m', password: 'another passphrase', full_name: 'A' + 'x' },
  });
  t.is(duplicate.status, 409);
  t.is(duplicate.body.code, 'username_taken');

  const weak = await app.request('POST', '/api/v1/auth/register/', {
    json: { username: 'bob', password: '1234567890', full_name: 'Bob' },
  });
  t.is(weak.status, 400);
  t.deepEqual(weak.body.errors, [{ field: 'password', message: 'password must not be only digits' }]);

  const unknown = await app.request('POST', '/api/v1/auth/register/', {
    json: { username: 'carol', password: 'a long passphrase', full_name: 'Carol', is_admin: true },
  });
  t.is(unknown.status, 400);
  t.deepEqual(unknown.body.errors, [{ field: 'is_admin', message: 'is_admin is not a known field' }]);
  t.is((await knex('users').where({ username: 'carol' })).length, 0, 'nothing written');
});

test.serial(
  'login sets HttpOnly SameSite cookies; cookie sessions need the CSRF header for unsafe requests',
  async (t) => {
    await createUser(knex, 'dora');
    const login = await app.request('POST', '/api/v1/auth/login/', {
      json: { username: 'dora', password: testPassword },
    });
    t.is(login.status, 200);
    const jar = cookiesOf(login);
    t.regex(jar.access_token!.attributes, /path=\/; expires=.*; samesite=lax; httponly/);
    t.regex(jar.refresh_token!.attributes, /path=\/api\/v1\/;.*samesite=strict; httponly/);
    t.notRegex(jar.csrf_token!.attributes, /httponly/);
    t.notRegex(jar.access_token!.attributes, /secure/, 'not Secure in development');
    t.is(login.body.csrf_token, jar.csrf_token!.value);

    const cookie = cookieHeader(jar, ['access_token', 'csrf_token']);
    const me = await app.request('GET', '/api/v1/auth/users/me/', { headers: { cookie } });
    t.is(me.status, 200);
    t.is(me.body.username, 'dora');

    const forged = await app.request('POST', '/api/v1/auth/logout/', { headers: { cookie } });
    t.is(forged.status, 403);
    t.is(forged.body.code, 'csrf_failed');
    const wrong = await app.request('POST', '/api/v1/auth/logout/', { headers: { cookie, 'x-csrf-token': 'guess' } });
    t.is(wrong.status, 403);

    const logout = await app.request('POST', '/api/v1/auth/logout/', {
      headers: { cookie, 'x-csrf-token': jar.csrf_token!.value },
    });
    t.is(logout.status, 204);
    t.regex(cookiesOf(logout).access_token!.attributes, /expires=thu, 01 jan 1970/);
    const after = await app.request('GET', '/api/v1/auth/users/me/', { headers: { cookie } });
    t.is(after.status, 401, 'the revoked sign-in stops the access token at once');
    t.is(after.body.code, 'token_revoked');
  },
);

test.serial('Bearer sessions need no CSRF header', async (t) => {
  await createUser(knex, 'emil');
  const headers = await bearer(app, 'emil');
  t.is((await app.request('POST', '/api/v1/auth/logout/', { headers })).status, 204);
});

test.serial('refresh rotates; presenting a spent refresh token revokes the whole family', async (t) => {
  await createUser(knex, 'fatou');
  const first = await app.request('POST', '/api/v1/token/', { json: { username: 'fatou', password: testPassword } });
  const second = await app.request('POST', '/api/v1/token/refresh/', { json: { refresh: first.body.refresh } });
  t.is(second.status, 200);
  t.not(second.body.refresh, first.body.refresh);
  t.is(
    (await app.request('GET', '/api/v1/auth/users/me/', { headers: { authorization: `Bearer ${second.body.access}` } }))
      .status,
    200,
  );

  const replay = await app.request('POST', '/api/v1/token/refresh/', { json: { refresh: first.body.refresh } });
  t.is(replay.status, 401);
  t.is(replay.body.code, 'token_reused');
  const owner = await app.request('POST', '/api/v1/token/refresh/', { json: { refresh: second.body.refresh } });
  t.is(owner.status, 401, 'the legitimate holder must sign in again too');
  t.is(owner.body.code, 'token_revoked');
  t.is(
    (await app.request('GET', '/api/v1/auth/users/me/', { headers: { authorization: `Bearer ${second.body.access}` } }))
      .status,
    401,
  );
});

test.serial('an access token used as a refresh token, or the reverse, is refused', async (t) => {
  await createUser(knex, 'gaston');
  const pair = await app.request('POST', '/api/v1/token/', { json: { username: 'gaston', password: testPassword } });
  t.is((await app.request('POST', '/api/v1/token/refresh/', { json: { refresh: pair.body.access } })).status, 401);
  t.is(
    (await app.request('GET', '/api/v1/auth/users/me/', { headers: { authorization: `Bearer ${pair.body.refresh}` } }))
      .status,
    401,
  );
});

test.serial('expired, tampered, foreign-key and alg:none tokens get 401', async (t) => {
  const userId = await createUser(knex, 'hawa');
  const pair = await app.request('POST', '/api/v1/token/', { json: { username: 'hawa', password: testPassword } });
  const me = (token: string) =>
    app.request('GET', '/api/v1/auth/users/me/', { headers: { authorization: `Bearer ${token}` } });
  t.is((await me(pair.body.access)).status, 200);

  const [header, payload, signature] = pair.body.access.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const tampered = Buffer.from(JSON.stringify({ ...claims, sub: '00000000-0000-4000-8000-000000000000' })).toString(
    'base64url',
  );
  t.is((await me(`${header}.${tampered}.${signature}`)).status, 401);
  t.is((await me(jwt.sign(claims, 'some-other-secret-some-other-secret'))).status, 401);
  const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
  t.is((await me(none)).status, 401);
  t.is(
    (await me(jwt.sign({ ...claims, sub: userId }, testJwtSecret, { algorithm: 'HS384' }))).status,
    401,
    'only HS256',
  );

  now = new Date(now.getTime() + 61 * 60 * 1000); // the injected clock moves past the 60-minute lifetime
  try {
    const expired = await me(pair.body.access);
    t.is(expired.status, 401);
    t.is(expired.body.code, 'token_expired');
    t.is(expired.headers.get('www-authenticate'), 'Bearer');
  } finally {
    now = new Date(now.getTime() - 61 * 60 * 1000);
  }
});

test.serial(
  'wrong password and unknown user get the same answer; repeated failures are throttled with Retry-After',
  async (t) => {
    await createUser(knex, 'ibrahim');
    const attempt = (username: string, password: string, address: string) =>
      app.request('POST', '/api/v1/token/', { json: { username, password }, headers: { 'x-forwarded-for': address } });
    const wrong = await attempt('ibrahim', 'not the password', '10.1.0.1');
    const unknown = await attempt('nobody-here', 'not the password', '10.1.0.1');
    t.is(wrong.status, 401);
    t.deepEqual({ ...wrong.body, request_id: '' }, { ...unknown.body, request_id: '' });

    for (let index = 0; index < 4; index += 1) t.is((await attempt('ibrahim', 'still wrong', '10.1.0.1')).status, 401);
    const throttled = await attempt('ibrahim', testPassword, '10.1.0.1');
    t.is(
      throttled.status,
      429,
      'the sixth attempt on one username from one address is refused, even with the right password',
    );
    t.is(throttled.body.code, 'too_many_attempts');
    t.true(Number(throttled.headers.get('retry-after')) > 0);
    t.is(
      (await attempt('ibrahim', testPassword, '10.3.0.1')).status,
      200,
      'from another address the owner still signs in: a guesser does not lock them out',
    );

    now = new Date(now.getTime() + 16 * 60 * 1000);
    try {
      t.is((await attempt('ibrahim', testPassword, '10.1.0.1')).status, 200, 'the window has passed');
    } finally {
      now = new Date(now.getTime() - 16 * 60 * 1000);
    }
  },
);

/** Earlier failures of a throttle key, as a long guessing run would have left them. */
const priorFailures = (key: string, count: number) =>
  knex('login_failures').insert(Array.from({ length: count }, () => ({ throttle_key: key, failed_at: now })));

test.serial(
  'one account guessed from many addresses, and one address trying many accounts, are throttled too',
  async (t) => {
    await createUser(knex, 'ines');
    await priorFailures('user:ines', 20);
    const user = await app.request('POST', '/api/v1/token/', {
      json: { username: 'ines', password: testPassword },
      headers: { 'x-forwarded-for': '10.8.0.1' },
    });
    t.is(user.status, 429, '20 failures on one account from anywhere');
    await priorFailures('address:10.9.9.9', 100);
    const address = await app.request('POST', '/api/v1/token/', {
      json: { username: 'someone', password: 'whatever123' },
      headers: { 'x-forwarded-for': '10.9.9.9' },
    });
    t.is(address.status, 429, '100 failures from one address');
    t.is(
      (
        await app.request('POST', '/api/v1/token/', {
          json: { username: 'someone', password: 'whatever123' },
          headers: { 'x-forwarded-for': '10.9.9.8' },
        })
      ).status,
      401,
      'another address is not affected',
    );
  },
);

test.serial(
  '30 parallel wrong passwords for one account: 5 are checked, ' +
    'the others refused before any hash (the count is atomic)',
  async (t) => {
    await createUser(knex, 'jamal');
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        app.request('POST', '/api/v1/token/', {
          json: { username: 'jamal', password: 'wrong guess 1' },
          headers: { 'x-forwarded-for': '10.7.0.1' },
        }),
      ),
    );
    t.deepEqual(answers.map((answer) => answer.status).sort(), [...Array(5).fill(401), ...Array(25).fill(429)]);
  },
);

test('cookies are Secure when the app is configured for TLS', async (t) => {
  const secureApp = await startTestApp(t, { knex, secureCookies: true });
  await createUser(knex, 'jules');
  const login = await secureApp.request('POST', '/api/v1/auth/login/', {
    json: { username: 'jules', password: testPassword },
    headers: { 'x-forwarded-for': '10.4.0.1' },
  });
  t.is(login.status, 200);
  for (const cookie of Object.values(cookiesOf(login))) t.regex(cookie.attributes, /secure/);
});

test.serial("changing one's password checks the current one and revokes the other sessions only", async (t) => {
  await createUser(knex, 'kofi');
  const here = await bearer(app, 'kofi', '10.6.0.1');
  const elsewhere = await bearer(app, 'kofi', '10.6.0.2');
  const change = (json: object) => app.request('POST', '/api/v1/auth/users/me/password/', { headers: here, json });
  const wrong = await change({ current_password: 'not my password', new_password: 'a brand new secret' });
  t.deepEqual(wrong.body.errors, [{ field: 'current_password', message: 'current_password is wrong' }]);
  t.is(
    (await change({ current_password: testPassword, new_password: '12345678901' })).body.errors[0].field,
    'new_password',
  );
  t.is((await change({ current_password: testPassword, new_password: 'a brand new secret' })).status, 204);
  t.is((await app.request('GET', '/api/v1/auth/users/me/', { headers: here })).status, 200, 'this session stays');
  t.is((await app.request('GET', '/api/v1/auth/users/me/', { headers: elsewhere })).status, 401, 'the others end');
  const old = await app.request('POST', '/api/v1/token/', {
    json: { username: 'kofi', password: testPassword },
    headers: { 'x-forwarded-for': '10.6.0.3' },
  });
  t.is(old.status, 401);
  const fresh = await app.request('POST', '/api/v1/token/', {
    json: { username: 'kofi', password: 'a brand new secret' },
    headers: { 'x-forwarded-for': '10.6.0.3' },
  });
  t.is(fresh.status, 200);
});
