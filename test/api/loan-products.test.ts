import { Client, Connection } from '@temporalio/client';
import test from 'ava';
import type { Knex } from 'knex';
import { Money } from '../../domain/money';
import { annuityPayment } from '../../domain/loans/schedule';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, submitApplication, type LoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  world = await createLoanWorld(app, knex, 'LPR');
});

const baseProduct = {
  name: 'Produit',
  term_category: 'cta',
  method: 'constant_annuity',
  annual_rate: '0.12',
  min_amount: '10000',
  max_amount: '5000000',
  min_term_periods: 3,
  max_term_periods: 12,
};
const createProduct = (json: object, as = 'direction') =>
  app.request('POST', '/api/v1/loans/products/', {
    headers: world.users[as]!.headers,
    json: { enterprise: world.enterpriseId, ...baseProduct, ...json },
  });

test('a product gets the accounts of its term category by default and is listed', async (t) => {
  const cta = await createProduct({ code: 'P-CTA' });
  t.is(cta.status, 201, cta.text);
  t.like(cta.body, {
    term_category: 'cta',
    frequency: 'monthly',
    day_count: '30/360',
    portfolio_account_code: '3221',
    interest_income_account_code: '713',
    fee_income_account_code: '7153',
    penalty_income_account_code: '719',
    is_active: true,
  });
  const mlt = await createProduct({ code: 'P-MLT', term_category: 'mlt', min_term_periods: 36, max_term_periods: 60 });
  t.like(mlt.body, {
    portfolio_account_code: '3130',
    interest_income_account_code: '712',
    fee_income_account_code: '7152',
  });
  const list = await app.request('GET', `/api/v1/loans/products/?enterprise=${world.enterpriseId}&term_category=mlt`, {
    headers: world.users.cashier!.headers,
  });
  t.deepEqual(
    list.body.results.map((product: { code: string }) => product.code),
    ['P-MLT'],
  );
});

test(
  'the category must agree with every term; bounds, ' + 'accounts and rates are checked; nothing is written on refusal',
  async (t) => {
    const field = async (json: object) =>
      (await createProduct(json)).body.errors?.[0]?.field ?? (await createProduct(json)).body.code;
    t.is(
      await field({ code: 'B1', max_term_periods: 25 }),
      'max_term_periods',
      'a CTA product may not allow 25 months',
    );
    t.is(
      await field({ code: 'B2', term_category: 'mlt', min_term_periods: 24, max_term_periods: 60 }),
      'min_term_periods',
      'an MLT product may not allow 24 months',
    );
    t.is(
      await field({ code: 'B3', frequency: 'weekly', max_term_periods: 105 }),
      'max_term_periods',
      '105 weeks are beyond 24 months',
    );
    t.is(
      (await createProduct({ code: 'B4', frequency: 'weekly', min_term_periods: 4, max_term_periods: 104 })).status,
      201,
      '104 weeks are 24 months: CTA',
    );
    t.is(await field({ code: 'B5', min_amount: '6000000' }), 'min_amount');
    t.is(
      await field({ code: 'B6', max_grace_periods: 12 }),
      'max_grace_periods',
      'grace must leave a period to amortise',
    );
    t.is(await field({ code: 'B7', portfolio_account_code: '713' }), 'portfolio_account_code');
    t.is(await field({ code: 'B8', annual_rate: 0.12 }), 'annual_rate', 'rates are strings');
    t.is(await field({ code: 'B9', interest_income_account_code: '71' }), 'account_not_leaf');
    t.is(await field({ code: 'CRT' }), 'product_code_taken');
    t.is((await createProduct({ code: 'B10' }, 'cashier')).status, 403);
    t.is(
      (
        await knex('loan_products')
          .where({ enterprise_id: world.enterpriseId })
          .whereLike('code', 'B%')
          .whereNot('code', 'B4')
      ).length,
      0,
    );
  },
);

