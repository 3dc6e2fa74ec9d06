import test from 'ava';
import type { Knex } from 'knex';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/app';
import { insertClient } from '../helpers/mothers';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let enterpriseId: string;
let headOffice: string;
let otherBranch: string;
let productId: string;
let rootId: string;
const headers: Record<string, Record<string, string>> = {};

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  rootId = await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  headers.root = await bearer(app, 'root');
  const created = await app.request('POST', '/api/v1/enterprise/enterprises/', {
    headers: headers.root,
    json: { code: 'SAV', name: 'Coop savings', legal_form: 'C', country: 'CM' },
  });
  enterpriseId = created.body.id;
  headOffice = (await knex('branches').where({ enterprise_id: enterpriseId }).first('id')).id;
  otherBranch = (
    await app.request('POST', '/api/v1/enterprise/branches/', {
      headers: headers.root,
      json: { enterprise: enterpriseId, code: 'B2', name: 'Branch two' },
    })
  ).body.id;
  for (const [name, role, branchId] of [
    ['cashier', 'cashier', headOffice],
    ['other_cashier', 'cashier', otherBranch],
    ['direction', 'direction', null],
  ] as const) {
    await createUser(knex, name, [{ role, enterpriseId, branchId }]);
    headers[name] = await bearer(app, name, `10.40.0.${Object.keys(headers).length}`);
  }
  const product = await app.request('POST', '/api/v1/members/products/', {
    headers: headers.direction,
    json: {
      enterprise: enterpriseId,
      code: 'EPA',
      name: 'Épargne à vue',
      kind: 'demand_deposit',
      minimum_opening_balance: '10000',
      minimum_balance: '5000',
      deposit_account_code: '373',
    },
  });
  if (product.status !== 201) throw new Error(product.text);
  productId = product.body.id;
});

async function openAccount(initial = '20000', branchId = headOffice, as = 'cashier') {
  const client = await insertClient(knex, enterpriseId, branchId, rootId);
  const response = await app.request('POST', '/api/v1/members/accounts/', {
    headers: headers[as],
    json: { client, product: productId, initial_deposit: initial },
  });
  if (response.status !== 201) throw new Error(response.text);
  return response.body as { id: string; number: string; balance: string };
}
const move = (
  id: string,
  kind: 'deposits' | 'withdrawals',
  amount: unknown,
  extra: Record<string, string> = {},
  as = 'cashier',
) =>
  app.request('POST', `/api/v1/members/accounts/${id}/${kind}/`, {
    headers: { ...headers[as], ...extra },
    json: { amount, reference: 'guichet' },
  });
const balanceOf = async (id: string) =>
  (await knex('comptes_clients').where({ id }).first('balance')).balance as string;
const reconciliation = async () =>
  (
    await app.request('GET', `/api/v1/members/reconciliation/?enterprise=${enterpriseId}`, {
      headers: headers.direction,
    })
  ).body;

test('products: the deposit account must be a postable class-3 account; codes are unique', async (t) => {
  const create = (json: object) =>
    app.request('POST', '/api/v1/members/products/', {
      headers: headers.direction,
      json: { enterprise: enterpriseId, name: 'Product', kind: 'demand_deposit', ...json },
    });
  t.is((await create({ code: 'X1', deposit_account_code: '713' })).body.errors[0].field, 'deposit_account_code');
  t.is((await create({ code: 'X2', deposit_account_code: '37' })).body.code, 'account_not_leaf');
  t.is((await create({ code: 'EPA', deposit_account_code: '373' })).body.code, 'product_code_taken');
  t.is(
    (await create({ code: 'X3', deposit_account_code: '373', interest_rate: 0.05 })).body.errors[0].field,
    'interest_rate',
    'rates are strings',
  );
  t.is(
    (
      await app.request('POST', '/api/v1/members/products/', {
        headers: headers.cashier,
        json: {
          enterprise: enterpriseId,
          code: 'X4',
          name: 'Nope',
          kind: 'demand_deposit',
          deposit_account_code: '373',
        },
      })
    ).status,
    403,
  );
});

