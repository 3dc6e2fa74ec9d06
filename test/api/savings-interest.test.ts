import test from 'ava';
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, type LoanWorld } from '../helpers/loans';
import { accountOf, savingsProductOf } from '../helpers/savings';
import { fileTeardown } from '../helpers/teardown';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  world = await createLoanWorld(app, knex, 'SIA', { capital: false });
});

const createProduct = (json: Record<string, unknown>) =>
  app.request('POST', '/api/v1/members/products/', {
    headers: world.users.direction!.headers,
    json: {
      enterprise: world.enterpriseId,
      name: 'Product',
      kind: 'demand_deposit',
      deposit_account_code: '373',
      ...json,
    },
  });
const fieldOf = (response: { body: { errors?: { field: string }[] } }) => response.body.errors?.[0]?.field;

test(
  "a product's interest settings take the documented defaults, " + 'its expense account by its deposit account',
  async (t) => {
    const created = await createProduct({ code: 'DEF', interest_rate: '0.03' });
    t.is(created.status, 201);
    t.like(created.body, {
      interest_basis: 'minimum_monthly_balance',
      day_count: '30_360',
      posting_frequency: 'monthly',
      withholding_tax_rate: '0.000000',
      withholding_tax_account_code: '4302',
      interest_expense_account_code: '613',
      term_months: null,
      maturity_instruction: null,
      early_closure_rate: null,
    });
    const term = await createProduct({
      code: 'DEFT',
      kind: 'term_deposit',
      term_months: 6,
      deposit_account_code: '36100',
    });
    t.like(term.body, {
      interest_expense_account_code: '612',
      term_months: 6,
      maturity_instruction: 'pay_out',
      early_closure_rate: '0',
    });
    t.is(
      (await createProduct({ code: 'DEFV', deposit_account_code: '3711' })).body.interest_expense_account_code,
      '614',
    );
  },
);

test('every interest field is validated, the refusal naming it; nothing is created', async (t) => {
  // A term product at 4 %: its penalty rate may not exceed it.
  const term = { kind: 'term_deposit', deposit_account_code: '36100', term_months: 6, interest_rate: '0.04' };
  const refusals: [Record<string, unknown>, string][] = [
    [{ interest_basis: 'weekly_balance' }, 'interest_basis'],
    [{ day_count: 'actual_360' }, 'day_count'],
    [{ posting_frequency: 'daily' }, 'posting_frequency'],
    [{ withholding_tax_rate: 0.1 }, 'withholding_tax_rate'],
    [{ withholding_tax_rate: '1.5' }, 'withholding_tax_rate'],
    [{ withholding_tax_account_code: '713' }, 'withholding_tax_account_code'],
    [{ withholding_tax_account_code: 'abc' }, 'withholding_tax_account_code'],
    [{ interest_expense_account_code: '713' }, 'interest_expense_account_code'],
    [{ interest_expense_account_code: '3711' }, 'interest_expense_account_code'],
    [{ kind: 'term_deposit', deposit_account_code: '36100' }, 'term_months'],
    [{ kind: 'term_deposit', deposit_account_code: '36100', term_months: 0 }, 'term_months'],
    [{ kind: 'term_deposit', deposit_account_code: '36100', term_months: 121 }, 'term_months'],
    [{ kind: 'term_deposit', deposit_account_code: '36100', term_months: '12' }, 'term_months'],
    [{ term_months: 12 }, 'term_months'],
    [{ maturity_instruction: 'renew' }, 'maturity_instruction'],
    [{ early_closure_rate: '0' }, 'early_closure_rate'],
    [{ ...term, maturity_instruction: 'roll_over' }, 'maturity_instruction'],
    [
      { ...term, maturity_instruction: 'renew_with_interest', interest_payment: 'to_payout_account' },
      'maturity_instruction',
    ],
    [{ ...term, early_closure_rate: 0.01 }, 'early_closure_rate'],
    [{ ...term, early_closure_rate: '-0.01' }, 'early_closure_rate'],
    [{ ...term, early_closure_rate: '0.05' }, 'early_closure_rate'],
  ];
  for (const [index, [fields, field]] of refusals.entries()) {
    const refused = await createProduct({ code: `BAD${index}`, ...fields });
    t.is(refused.status, 400, JSON.stringify(fields));
    t.is(fieldOf(refused), field, JSON.stringify(fields));
  }
  t.is(
    (await createProduct({ code: 'BADL', withholding_tax_account_code: '430' })).body.code,
    'account_not_leaf',
    'a totals account is refused (422)',
  );
  t.is((await createProduct({ code: 'BADE', interest_expense_account_code: '61' })).body.code, 'account_not_leaf');
  t.deepEqual(
    await knex('savings_products')
      .where({ enterprise_id: world.enterpriseId })
      .where('code', 'like', 'BAD%')
      .pluck('code'),
    [],
  );
});