test('update keeps the product sound; a deactivated product takes no application', async (t) => {
  const created = await createProduct({ code: 'UPD' });
  const patch = (json: object) =>
    app.request('PATCH', `/api/v1/loans/products/${created.body.id}/`, {
      headers: world.users.direction!.headers,
      json,
    });
  t.is((await patch({ max_term_periods: 30 })).body.errors[0].field, 'max_term_periods');
  t.is((await patch({ term_category: 'mlt' })).status, 400, 'the category never changes');
  t.like((await patch({ annual_rate: '0.15', is_active: false })).body, { annual_rate: '0.150000', is_active: false });
  const client = await memberOf(world);
  const refused = await app.request('POST', '/api/v1/loans/applications/', {
    headers: world.users.cashier!.headers,
    json: { client, product: created.body.id, amount: '100000', term_periods: 6 },
  });
  t.is(refused.status, 409);
  t.is(refused.body.code, 'product_inactive');
});

test('simulation: the schedule, fees and TEG of an annuity loan, creating nothing', async (t) => {
  const before = await knex('loan_applications').count({ count: '*' }).first();
  const response = await app.request('POST', `/api/v1/loans/products/${world.productId}/simulation/`, {
    headers: world.users.cashier!.headers,
    json: { amount: '1200000', term_periods: 12, start_date: '2026-01-31' },
  });
  t.is(response.status, 200, response.text);
  const { body } = response;
  // 18 % a year, monthly: the level installment, rounded once, as computed independently by the formula.
  const level = annuityPayment(new Money(1200000), new Money('0.015'), 12)
    .toDecimalPlaces(0, Money.ROUND_HALF_UP)
    .toFixed(0);
  t.is(body.installments[0].total, level);
  t.is(body.installments.length, 12);
  t.is(body.first_due_date, '2026-02-28');
  t.is(body.installments[11].outstanding_after, '0');
  t.is(
    body.installments
      .reduce((sum: Money, row: { principal: string }) => sum.plus(row.principal), new Money(0))
      .toFixed(0),
    '1200000',
  );
  t.is(body.fees, '12000', '1 % of the principal');
  t.true(Number(body.teg) > 18, 'fees lift the TEG above the nominal rate');
  t.deepEqual(await knex('loan_applications').count({ count: '*' }).first(), before);
  const outOfBounds = await app.request('POST', `/api/v1/loans/products/${world.productId}/simulation/`, {
    headers: world.users.cashier!.headers,
    json: { amount: '1200000', term_periods: 30 },
  });
  t.is(outOfBounds.status, 422);
  t.is(outOfBounds.body.code, 'term_periods_out_of_bounds');
});

test('submission: bounds, branch, member status and caps refuse with a code and write nothing', async (t) => {
  const client = await memberOf(world);
  const count = async () =>
    Number((await knex('loan_applications').where({ client_id: client }).count({ count: '*' }).first())!.count);
  t.is((await submitApplication(world, client, { amount: '10000' })).body.code, 'amount_out_of_bounds');
  t.is((await submitApplication(world, client, { term_periods: 25 })).body.code, 'term_periods_out_of_bounds');
  t.is((await submitApplication(world, client, { grace_periods: 4 })).body.code, 'grace_periods_out_of_bounds');
  t.is(
    (await submitApplication(world, client, {}, 'other_cashier')).status,
    404,
    'a member of another branch is not visible',
  );
  t.is(
    (await submitApplication(world, client, { amount: '150000000' })).body.code,
    'cap_share_capital',
    '150 M is above 10 % of 1 000 M',
  );
  const related = await memberOf(world);
  await knex('client_profiles').where({ id: related }).update({ related_party: true });
  t.is((await submitApplication(world, related, { amount: '60000000' })).body.code, 'cap_related_party');
  await knex('client_profiles').where({ id: client }).update({ status: 'suspended', status_reason: 'audit' });
  t.is((await submitApplication(world, client)).body.code, 'member_not_active');
  t.is(await count(), 0);
});

