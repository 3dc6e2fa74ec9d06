import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { approveRequest, secondAdmin } from '../helpers/approvals';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, openSavingsAccount, putBusinessDate, type LoanWorld } from '../helpers/loans';
import { capitalBooks, createShareType, pay, subscribe, subscribeShares } from '../helpers/shares';
import { fileTeardown } from '../helpers/teardown';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let founderType: string;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  world = await createLoanWorld(app, knex, 'SHR');
  founderType = await createShareType(world, { code: '001', nominal_value: '10000', max_shares: 50 });
});

const as = (name: string) => world.users[name]!.headers;
const founderFlag = (clientId: string, founder: boolean, name = 'direction') =>
  app.request('POST', `/api/v1/members/clients/${clientId}/founder/`, {
    headers: as(name),
    json: { founder, reason: 'named in the statutes' },
  });

/** The capital accounts tie out to the register and the refunds owed; the whole ledger balances. */
async function assertLedgerMatchesRegister(t: ExecutionContext) {
  const books = await capitalBooks(world);
  t.deepEqual(books.ledger, books.register);
  t.true(books.balanced, 'trial balance: debits = credits');
}

/** The founder type's legal bounds: seniority of 5 years at least, a minimum initial payment of a quarter. */
async function assertFounderBoundsKept(t: ExecutionContext) {
  t.is(
    (
      await app.request('PATCH', `/api/v1/shares/types/${founderType}/`, {
        headers: as('direction'),
        json: { seniority_years: 4 },
      })
    ).body.errors[0].field,
    'seniority_years',
    'founder seniority is never below 5 years',
  );
  t.is(
    (
      await app.request('PATCH', `/api/v1/shares/types/${founderType}/`, {
        headers: as('direction'),
        json: { minimum_initial_payment_rate: '0.2' },
      })
    ).status,
    400,
  );
}

/**
 * The notice is under four eyes, sent alone (docs/domain.md §11): with another field it is refused, then approved
 * alone.
 */
async function assertNoticeUnderFourEyes(t: ExecutionContext) {
  const ordinary = `/api/v1/shares/types/${world.shareTypeId}/`;
  t.is(
    (
      await app.request('PATCH', ordinary, {
        headers: as('direction'),
        json: { name: 'Parts ordinaires', notice_days: 30 },
      })
    ).body.code,
    'approval_change_mixed',
  );
  t.is(
    (await app.request('PATCH', ordinary, { headers: as('direction'), json: { name: 'Parts ordinaires' } })).body.name,
    'Parts ordinaires',
  );
  t.is(
    (
      await approveRequest(
        knex,
        await app.request('PATCH', ordinary, { headers: as('direction'), json: { notice_days: 30 } }),
        await secondAdmin(knex, world),
      )
    ).status,
    200,
  );
  t.is(
    (await app.request('GET', ordinary, { headers: as('direction') })).body.notice_days,
    30,
    'other fields change at any time',
  );
}

