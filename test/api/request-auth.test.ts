import { randomUUID } from 'node:crypto';
import test from 'ava';
import jwt from 'jsonwebtoken';
import type { Knex } from 'knex';
import { createKnex } from '../../db/knex';
import { startTestApp, testJwtSecret, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, openSavingsAccount, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { testClock } from '../helpers/clock';

/**
 * What the API reads on every request stays read on every request: a token verified once is not trusted beyond
 * its expiry, and a role, a user or a sign-in changed by another process (here, straight in the database) counts
 * from the very next request, whatever this process saw before.
 */
const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let account: string;
let now = testClock();

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, clock: () => now });
  world = await createLoanWorld(app, knex, 'RA1');
  account = await openSavingsAccount(world, await memberOf(world), '1000');
});

const deposit = (headers: Record<string, string>, json: Record<string, unknown> = { amount: '100' }) =>
  app.request('POST', `/api/v1/members/accounts/${account}/deposits/`, { headers, json });

test.serial(
  'a role revoked by another process refuses the next request of a token that was just accepted',
  async (t) => {
    const { id, headers } = world.users.teller!;
    t.is((await deposit(headers)).status, 201);
    await knex('role_grants').where({ user_id: id }).update({ revoked_at: knex.fn.now() });
    const refused = await deposit(headers);
    t.is(refused.status, 403);
    t.is(refused.body.code, 'role_required');
    await knex('role_grants').where({ user_id: id }).update({ revoked_at: null });
    t.is((await deposit(headers)).status, 201, 'granted again: accepted again');
  },
);

test.serial('a sign-in revoked or a user deactivated elsewhere is refused on the next request', async (t) => {
  const { id, headers } = world.users.cashier!;
  t.is((await deposit(headers)).status, 201);
  await knex('users').where({ id }).update({ is_active: false });
  t.is((await deposit(headers)).body.code, 'token_revoked');
  await knex('users').where({ id }).update({ is_active: true });
  t.is((await deposit(headers)).status, 201);
  await knex('token_families').where({ user_id: id }).update({ revoked_at: knex.fn.now(), revoked_reason: 'test' });
  const refused = await deposit(headers);
  t.is(refused.status, 401);
  t.is(refused.body.code, 'token_revoked');
});

test.serial(
  'a token accepted before its expiry is refused after it, and a malformed Authorization header is an invalid token',
  async (t) => {
    const { headers } = world.users.cashier_and_head!;
    t.is((await deposit(headers)).status, 201);
    const started = now;
    now = new Date(started.getTime() + 3601 * 1000);
    try {
      t.is((await deposit(headers)).body.code, 'token_expired');
    } finally {
      now = started;
    }
    t.is((await deposit(headers)).status, 201, 'the clock moved back: the same token is valid again');
    for (const authorization of [
      `Basic ${headers.authorization!.slice(7)}`,
      'Bearer',
      `Bearer ${headers.authorization!.slice(7)} extra`,
    ]) {
      const answer = await deposit({ authorization });
      t.is(answer.status, 401, authorization);
      t.is(answer.body.code, 'token_invalid', authorization);
    }
    t.is((await deposit({})).body.code, 'not_authenticated');
  },
);

test('a principal that cannot be read (the database unreachable) is a 503, not an invalid token', async (t) => {
  const unreachable = createKnex('postgres://nobody:nothing@127.0.0.1:1/none');
  t.teardown(() => unreachable.destroy());
  const down = await startTestApp(t, { knex: unreachable });
  // A well-signed access token this process never saw: koa-jwt verifies it, then the sign-in's lookup fails.
  const token = jwt.sign({ sub: world.users.cashier!.id, fam: randomUUID(), typ: 'access' }, testJwtSecret, {
    algorithm: 'HS256',
    expiresIn: 3600,
  });
  const answer = await down.request('GET', '/api/v1/auth/users/me/', { headers: { authorization: `Bearer ${token}` } });
  t.is(answer.status, 503);
  t.is(answer.body.code, 'database_unavailable');
});

test.serial('the defaults of a body schema fill each request anew', async (t) => {
  const { headers } = world.users.cashier_and_head!;
  const first = await deposit(headers, { amount: '5', reference: 'first' });
  const second = await deposit(headers, { amount: '5' });
  t.is(first.body.reference, 'first');
  t.is(second.body.reference, '');
  t.is(second.body.channel, 'cash');
});