test(
  'opening posts the initial deposit; ' + 'numbers follow the branch sequence; the minimum opening balance holds',
  async (t) => {
    const account = await openAccount('20000');
    t.regex(account.number, /^HQ-EPA-\d{7}$/);
    t.is(account.balance, '20000');
    const lines = await knex('journal_lines as l')
      .join('journal_entries as e', 'e.id', 'l.entry_id')
      .join('business_event_logs as ev', 'ev.id', 'e.event_id')
      .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
      .where('ev.subject_id', account.id)
      .orderBy('l.id')
      .select('c.code', 'l.debit', 'l.credit');
    t.deepEqual(lines, [
      { code: '5710', debit: '20000', credit: '0' },
      { code: '373', debit: '0', credit: '20000' },
    ]);
    const client = await insertClient(knex, enterpriseId, headOffice, rootId);
    const tooLittle = await app.request('POST', '/api/v1/members/accounts/', {
      headers: headers.cashier,
      json: { client, product: productId, initial_deposit: '9999' },
    });
    t.is(tooLittle.body.errors[0].field, 'initial_deposit');
    t.is((await knex('comptes_clients').where({ client_id: client })).length, 0, 'nothing written');
  },
);

test('deposits and withdrawals move the balance and the ledger; the minimum balance is never crossed', async (t) => {
  const account = await openAccount('20000');
  const deposit = await move(account.id, 'deposits', '5000');
  t.is(deposit.status, 201);
  t.like(deposit.body, {
    kind: 'deposit',
    amount: '5000',
    balance_after: '25000',
    channel: 'cash',
    reference: 'guichet',
  });
  const events = (await knex('business_event_logs').where({ subject_id: account.id })).length;
  const refused = await move(account.id, 'withdrawals', '22000');
  t.is(refused.status, 409);
  t.is(refused.body.code, 'insufficient_funds');
  t.is(await balanceOf(account.id), '25000');
  t.is((await knex('business_event_logs').where({ subject_id: account.id })).length, events, 'nothing written');
  t.like((await move(account.id, 'withdrawals', '20000')).body, { balance_after: '5000' });
  t.deepEqual(await reconciliation().then((body) => body.results), []);
});

test('bad amounts are 400 naming the field, and move nothing', async (t) => {
  const account = await openAccount();
  for (const amount of ['-5', '0', '12.50', 'abc', 150000, '1e6', '9999999999999999', '', null]) {
    const response = await move(account.id, 'deposits', amount);
    t.is(response.status, 400, `amount ${JSON.stringify(amount)}`);
    t.is(response.body.errors[0].field, 'amount', `amount ${JSON.stringify(amount)}`);
  }
  t.is(await balanceOf(account.id), '20000');
});

test('the same Idempotency-Key answers the first result and moves nothing more; another body is refused', async (t) => {
  const account = await openAccount();
  const first = await move(account.id, 'deposits', '7000', { 'idempotency-key': 'till-7-0001' });
  const again = await move(account.id, 'deposits', '7000', { 'idempotency-key': 'till-7-0001' });
  t.is(again.status, 201);
  t.deepEqual(again.body, first.body);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.is(await balanceOf(account.id), '27000');
  const other = await move(account.id, 'deposits', '7001', { 'idempotency-key': 'till-7-0001' });
  t.is(other.body.code, 'idempotency_key_reused');
  t.is(
    (await move(account.id, 'deposits', '1', { 'idempotency-key': 'has spaces!' })).body.errors[0].field,
    'Idempotency-Key',
  );
  const concurrent = await Promise.all(
    Array.from({ length: 5 }, () => move(account.id, 'deposits', '1000', { 'idempotency-key': 'till-7-0002' })),
  );
  t.is(new Set(concurrent.map((response) => response.body.id)).size, 1, 'concurrent retries are one deposit');
  t.is(await balanceOf(account.id), '28000');
});