test.serial(
  "share types: the seed's three codes once each, defaults by code, legal bounds, locked while held",
  async (t) => {
    const create = (fields: object, name = 'direction') =>
      app.request('POST', '/api/v1/shares/types/', {
        headers: as(name),
        json: { enterprise: world.enterpriseId, ...fields },
      });
    const honorary = await create({ code: '003', nominal_value: '5000' });
    t.is(honorary.status, 201, honorary.text);
    t.like(honorary.body, {
      code: '003',
      name: 'Honorary',
      voting: false,
      min_shares: 0,
      partial_payment_allowed: false,
      notice_days: null,
    });
    const founder = await app.request('GET', `/api/v1/shares/types/${founderType}/`, { headers: as('cashier') });
    t.like(founder.body, {
      code: '001',
      name: 'Founder',
      seniority_years: 5,
      partial_payment_allowed: true,
      minimum_initial_payment_rate: '0.250000',
      payment_period_months: 36,
    });
    const duplicate = await create({ code: '002', nominal_value: '1000' });
    t.is(duplicate.status, 409);
    t.is(duplicate.body.code, 'share_type_code_taken');
    t.regex(duplicate.body.detail, /002/);
    const fourth = await create({ code: '004', nominal_value: '1000' });
    t.is(fourth.status, 409);
    t.is(fourth.body.code, 'share_type_limit');
    t.is(fourth.body.errors[0].field, 'code');
    t.regex(fourth.body.detail, /004/);
    t.is(
      (await create({ code: '003', nominal_value: '1000' }, 'cashier')).status,
      403,
      'direction and administrators write types',
    );
    await assertFounderBoundsKept(t);
    const list = await app.request('GET', `/api/v1/shares/types/?enterprise=${world.enterpriseId}`, {
      headers: as('cashier'),
    });
    t.deepEqual(
      list.body.results.map((type: { code: string }) => type.code),
      ['001', '002', '003'],
    );
    // Nobody holds honorary shares yet: its value may change; the ordinary shares are held (the capital member).
    t.is(
      (
        await app.request('PATCH', `/api/v1/shares/types/${honorary.body.id}/`, {
          headers: as('direction'),
          json: { nominal_value: '6000', max_shares: 20 },
        })
      ).body.nominal_value,
      '6000',
    );
    const locked = await app.request('PATCH', `/api/v1/shares/types/${world.shareTypeId}/`, {
      headers: as('direction'),
      json: { nominal_value: '2000000' },
    });
    t.is(locked.status, 409);
    t.is(locked.body.code, 'share_type_in_use');
    await assertNoticeUnderFourEyes(t);
  },
);

test.serial(
  'founder shares only for founders named by direction; a quarter at subscription, the rest due within 36 months',
  async (t) => {
    const member = await memberOf(world);
    const refused = await subscribe(world, member, { share_type: founderType, shares: 4 });
    t.is(refused.status, 409);
    t.is(refused.body.code, 'not_a_founder');
    t.is((await founderFlag(member, true, 'branch_head')).status, 403, 'only direction names founders');
    t.is((await founderFlag(member, true)).body.founder, true);
    t.is(
      (await subscribe(world, member, { share_type: founderType, shares: 4, initial_payment: '9999' })).body.errors[0]
        .field,
      'initial_payment',
      'a quarter of 40 000 is 10 000',
    );
    const subscribed = await subscribe(world, member, { share_type: founderType, shares: 4, initial_payment: '10000' });
    t.is(subscribed.status, 201, subscribed.text);
    t.regex(subscribed.body.number, /^SUB-\d{4}-\d{6}$/);
    t.like(subscribed.body, {
      shares: 4,
      amount: '40000',
      paid_amount: '10000',
      unpaid_amount: '30000',
      payment_overdue: false,
    });
    t.is(
      subscribed.body.payment_due_on,
      `${Number(subscribed.body.subscribed_on.slice(0, 4)) + 3}${subscribed.body.subscribed_on.slice(4)}`,
    );
    t.is(subscribed.body.payments.length, 1);
    t.regex(subscribed.body.payments[0].number, /^PAY-\d{4}-\d{6}$/);
    t.is(
      (await subscribe(world, member, { share_type: founderType, shares: 47 })).body.code,
      'above_maximum_shares',
      '4 held + 47 > 50',
    );
    const over = await pay(world, subscribed.body.id, { amount: '30001' });
    t.is(over.status, 409);
    t.is(over.body.code, 'exceeds_unpaid');
    const account = await openSavingsAccount(world, member, '50000');
    const paid = await pay(world, subscribed.body.id, { amount: '20000', channel: 'account', account });
    t.is(paid.status, 201, paid.text);
    t.like(paid.body, { amount: '20000', channel: 'account', unpaid_after: '10000' });
    t.is(
      (await knex('comptes_clients').where({ id: account }).first()).balance,
      '30000',
      "the member's account paid it",
    );
    t.is(
      (await pay(world, subscribed.body.id, { amount: '1', channel: 'account', account: world.productId })).status,
      404,
      'no such account',
    );
    const someoneElse = await openSavingsAccount(world, await memberOf(world), '5000');
    const foreign = await pay(world, subscribed.body.id, { amount: '1', channel: 'account', account: someoneElse });
    t.is(foreign.status, 400, "an account that is not the member's");
    t.is(foreign.body.errors[0].field, 'account');
    const position = await app.request('GET', `/api/v1/shares/positions/?client=${member}`, { headers: as('cashier') });
    t.like(position.body, { founder: true, votes: 1, shares: 4, subscribed: '40000', paid: '30000', unpaid: '10000' });
    await assertLedgerMatchesRegister(t);
  },
);

