import test from 'ava';
import type { Knex } from 'knex';
import { recordBusinessEvent } from '../../activities/events/record-business-event';
import { Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { createTestDatabase } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/app';
import { approveRequest, secondAdmin } from '../helpers/approvals';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let root: Record<string, string>;
let enterpriseId: string;
let chartId: string;
let headOffice: string;
const now = new Date('2026-11-22T09:00:00Z');

const post = (
  kind: 'deposit' | 'withdrawal' | 'share_payment',
  amount: string,
  key: string,
  branchId: string | null = headOffice,
) =>
  inTransaction(knex, (trx) =>
    recordBusinessEvent(trx, now, {
      enterpriseId,
      branchId,
      kind,
      amount: new Money(amount),
      payload: { key },
      idempotencyKey: key,
      actorId: null,
    }),
  );

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, clock: () => now });
  await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  root = await bearer(app, 'root');
  const created = await app.request('POST', '/api/v1/enterprise/enterprises/', {
    headers: root,
    json: { code: 'LED', name: 'Coop ledger', legal_form: 'C', country: 'CM' },
  });
  enterpriseId = created.body.id;
  chartId = (await knex('company_charts').where({ enterprise_id: enterpriseId }).first('id')).id;
  headOffice = (await knex('branches').where({ enterprise_id: enterpriseId }).first('id')).id;
  await post('deposit', '100000', 'd1');
  await post('deposit', '50000', 'd2');
  await post('withdrawal', '30000', 'w1');
  await post('share_payment', '10000', 's1', null);
});

test('the event log lists events with their entry, filtered; the detail shows the lines', async (t) => {
  const all = await app.request('GET', `/api/v1/events/?enterprise=${enterpriseId}`, { headers: root });
  t.is(all.status, 200);
  t.is(all.body.count, 4);
  t.deepEqual(
    all.body.results.map((event: { kind: string }) => event.kind),
    ['share_payment', 'withdrawal', 'deposit', 'deposit'],
  );
  const deposits = await app.request('GET', `/api/v1/events/?enterprise=${enterpriseId}&kind=deposit&status=posted`, {
    headers: root,
  });
  t.is(deposits.body.count, 2);
  const detail = await app.request('GET', `/api/v1/events/${all.body.results[0].id}/`, { headers: root });
  t.is(detail.body.entries.length, 1);
  t.deepEqual(
    detail.body.entries[0].lines.map((line: { account: string }) => line.account),
    ['5710', '4411', '10010', '10000'],
  );
  t.is((await app.request('GET', '/api/v1/events/?date_from=2026-11-23', { headers: root })).body.count, 0);
  t.is((await app.request('GET', '/api/v1/events/?kind=teleportation', { headers: root })).status, 400);
});

test('rules: 24 in force; a configured version is listed with its history; bad accounts are refused', async (t) => {
  const rules = await app.request('GET', `/api/v1/events/rule-configs/?enterprise=${enterpriseId}&page_size=50`, {
    headers: root,
  });
  t.is(rules.body.count, 39);
  // A rule changes under four eyes (docs/domain.md §11): another administrator approves it.
  const requested = await app.request('POST', '/api/v1/events/rule-configs/', {
    headers: root,
    json: {
      enterprise: enterpriseId,
      kind: 'loan_fee',
      legs: [{ debit: { role: 'cash' }, credit: { account: '7152' } }],
      reason: 'MT loans only',
    },
  });
  t.is((await approveRequest(knex, requested, await secondAdmin(knex, { enterpriseId }), now)).status, 200);
  const history = await app.request(
    'GET',
    `/api/v1/events/rule-configs/history/?enterprise=${enterpriseId}&kind=loan_fee`,
    { headers: root },
  );
  const changed = { body: history.body.results[0] };
  t.is(changed.body.version, 2);
  t.deepEqual(
    history.body.results.map((rule: { version: number }) => rule.version),
    [2, 1],
  );
  const detail = await app.request('GET', `/api/v1/events/rule-configs/${changed.body.id}/`, { headers: root });
  t.like(detail.body, {
    kind: 'loan_fee',
    version: 2,
    reason: 'MT loans only',
    legs: [{ debit: { role: 'cash' }, credit: { account: '7152' } }],
  });
  const notLeaf = await app.request('POST', '/api/v1/events/rule-configs/', {
    headers: root,
    json: {
      enterprise: enterpriseId,
      kind: 'loan_fee',
      legs: [{ debit: { role: 'cash' }, credit: { account: '715' } }],
      reason: 'wrong one',
    },
  });
  t.is(notLeaf.status, 422);
  t.is(notLeaf.body.code, 'account_not_leaf');
  const bothSides = await app.request('POST', '/api/v1/events/rule-configs/', {
    headers: root,
    json: {
      enterprise: enterpriseId,
      kind: 'loan_fee',
      legs: [{ debit: { role: 'cash', account: '5710' }, credit: { role: 'fee_income' } }],
      reason: 'ambiguous',
    },
  });
  t.is(bothSides.status, 400);
  t.is(bothSides.body.errors[0].field, 'legs[0].debit');
});