test("a product's interest settings change by PATCH, validated; a term only on a term deposit", async (t) => {
  const id = await savingsProductOf(world, { code: 'PAT', deposit_account_code: '373', interest_rate: '0.04' });
  const patch = (json: Record<string, unknown>) =>
    app.request('PATCH', `/api/v1/members/products/${id}/`, { headers: world.users.direction!.headers, json });
  t.like(
    (
      await patch({
        posting_frequency: 'quarterly',
        withholding_tax_rate: '0.165',
        day_count: 'actual_365',
        interest_basis: 'daily_balance',
      })
    ).body,
    {
      posting_frequency: 'quarterly',
      withholding_tax_rate: '0.165000',
      day_count: 'actual_365',
      interest_basis: 'daily_balance',
    },
  );
  t.is(fieldOf(await patch({ term_months: 12 })), 'term_months');
  t.is(fieldOf(await patch({ interest_expense_account_code: '4302' })), 'interest_expense_account_code');
  t.is(fieldOf(await patch({ posting_frequency: 'weekly' })), 'posting_frequency');
  t.is(
    (
      await app.request('PATCH', `/api/v1/members/products/${id}/`, {
        headers: world.users.cashier!.headers,
        json: { withholding_tax_rate: '0' },
      })
    ).status,
    403,
  );
  t.is(fieldOf(await patch({ maturity_instruction: 'renew' })), 'maturity_instruction', 'only a term deposit has one');
});

test(
  "a term product's maturity instruction and penalty rate change by PATCH, " +
    'each checked against the rate and the interest payment kept',
  async (t) => {
    const id = await savingsProductOf(world, {
      code: 'PATT',
      kind: 'term_deposit',
      term_months: 12,
      deposit_account_code: '36100',
      interest_rate: '0.05',
      interest_payment: 'to_payout_account',
    });
    const patch = (json: Record<string, unknown>) =>
      app.request('PATCH', `/api/v1/members/products/${id}/`, { headers: world.users.direction!.headers, json });
    t.like((await patch({ maturity_instruction: 'renew', early_closure_rate: '0.02' })).body, {
      maturity_instruction: 'renew',
      early_closure_rate: '0.02',
    });
    t.is(fieldOf(await patch({ early_closure_rate: '0.06' })), 'early_closure_rate', "above the product's rate");
    t.is(fieldOf(await patch({ interest_rate: '0.01' })), 'interest_rate', 'a rate cut below the penalty rate');
    t.is(
      fieldOf(await patch({ maturity_instruction: 'renew_with_interest' })),
      'maturity_instruction',
      'interest paid out cannot be renewed',
    );
    t.like((await patch({ maturity_instruction: 'renew_with_interest', interest_payment: 'at_maturity' })).body, {
      maturity_instruction: 'renew_with_interest',
      interest_payment: 'at_maturity',
    });
    t.is(
      fieldOf(await patch({ interest_payment: 'to_payout_account' })),
      'interest_payment',
      'a renewal with the interest keeps it in the deposit',
    );
    t.is(
      (
        await app.request('PATCH', `/api/v1/members/products/${id}/`, {
          headers: world.users.branch_head!.headers,
          json: { early_closure_rate: '0' },
        })
      ).status,
      403,
    );
  },
);

test(
  'a term account gets its maturity and payout account at opening: ' + "the member's own open demand account",
  async (t) => {
    const term = await savingsProductOf(world, {
      code: 'DAT',
      kind: 'term_deposit',
      term_months: 12,
      deposit_account_code: '36100',
      interest_rate: '0.06',
    });
    const open = (json: Record<string, unknown>) =>
      app.request('POST', '/api/v1/members/accounts/', {
        headers: world.users.cashier!.headers,
        json: { product: term, initial_deposit: '500000', ...json },
      });
    const member = await memberOf(world);
    t.is(fieldOf(await open({ client: member })), 'payout_account', 'a member without a demand account');
    const stranger = await accountOf(world, await memberOf(world), world.savingsProductId, '10000');
    t.is(
      fieldOf(await open({ client: member, payout_account: stranger })),
      'payout_account',
      "another member's account",
    );
    const own = await accountOf(world, member, world.savingsProductId, '10000');
    t.is(
      fieldOf(
        await app.request('POST', '/api/v1/members/accounts/', {
          headers: world.users.cashier!.headers,
          json: { client: member, product: world.savingsProductId, payout_account: own },
        }),
      ),
      'payout_account',
      'only a term deposit has one',
    );
    const opened = await open({ client: member, payout_account: own });
    t.is(opened.status, 201);
    t.like(opened.body, { payout_account: own });
    t.is(
      opened.body.maturity_date,
      `${Number(opened.body.opened_on.slice(0, 4)) + 1}${opened.body.opened_on.slice(4)}`,
      'twelve months after the opening',
    );
    t.is(
      (await knex('comptes_clients').where({ client_id: member }).pluck('id')).length,
      2,
      'the refused openings left nothing',
    );
  },
);

test(
  'the interest-posting lists answer empty pages before any month end, ' + 'and 404 for an unknown account',
  async (t) => {
    const headers = world.users.direction!.headers;
    t.is(
      (
        await app.request(
          'GET',
          `/api/v1/members/interest-postings/?enterprise=${world.enterpriseId}&date_from=2026-01-01`,
          { headers },
        )
      ).body.count,
      0,
    );
    t.is(
      (
        await app.request('GET', '/api/v1/members/accounts/00000000-0000-4000-8000-000000000000/interest-postings/', {
          headers,
        })
      ).status,
      404,
    );
    t.is(
      (await app.request('GET', '/api/v1/members/interest-postings/?date_from=2026-13-01', { headers })).status,
      400,
    );
  },
);