test.serial(
  'idempotent: a retry answers the first subscription or payment; the same key with another body is refused',
  async (t) => {
    const member = await memberOf(world);
    const key = { 'Idempotency-Key': 'sub-1' };
    const first = await subscribe(world, member, { share_type: world.shareTypeId, shares: 2 }, 'cashier', key);
    const again = await subscribe(world, member, { share_type: world.shareTypeId, shares: 2 }, 'cashier', key);
    t.is(again.status, 201);
    t.is(again.headers.get('idempotent-replayed'), 'true');
    t.is(again.body.id, first.body.id);
    t.is(
      (await subscribe(world, member, { share_type: world.shareTypeId, shares: 3 }, 'cashier', key)).body.code,
      'idempotency_key_reused',
    );
    t.is((await knex('share_subscriptions').where({ client_id: member })).length, 1);
    t.is(
      (await knex('business_event_logs').where({ subject_id: first.body.id })).length,
      2,
      'one subscription event and one payment event',
    );
  },
);

test.serial('payments in arrears are listed for the board; a member in arrears has no vote', async (t) => {
  await putBusinessDate(world, '2026-01-15');
  const member = await memberOf(world);
  await founderFlag(member, true);
  const subscription = await subscribeShares(world, member, {
    share_type: founderType,
    shares: 2,
    initial_payment: '5000',
  });
  t.like(await knex('share_subscriptions').where({ id: subscription.id }).first(), {
    subscribed_on: '2026-01-15',
    payment_due_on: '2029-01-15',
  });
  const overdue = async () =>
    (
      await app.request('GET', `/api/v1/shares/subscriptions/?enterprise=${world.enterpriseId}&payment_overdue=true`, {
        headers: as('direction'),
      })
    ).body.results.map((row: { id: string }) => row.id);
  const votes = async () =>
    (await app.request('GET', `/api/v1/shares/positions/?client=${member}`, { headers: as('cashier') })).body.votes;
  await putBusinessDate(world, '2029-01-15');
  t.false((await overdue()).includes(subscription.id), 'due today is not late');
  t.is(await votes(), 1);
  await putBusinessDate(world, '2029-01-16');
  t.true((await overdue()).includes(subscription.id));
  const detail = await app.request('GET', `/api/v1/shares/subscriptions/${subscription.id}/`, {
    headers: as('cashier'),
  });
  t.like(detail.body, { unpaid_amount: '15000', payment_overdue: true });
  t.is(await votes(), 0, 'only members up to date with their payments vote');
  const register = await app.request(
    'GET',
    `/api/v1/shares/register/?enterprise=${world.enterpriseId}&date=2029-01-16`,
    { headers: as('direction') },
  );
  t.is(register.body.results.find((line: { client: string }) => line.client === member).votes, 0);
  t.is((await pay(world, subscription.id, { amount: '15000' })).status, 201);
  t.false((await overdue()).includes(subscription.id));
  t.is(await votes(), 1);
  await assertLedgerMatchesRegister(t);
});

test.serial(
  'numbering under 20 concurrent subscriptions: gap-free, no duplicate, every entry posted once',
  async (t) => {
    const members = await Promise.all(Array.from({ length: 20 }, () => memberOf(world)));
    const responses = await Promise.all(
      members.map((member) => subscribe(world, member, { share_type: world.shareTypeId, shares: 1 })),
    );
    t.deepEqual(
      responses.map((response) => response.status),
      Array(20).fill(201),
    );
    const year = responses[0]!.body.number.slice(4, 8);
    for (const table of ['share_subscriptions', 'share_payments']) {
      const numbers = (
        await knex(table)
          .where({ enterprise_id: world.enterpriseId })
          .whereLike('number', `%-${year}-%`)
          .select('number')
      )
        .map((row) => Number(row.number.slice(-6)))
        .sort((a, b) => a - b);
      t.deepEqual(
        numbers,
        Array.from({ length: numbers.length }, (_, index) => index + 1),
        `${table}: numbers of ${year} run 1..n, no gap, no duplicate`,
      );
    }
    t.is(new Set(responses.map((response) => response.body.number)).size, 20);
    await assertLedgerMatchesRegister(t);
  },
);