test('journal entries, movements with running balance, balance at a date, balanced trial balance', async (t) => {
  const entries = await app.request(
    'GET',
    `/api/v1/accounts/journal-entries/?enterprise=${enterpriseId}&account=3711`,
    { headers: root },
  );
  t.is(entries.body.count, 3);
  const cash = (await knex('company_chart_entries').where({ chart_id: chartId, code: '5710' }).first('id')).id;
  const movements = await app.request('GET', `/api/v1/accounts/charts/${chartId}/entries/${cash}/movements/`, {
    headers: root,
  });
  t.deepEqual(
    movements.body.results.map((row: { running_balance: string }) => row.running_balance),
    ['100000', '150000', '120000', '130000'],
  );
  const secondPage = await app.request(
    'GET',
    `/api/v1/accounts/charts/${chartId}/entries/${cash}/movements/?page=2&page_size=3`,
    { headers: root },
  );
  t.deepEqual(
    secondPage.body.results.map((row: { running_balance: string }) => row.running_balance),
    ['130000'],
    'the balance runs across pages',
  );
  const balance = await app.request(
    'GET',
    `/api/v1/accounts/charts/${chartId}/entries/${cash}/balance/?date=2026-11-22`,
    { headers: root },
  );
  t.like(balance.body, { account: '5710', debit: '160000', credit: '30000', balance: '130000' });
  const before = await app.request(
    'GET',
    `/api/v1/accounts/charts/${chartId}/entries/${cash}/balance/?date=2026-11-21`,
    { headers: root },
  );
  t.is(before.body.balance, '0');
  const trial = await app.request('GET', `/api/v1/accounts/charts/${chartId}/trial-balance/`, { headers: root });
  // 150000 + 30000 + 2 legs of 10000, all movements of the year (no opening balance); the closing columns equal.
  t.like(trial.body.totals, {
    debit: '200000',
    credit: '200000',
    balanced: true,
    opening_debit: '0',
    opening_credit: '0',
    movement_debit: '200000',
    movement_credit: '200000',
  });
  t.is(trial.body.totals.closing_debit, trial.body.totals.closing_credit);
  t.deepEqual(
    trial.body.accounts.map((account: { code: string }) => account.code),
    ['10000', '10010', '3711', '4411', '5710'],
  );
});

test("ledger reads are scoped: another enterprise's user gets 404, a cashier sees their branch only", async (t) => {
  const [other] = await knex('enterprises')
    .insert({ code: 'OTH', name: 'Other', legal_form: 'C', country: 'CM' })
    .returning('id');
  await createUser(knex, 'outsider', [{ role: 'direction', enterpriseId: other.id, branchId: null }]);
  const outsider = await bearer(app, 'outsider', '10.3.3.3');
  t.is(
    (await app.request('GET', `/api/v1/accounts/charts/${chartId}/trial-balance/`, { headers: outsider })).status,
    404,
  );
  t.is((await app.request('GET', `/api/v1/events/?enterprise=${enterpriseId}`, { headers: outsider })).body.count, 0);
  await createUser(knex, 'teller', [{ role: 'cashier', enterpriseId, branchId: headOffice }]);
  const teller = await bearer(app, 'teller', '10.3.3.4');
  const seen = await app.request('GET', '/api/v1/events/', { headers: teller });
  t.is(seen.body.count, 3, "the enterprise-level share payment (no branch) is not a branch teller's");
  t.is(
    (
      await app.request('POST', '/api/v1/events/rule-configs/', {
        headers: teller,
        json: {
          enterprise: enterpriseId,
          kind: 'deposit',
          legs: [{ debit: { role: 'cash' }, credit: { role: 'member_deposits' } }],
          reason: 'no way',
        },
      })
    ).status,
    403,
  );
});

test('an account a rule in force posts to stays a postable leaf: no sub-account, no deactivation', async (t) => {
  const entries = `/api/v1/accounts/charts/${chartId}/entries/`;
  // 3221 and 3291 have no postings here, so the rule is what refuses (loan portfolio, accrued interest).
  const underPortfolio = await app.request('POST', entries, {
    headers: root,
    json: { parent_code: '3221', code: '322101', label: 'Loan product' },
  });
  t.is(underPortfolio.status, 409);
  t.is(underPortfolio.body.code, 'account_used_by_rule');
  const accrued = (await knex('company_chart_entries').where({ chart_id: chartId, code: '3291' }).first('id')).id;
  const deactivate = await app.request('PATCH', `${entries}${accrued}/`, { headers: root, json: { is_active: false } });
  t.is(deactivate.body.code, 'account_used_by_rule');
  t.is(
    (
      await app.request('POST', entries, {
        headers: root,
        json: { parent_code: '373', code: '37301', label: 'Livret A' },
      })
    ).status,
    201,
    'an account no rule names is free',
  );
});