test(
  'applications are listed with their step, history and TEG; ' + 'filters narrow the list; another branch sees none',
  async (t) => {
    const client = await memberOf(world);
    const first = await submitApplication(world, client, { amount: '300000', term_periods: 6 });
    const second = await submitApplication(world, client, { amount: '400000', term_periods: 6 });
    t.is(first.status, 201, first.text);
    const list = await app.request(
      'GET',
      `/api/v1/loans/applications/?client=${client}&current_step=cashier&ordering=amount`,
      { headers: world.users.branch_head!.headers },
    );
    t.deepEqual(
      list.body.results.map((row: { id: string }) => row.id),
      [first.body.id, second.body.id],
    );
    t.like(list.body.results[0], {
      status: 'in_review',
      current_step: 'cashier',
      decisions: [],
      loan: null,
      amount: '300000',
    });
    t.regex(list.body.results[0].teg, /^\d+\.\d{2}$/);
    t.is(
      (
        await app.request('GET', `/api/v1/loans/applications/?client=${client}`, {
          headers: world.users.other_cashier!.headers,
        })
      ).body.count,
      0,
    );
    t.is(
      (
        await app.request('GET', `/api/v1/loans/applications/${first.body.id}/`, {
          headers: world.users.other_cashier!.headers,
        })
      ).status,
      404,
    );
  },
);

test('guarantees: on an application or a loan, never shares; ended at a date; scoped to the branch', async (t) => {
  const client = await memberOf(world);
  const application = (await submitApplication(world, client, { amount: '300000', term_periods: 6 })).body;
  // A personal guarantor covers nothing: a cashier records and ends it alone (covering ones: loan-guarantees.test.ts).
  const add = (json: object, as = 'cashier') =>
    app.request('POST', '/api/v1/loans/guarantees/', {
      headers: world.users[as]!.headers,
      json: { kind: 'personal_guarantor', value: '250000', start_date: '2026-01-01', ...json },
    });
  const added = await add({ application: application.id });
  t.is(added.status, 201, added.text);
  t.like(added.body, {
    application: application.id,
    loan: null,
    kind: 'personal_guarantor',
    value: '250000',
    status: 'in_force',
    pending_change: null,
    account: null,
  });
  t.is(
    (await add({ application: application.id, kind: 'shares' })).body.errors[0].field,
    'kind',
    'shares are never a guarantee',
  );
  t.is((await add({})).body.errors[0].field, 'loan', 'a loan or an application is needed');
  t.is((await add({ application: application.id, end_date: '2025-12-31' })).body.errors[0].field, 'end_date');
  t.is((await add({ application: application.id }, 'other_cashier')).status, 404);
  const ended = await app.request('POST', `/api/v1/loans/guarantees/${added.body.id}/end/`, {
    headers: world.users.cashier!.headers,
    json: { end_date: '2026-06-30' },
  });
  t.is(ended.body.end_date, '2026-06-30');
  const list = await app.request('GET', `/api/v1/loans/guarantees/?application=${application.id}`, {
    headers: world.users.cashier!.headers,
  });
  t.is(list.body.count, 1);
  t.is(
    (
      await app.request('GET', `/api/v1/loans/guarantees/?application=${application.id}`, {
        headers: world.users.other_cashier!.headers,
      })
    ).body.count,
    0,
  );
});

test(
  'Temporal out of reach: ' + 'the submission answers 503 and the application ends as failed, not waiting forever',
  async (t) => {
    const unreachable = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 500 }) });
    const offline = await startTestApp(t, { knex, temporal: unreachable });
    const client = await memberOf(world);
    const response = await offline.request('POST', '/api/v1/loans/applications/', {
      headers: world.users.cashier!.headers,
      json: { client, product: world.productId, amount: '300000', term_periods: 6 },
    });
    t.is(response.status, 503);
    t.is(response.body.code, 'workflow_unavailable');
    t.like(await knex('loan_applications').where({ client_id: client }).first(), {
      status: 'failed',
      current_step: null,
    });
  },
);