test('50 concurrent withdrawals on a balance covering 10: exactly 10 succeed, the ledger matches', async (t) => {
  const account = await openAccount('15000'); // minimum balance 5000: 10 withdrawals of 1000 fit
  const responses = await Promise.all(Array.from({ length: 50 }, () => move(account.id, 'withdrawals', '1000')));
  t.is(responses.filter((response) => response.status === 201).length, 10);
  t.true(
    responses
      .filter((response) => response.status !== 201)
      .every((response) => response.body.code === 'insufficient_funds'),
  );
  t.is(await balanceOf(account.id), '5000');
  t.deepEqual((await reconciliation()).results, []);
});

test('frozen and closed accounts refuse movements; closing needs a zero balance', async (t) => {
  const account = await openAccount();
  const action = (name: string, as = 'root') =>
    app.request('POST', `/api/v1/members/accounts/${account.id}/${name}/`, {
      headers: headers[as],
      json: { reason: 'court order' },
    });
  t.is((await action('freeze', 'cashier')).status, 403, 'a cashier cannot freeze');
  t.is((await action('freeze')).body.status, 'frozen');
  t.is((await move(account.id, 'deposits', '100')).body.code, 'account_frozen');
  t.is((await action('close')).body.code, 'invalid_status_transition');
  t.is((await action('unfreeze')).body.status, 'open');
  t.is((await action('close')).body.code, 'balance_not_zero');
});

test(
  'the statement runs the balance across pages and ' + 'cuts at date_from with the balance brought forward',
  async (t) => {
    const account = await openAccount('20000');
    await move(account.id, 'deposits', '3000');
    await move(account.id, 'withdrawals', '1000');
    const statement = await app.request('GET', `/api/v1/members/accounts/${account.id}/statement/`, {
      headers: headers.cashier,
    });
    t.deepEqual(
      statement.body.results.map((row: { amount: string; running_balance: string }) => [
        row.amount,
        row.running_balance,
      ]),
      [
        ['20000', '20000'],
        ['3000', '23000'],
        ['-1000', '22000'],
      ],
    );
    const page2 = await app.request('GET', `/api/v1/members/accounts/${account.id}/statement/?page=2&page_size=2`, {
      headers: headers.cashier,
    });
    t.deepEqual(
      page2.body.results.map((row: { running_balance: string }) => row.running_balance),
      ['22000'],
    );
    const later = await app.request('GET', `/api/v1/members/accounts/${account.id}/statement/?date_from=2099-01-01`, {
      headers: headers.cashier,
    });
    t.is(later.body.count, 0);
  },
);

test("branch isolation and roles: another branch's cashier sees nothing; direction may not handle cash", async (t) => {
  const account = await openAccount();
  t.is(
    (await app.request('GET', `/api/v1/members/accounts/${account.id}/`, { headers: headers.other_cashier })).status,
    404,
  );
  t.is((await move(account.id, 'deposits', '100', {}, 'other_cashier')).status, 404);
  t.false(
    (
      await app.request('GET', '/api/v1/members/accounts/?page_size=100', { headers: headers.other_cashier })
    ).body.results.some((row: { id: string }) => row.id === account.id),
  );
  t.false(
    (
      await app.request('GET', '/api/v1/members/deposits/?page_size=100', { headers: headers.other_cashier })
    ).body.results.some((row: { account: string }) => row.account === account.id),
  );
  t.is((await move(account.id, 'deposits', '100', {}, 'direction')).status, 403);
  t.is(
    (
      await app.request('GET', `/api/v1/members/reconciliation/?enterprise=${enterpriseId}`, {
        headers: headers.cashier,
      })
    ).status,
    403,
  );
});

