import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { interestFigures } from '../../activities/members/interest-figures';
import { CompteClient } from '../../db/models/compte-client.model';
import { SavingsProduct } from '../../db/models/savings-product.model';
import { Money } from '../../domain/money';
import type { TestApp } from '../helpers/app';
import { importFixture, importFourEyes, importPast, importWorld, validateImport } from '../helpers/imports';
import { setBusinessDate, type LoanWorld } from '../helpers/loans';
import { savingsProductOf } from '../helpers/savings';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * A term deposit brought in keeps its contract's rate until its maturity (issue 31, docs/domain.md §9, §15.1): the
 * accounts file's `interest_rate`, or, empty, the product's. The renewal at maturity is a new contract, at the
 * product's rate. The files are test/fixtures/imports/term-deposits/ (the pipeline's members, two term deposits).
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
const cutOverDate = '2026-10-31';
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

test.before(async () => {
  ({ app, knex, world } = await importWorld(file, taskQueue, 'ITD'));
  // Daily balances and actual/365, so that a month's interest is balance × rate × days / 365; renewed at maturity.
  await savingsProductOf(world, {
    code: 'DAT',
    kind: 'term_deposit',
    term_months: 3,
    deposit_account_code: '36100',
    interest_rate: '0.05',
    withholding_tax_rate: '0',
    interest_basis: 'daily_balance',
    day_count: 'actual_365',
    maturity_instruction: 'renew',
  });
});

const direction = () => world.users.direction!.headers;

async function appliedImport(t: ExecutionContext): Promise<string> {
  const created = await app.request('POST', '/api/v1/imports/', {
    headers: direction(),
    json: { enterprise: world.enterpriseId, cut_over_date: cutOverDate },
  });
  t.is(created.status, 201, created.text);
  const id = created.body.id as string;
  for (const [kind, name] of [
    ['members', 'members-good.csv'],
    ['member-accounts', 'term-deposits/member-accounts.csv'],
    ['trial-balance', 'term-deposits/trial-balance.csv'],
  ]) {
    const uploaded = await app.request('PUT', `/api/v1/imports/${id}/files/${kind}/`, {
      headers: { ...direction(), 'content-type': 'text/csv' },
      body: importFixture(name!),
    });
    t.is(uploaded.status, 200, uploaded.text);
  }
  const validated = await validateImport(app, id, direction());
  t.is(validated.status, 'validated', JSON.stringify(validated));
  await t.notThrowsAsync(
    importFourEyes(app, id, 'application', { maker: direction(), checker: world.users.root!.headers }, {}),
  );
  t.like(await importPast(app, id, direction(), ['validated', 'applying']), {
    status: 'applied',
    reconciliation: { reconciled: true },
  });
  return id;
}

/** A month's gross interest on a constant balance, daily balances and actual/365, rounded half up to the franc. */
const monthOn = (balance: number, rate: string, days: number) =>
  new Money(balance).times(rate).times(days).div(365).toDecimalPlaces(0, Money.ROUND_HALF_UP).toFixed(0);

async function grossOver(importId: string, number: string, from: string, to: string): Promise<string> {
  const account = (await CompteClient.query(knex).where({ import_id: importId, number }).first())!;
  const product = (await SavingsProduct.query(knex).findById(account.productId))!;
  return (await knex.transaction((trx) => interestFigures(trx, account, product, { from, to }))).gross.toFixed(0);
}

test.serial(
  "an imported term deposit earns its contract's rate until its maturity, then the product's once renewed",
  (t) =>
    withWorker(
      knex,
      async () => {
        const id = await appliedImport(t);
        const rates = await knex('comptes_clients')
          .where({ import_id: id })
          .whereIn('number', ['T-001', 'T-002'])
          .orderBy('number')
          .select('number', 'contract_rate');
        t.deepEqual(rates, [
          { number: 'T-001', contract_rate: '0.080000' },
          { number: 'T-002', contract_rate: null },
        ]);
        const t001 = await knex('comptes_clients').where({ import_id: id, number: 'T-001' }).first('id');
        const detail = await app.request('GET', `/api/v1/members/accounts/${t001.id as string}/`, {
          headers: direction(),
        });
        t.like(detail.body, { number: 'T-001', contract_rate: '0.08', maturity_date: '2026-11-30' }, detail.text);
        // November, 30 days: T-001's 900 000 at its 8 %, T-002's 600 000 at the product's 5 %.
        t.is(await grossOver(id, 'T-001', '2026-11-01', '2026-11-30'), monthOn(900_000, '0.08', 30));
        t.is(await grossOver(id, 'T-002', '2026-11-01', '2026-11-30'), monthOn(600_000, '0.05', 30));

        // T-001 matures on 30 November and is renewed: its principal stays, the interest goes to the member's demand
        // account.
        await setBusinessDate(world, '2026-12-01');
        const run = await app.request('POST', '/api/v1/members/term-deposit-maturities/runs/', {
          headers: direction(),
          json: { enterprise: world.enterpriseId },
        });
        t.like(run.body, { matured: 1, refused: [] }, run.text);
        t.like(
          await knex('comptes_clients')
            .where({ import_id: id, number: 'T-001' })
            .first('balance', 'contract_rate', 'status'),
          { balance: '900000', contract_rate: null, status: 'open' },
        );
        t.is(
          await grossOver(id, 'T-001', '2026-12-01', '2026-12-30'),
          monthOn(900_000, '0.05', 30),
          "the renewed term at the product's rate",
        );
      },
      taskQueue,
    ),
);