test.serial('the capital register at a date rebuilds the past; a member holding shares cannot leave', async (t) => {
  const register = await app.request('GET', `/api/v1/shares/register/?enterprise=${world.enterpriseId}&page_size=100`, {
    headers: as('direction'),
  });
  t.is(register.status, 200, register.text);
  t.true(register.body.count < 100, 'one page holds them all');
  t.is(register.body.totals.members, register.body.count);
  t.true(register.body.totals.votes <= register.body.totals.members);
  t.is(
    register.body.results.reduce((sum: bigint, line: { paid: string }) => sum + BigInt(line.paid), 0n).toString(),
    register.body.totals.paid,
    'the lines add up to the totals (one page here)',
  );
  t.is(
    register.body.totals.types.reduce((sum: bigint, type: { paid: string }) => sum + BigInt(type.paid), 0n).toString(),
    register.body.totals.paid,
  );
  const past = await app.request('GET', `/api/v1/shares/register/?enterprise=${world.enterpriseId}&date=2000-01-01`, {
    headers: as('direction'),
  });
  t.like(past.body.totals, { members: 0, shares: 0, paid: '0' });
  t.is(
    (await app.request('GET', `/api/v1/shares/register/?enterprise=${world.enterpriseId}`, { headers: as('cashier') }))
      .status,
    403,
    "a branch role does not reach the enterprise's register",
  );
  const member = register.body.results[0].client as string;
  const leave = await app.request('POST', `/api/v1/members/clients/${member}/leave/`, {
    headers: as('branch_head'),
    json: { reason: 'moving away' },
  });
  t.is(leave.status, 409);
  t.true(['member_has_shares', 'member_has_open_accounts'].includes(leave.body.code), leave.body.code);
});

test.serial('bad input names the field; nothing is written', async (t) => {
  const member = await memberOf(world);
  const count = async () => Number((await knex('share_subscriptions').count({ n: '*' }).first())!.n);
  const before = await count();
  for (const [body, field] of [
    [{ share_type: world.shareTypeId, shares: 0 }, 'shares'],
    [{ share_type: world.shareTypeId, shares: '2' }, 'shares'],
    [{ share_type: world.shareTypeId, shares: 1e300 }, 'shares'],
    [{ share_type: world.shareTypeId, shares: 1, initial_payment: 5 }, 'initial_payment'],
    [{ share_type: world.shareTypeId, shares: 1, channel: 'account' }, 'account'],
    [{ share_type: 'x\u0000', shares: 1 }, 'share_type'],
  ] as const) {
    const response = await subscribe(world, member, body);
    t.is(response.status, 400, JSON.stringify(body));
    t.is(response.body.errors[0].field, field, JSON.stringify(body));
  }
  t.is(
    (await subscribe(world, member, { share_type: founderType, shares: 1, __proto__: { shares: 2 } })).status,
    409,
    'not a founder',
  );
  t.is(await count(), before);
});

test.serial(
  "the module documents itself: the seed's operations and the withdrawal's, on its own schema and docs pages",
  async (t) => {
    const schema = await app.request('GET', '/api/v1/shares/schema/');
    t.is(schema.status, 200);
    const operations = Object.entries(schema.body.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const operation of [
      'GET /api/v1/shares/types/',
      'POST /api/v1/shares/types/',
      'GET /api/v1/shares/subscriptions/',
      'POST /api/v1/shares/subscriptions/',
      'GET /api/v1/shares/payments/',
      'POST /api/v1/shares/payments/',
      'GET /api/v1/shares/withdrawals/',
      'POST /api/v1/shares/withdrawals/',
    ]) {
      t.true(operations.includes(operation), operation);
    }
    t.is((await app.request('GET', '/api/v1/shares/docs/')).status, 200);
    const configuration = await app.request(
      'PATCH',
      `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`,
      { headers: as('direction'), json: { share_refund_reminder_days: 45 } },
    );
    t.is(configuration.body.share_refund_reminder_days, 45);
  },
);