test(
  'an account never changes branch, ' + "and the scope the API remembers still goes through each caller's rights",
  async (t) => {
    const account = await openAccount();
    t.is((await move(account.id, 'deposits', '100')).status, 201, "the account's scope is now remembered");
    t.is((await move(account.id, 'deposits', '100', {}, 'other_cashier')).status, 404);
    t.is((await move(account.id, 'deposits', '100', {}, 'direction')).status, 403);
    await t.throwsAsync(knex('comptes_clients').where({ id: account.id }).update({ branch_id: otherBranch }), {
      message: /never changes enterprise or branch/,
    });
    t.is((await knex('comptes_clients').where({ id: account.id }).first('branch_id')).branch_id, headOffice);
    t.is((await move(account.id, 'deposits', '100')).status, 201);
    t.is(await balanceOf(account.id), '20200');
  },
);

// Serial: while its balance is tampered, the enterprise's reconciliation that other tests read shows the account.
test.serial(
  'reconciliation stays empty after a random sequence of operations, and catches a tampered balance',
  async (t) => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => openAccount('50000')));
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    await Promise.all(
      accounts.map(async (account) => {
        for (let step = 0; step < 12; step += 1) {
          await move(account.id, random() < 0.5 ? 'deposits' : 'withdrawals', String(1 + Math.floor(random() * 20000)));
        }
      }),
    );
    t.deepEqual((await reconciliation()).results, []);
    await knex('comptes_clients').where({ id: accounts[0]!.id }).increment('balance', 1);
    const found = (await reconciliation()).results;
    t.deepEqual(
      found.map((row: { id: string }) => row.id),
      [accounts[0]!.id],
    );
    await knex('comptes_clients').where({ id: accounts[0]!.id }).decrement('balance', 1);
  },
);

test('a member with an open account cannot leave the cooperative', async (t) => {
  const account = await openAccount();
  const { client } = (await app.request('GET', `/api/v1/members/accounts/${account.id}/`, { headers: headers.cashier }))
    .body;
  const leave = await app.request('POST', `/api/v1/members/clients/${client}/leave/`, {
    headers: headers.root,
    json: { reason: 'moved abroad' },
  });
  t.is(leave.status, 409);
  t.is(leave.body.code, 'member_has_open_accounts');
  t.is((await knex('client_profiles').where({ id: client }).first('status')).status, 'active');
});

test(
  'products: listed and shown to the enterprise; changed by direction; ' +
    'the deposit account stays while accounts hold money',
  async (t) => {
    await openAccount();
    const list = await app.request('GET', `/api/v1/members/products/?enterprise=${enterpriseId}`, {
      headers: headers.cashier,
    });
    t.deepEqual(
      list.body.results.map((product: { code: string }) => product.code),
      ['EPA'],
    );
    t.like((await app.request('GET', `/api/v1/members/products/${productId}/`, { headers: headers.cashier })).body, {
      code: 'EPA',
      minimum_balance: '5000',
      deposit_account_code: '373',
    });
    const move = await app.request('PATCH', `/api/v1/members/products/${productId}/`, {
      headers: headers.direction,
      json: { deposit_account_code: '3711' },
    });
    t.is(move.body.code, 'product_has_accounts');
    t.is(
      (
        await app.request('PATCH', `/api/v1/members/products/${productId}/`, {
          headers: headers.cashier,
          json: { name: 'Renamed' },
        })
      ).status,
      403,
    );
    t.is(
      (
        await app.request('PATCH', `/api/v1/members/products/${productId}/`, {
          headers: headers.direction,
          json: { code: 'NEW' },
        })
      ).body.errors[0].field,
      'code',
      'a code never changes',
    );
    const renamed = await app.request('PATCH', `/api/v1/members/products/${productId}/`, {
      headers: headers.direction,
      json: { name: 'Épargne à vue plus' },
    });
    t.is(renamed.body.name, 'Épargne à vue plus');
    const [other] = await knex('enterprises')
      .insert({ code: 'ELSE', name: 'Else', legal_form: 'C', country: 'CM' })
      .returning('id');
    await createUser(knex, 'stranger', [{ role: 'direction', enterpriseId: other.id, branchId: null }]);
    const stranger = await bearer(app, 'stranger', '10.40.9.9');
    t.is((await app.request('GET', `/api/v1/members/products/${productId}/`, { headers: stranger })).status, 404);
  },
);
