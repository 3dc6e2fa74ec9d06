import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { decideRequest, enterpriseAccountant } from '../helpers/accounting';
import { createTestDatabase } from '../helpers/database';
import { accountBalance, createLoanWorld, ledgerBalanced, setBusinessDate, type LoanWorld } from '../helpers/loans';
import { runMonthEnd } from '../helpers/month-ends';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * The fixed-asset register (docs/domain.md §12.4) through the API, the four-eyes workflow and three month ends: a
 * motorcycle of 1 500 000 XAF over 36 months bought on 17 March 2026 (15 days of March's 31 in use). The test's own
 * figures: depreciated by a month's end = cost × (15/31 + whole months since) ÷ 36, half-up to the franc; a
 * month's charge the difference of two of them; a disposal depreciates to the day before it.
 */
const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let accountant: Record<string, string>;

const cost = new Money(1_500_000);
const round = (amount: Money) => amount.toDecimalPlaces(0, Money.ROUND_HALF_UP);
/** Depreciated by the end of the k-th whole month after March (k = 0: March's 15 days only). */
const depreciatedBy = (k: number) => round(cost.times(new Money(15).div(31).plus(k)).div(36));
const [march, april, may] = [
  depreciatedBy(0),
  depreciatedBy(1).minus(depreciatedBy(0)),
  depreciatedBy(2).minus(depreciatedBy(1)),
];

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  world = await createLoanWorld(app, knex, 'FXA');
  accountant = (await enterpriseAccountant(app, knex, world.enterpriseId, 'accountant_fxa', '10.71.0.1')).headers;
});

const as = (name: string) => world.users[name]!.headers;
const decide = (requestId: string, decision: 'approve' | 'reject', headers: Record<string, string>) =>
  decideRequest(app, requestId, decision, headers, 'invoice and delivery note checked');
const entriesOf = async () =>
  Number(
    (await knex('journal_entries').where({ enterprise_id: world.enterpriseId }).count<{ count: string }[]>())[0]!.count,
  );
const balance = (code: string) => accountBalance(knex, world.enterpriseId, code);

async function category(name: string): Promise<string> {
  const created = await app.request('POST', '/api/v1/accounting/fixed-asset-categories/', {
    headers: accountant,
    json: {
      enterprise: world.enterpriseId,
      name,
      depreciation_months: 36,
      asset_account: '225',
      depreciation_account: '2825',
      charge_account: '6824',
    },
  });
  if (created.status !== 201) throw new Error(created.text);
  return created.body.id as string;
}

/** Made by the accountant (202: a request), approved by the direction through the workflow: the asset's id. */
async function acquired(t: ExecutionContext, json: Record<string, unknown>): Promise<string> {
  const requested = await app.request('POST', '/api/v1/accounting/fixed-assets/', { headers: accountant, json });
  t.is(requested.status, 202, requested.text);
  const approved = await decide(requested.body.id as string, 'approve', as('direction'));
  t.is(approved.body.status, 'approved', approved.text);
  return (await knex('fixed_assets').where({ enterprise_id: world.enterpriseId, label: json.label }).first('id'))
    .id as string;
}

async function monthEnd(t: ExecutionContext, period: string, businessDate: string) {
  await setBusinessDate(world, businessDate);
  const run = await runMonthEnd(world, period);
  t.is(run.body.status, 'done', run.text);
  return run.body.steps.find((step: { step: string }) => step.step === 'depreciateFixedAssets');
}

const motorcycle = (category: string) => ({
  category,
  branch: world.headOffice,
  label: 'Moto Yamaha AG 200',
  supplier: 'CFAO Motors',
  acquisition_date: '2026-03-17',
  cost: '1500000',
  funding_account: '5710',
});

test.serial(
  'refusals name their field and post nothing: a funding account of class 6, a cashier, a category ' +
    'whose asset account is a 28',
  async (t) => {
    await setBusinessDate(world, '2026-03-20');
    const entries = await entriesOf();
    const json = motorcycle(await category('Mobilier'));
    const wrongClass = await app.request('POST', '/api/v1/accounting/fixed-assets/', {
      headers: accountant,
      json: { ...json, funding_account: '6521' },
    });
    t.is(wrongClass.status, 400);
    t.is(wrongClass.body.errors[0].field, 'funding_account');
    const unknown = await app.request('POST', '/api/v1/accounting/fixed-assets/', {
      headers: accountant,
      json: { ...json, funding_account: '5799' },
    });
    t.like(unknown.body, { status: 422, code: 'account_unknown', errors: [{ field: 'funding_account' }] });
    t.is(
      (await app.request('POST', '/api/v1/accounting/fixed-assets/', { headers: as('cashier'), json })).status,
      403,
      'a cashier keeps no register',
    );
    const badCategory = await app.request('POST', '/api/v1/accounting/fixed-asset-categories/', {
      headers: accountant,
      json: {
        enterprise: world.enterpriseId,
        name: 'Wrong',
        depreciation_months: 12,
        asset_account: '2825',
        depreciation_account: '2825',
        charge_account: '6824',
      },
    });
    t.is(badCategory.status, 400);
    t.is(badCategory.body.errors[0].field, 'asset_account');
    t.is(await entriesOf(), entries);
  },
);

/**
 * Four eyes on the acquisition, then three month ends: the charges, the schedule and the trial balance equal the test's
 * figures.
 */
async function acquiredAndDepreciated(t: ExecutionContext): Promise<string> {
  const json = motorcycle(await category('Matériel de transport'));
  const entries = await entriesOf();
  const requested = await app.request('POST', '/api/v1/accounting/fixed-assets/', { headers: accountant, json });
  t.is(requested.status, 202, requested.text);
  t.like(requested.body, { operation: 'fixed_asset.acquisition', status: 'pending' });
  t.is((await decide(requested.body.id as string, 'approve', accountant)).body.code, 'approval_own_request');
  t.is(await entriesOf(), entries, 'nothing posted while the request waits');
  t.is((await decide(requested.body.id as string, 'approve', as('direction'))).body.status, 'approved');
  const asset = (await knex('fixed_assets').where({ enterprise_id: world.enterpriseId, label: json.label }).first('id'))
    .id as string;
  t.is(await balance('225'), '1500000');
  t.is(
    await balance('5710'),
    new Money(1_000_000_000).minus(cost).toFixed(0),
    'paid from the vault (the capital paid in cash, less the motorcycle)',
  );

  const first = await monthEnd(t, '2026-03', '2026-04-01');
  t.like(first, { amount: march.toFixed(0), lines: [{ account: '6824', amount: march.toFixed(0) }] });
  t.is(first.journal_entries.length, 1, 'one entry for the branch and pair of accounts');
  t.like(await knex('journal_entries').where({ id: first.journal_entries[0] }).first(), {
    entry_date: '2026-03-31',
    journal_code: 'OD',
    branch_id: world.headOffice,
  });
  t.like(await monthEnd(t, '2026-04', '2026-05-01'), { amount: april.toFixed(0) });
  t.like(await monthEnd(t, '2026-05', '2026-06-01'), { amount: may.toFixed(0) });
  const again = await entriesOf();
  t.is((await runMonthEnd(world, '2026-05')).body.status, 'done');
  t.is(await entriesOf(), again, 'a month end started again posts nothing twice');

  const byMay = march.plus(april).plus(may);
  const detail = await app.request('GET', `/api/v1/accounting/fixed-assets/${asset}/`, { headers: accountant });
  t.like(detail.body, {
    status: 'active',
    cost: '1500000',
    accumulated_depreciation: byMay.toFixed(0),
    net_book_value: cost.minus(byMay).toFixed(0),
    depreciation_months: 36,
  });
  t.deepEqual(
    detail.body.schedule
      .slice(0, 4)
      .map((month: { period: string; charge: string; booked: boolean }) => [month.period, month.charge, month.booked]),
    [
      ['2026-03', march.toFixed(0), true],
      ['2026-04', april.toFixed(0), true],
      ['2026-05', may.toFixed(0), true],
      ['2026-06', depreciatedBy(3).minus(depreciatedBy(2)).toFixed(0), false],
    ],
  );
  const chartId = (await knex('company_charts').where({ enterprise_id: world.enterpriseId }).first('id')).id as string;
  const trial = await app.request('GET', `/api/v1/accounts/charts/${chartId}/trial-balance/?date=2026-05-31`, {
    headers: accountant,
  });
  t.is(trial.status, 200, trial.text);
  const line = (code: string) => trial.body.accounts.find((account: { code: string }) => account.code === code);
  t.like(line('225'), { closing_debit: '1500000', closing_credit: '0' });
  t.like(line('2825'), { closing_debit: '0', closing_credit: byMay.toFixed(0) });
  t.like(line('6824'), { closing_debit: byMay.toFixed(0), closing_credit: '0' });
  await registerAgrees(t, '2026-05-31', { cost, accumulated: byMay });
  return asset;
}

const registerAt = (date: string, extra = '') =>
  app.request('GET', `/api/v1/accounting/fixed-asset-register/?enterprise=${world.enterpriseId}&date=${date}${extra}`, {
    headers: accountant,
  });

/** The register at a date, as JSON and as CSV: its totals are the test's figures. */
async function registerAgrees(
  t: ExecutionContext,
  date: string,
  expected: { cost: Money; accumulated: Money },
): Promise<void> {
  const register = await registerAt(date);
  const netBookValue = expected.cost.minus(expected.accumulated).toFixed(0);
  const totals = {
    cost: expected.cost.toFixed(0),
    accumulated_depreciation: expected.accumulated.toFixed(0),
    net_book_value: netBookValue,
  };
  t.like(register.body, { date, branch: null, totals });
  t.deepEqual(register.body.accounts, ['225', '2825'], 'the accounts the register details');
  const csv = await registerAt(date, '&format=csv');
  t.true(
    csv.text
      .split('\r\n')
      .includes(`Total;;;;${totals.cost};${totals.accumulated_depreciation};${totals.net_book_value}`),
    csv.text,
  );
  t.like(
    (await registerAt(date, `&branch=${world.otherBranch}`)).body.totals,
    { cost: '0', net_book_value: '0' },
    'nothing at the other branch',
  );
}

const dispose = (asset: string, json: Record<string, unknown>) =>
  app.request('POST', `/api/v1/accounting/fixed-assets/${asset}/disposal/`, { headers: accountant, json });

/**
 * Sold on 10 June for 1 600 000 in cash: depreciated to 9 June (9 days of June's 30), then a gain. Answers its net book
 * value.
 */
async function soldAtAGain(t: ExecutionContext, asset: string): Promise<{ netBookValue: Money; depreciation: Money }> {
  await setBusinessDate(world, '2026-06-10');
  const byJune9 = round(cost.times(new Money(15).div(31).plus(2).plus(new Money(9).div(30))).div(36));
  const sale = await dispose(asset, { date: '2026-06-10', proceeds: '1600000', proceeds_account: '5710' });
  t.is(sale.status, 202, sale.text);
  t.is((await decide(sale.body.id as string, 'approve', as('direction'))).body.status, 'approved');
  const sold = await app.request('GET', `/api/v1/accounting/fixed-assets/${asset}/`, { headers: accountant });
  t.like(sold.body, {
    status: 'disposed',
    accumulated_depreciation: byJune9.toFixed(0),
    net_book_value: '0',
    disposal: { date: '2026-06-10', proceeds: '1600000', proceeds_account: '5710' },
  });
  const netBookValue = cost.minus(byJune9);
  t.is(await balance('225'), '0', 'the asset left the books');
  t.is(await balance('2825'), '0', 'with its depreciation');
  t.is(await balance('6824'), byJune9.toFixed(0));
  t.is(await balance('6762'), netBookValue.toFixed(0), 'the net book value charged');
  t.is(await balance('775'), '-1600000', 'the price an income');
  t.true(new Money(1_600_000).minus(netBookValue).gt(0), 'a gain');
  await registerAgrees(t, '2026-06-09', { cost, accumulated: march.plus(april).plus(may) });
  t.deepEqual((await registerAt('2026-06-10')).body.assets, [], 'sold on the 10th: out of the register that day');
  t.like(
    (await dispose(asset, { date: '2026-06-10', proceeds: '1', proceeds_account: '5710' })).body,
    { status: 409, code: 'fixed_asset_disposed' },
    'disposed of once only',
  );
  return { netBookValue, depreciation: byJune9 };
}

test.serial(
  'a motorcycle bought mid-March under four eyes, depreciated by three month ends, then sold at a ' +
    'gain; another sold at a loss',
  async (t) => {
    t.is(march.toFixed(0), '20161', 'the hand-computed first month: 1 500 000 × 15/31 ÷ 36');
    await withWorker(
      knex,
      async () => {
        const asset = await acquiredAndDepreciated(t);
        const first = await soldAtAGain(t, asset);
        // A second one, bought on credit on 1 June for 900 000 (owed to the supplier, 40110) and sold on 20 June for
        // 500 000: 19 days of 30 depreciated, a loss.
        const category = (await knex('fixed_assets').where({ id: asset }).first('category_id')).category_id as string;
        const other = await acquired(t, {
          ...motorcycle(category),
          label: 'Moto Honda CG 125',
          acquisition_date: '2026-06-01',
          cost: '900000',
          funding_account: '40110',
        });
        t.is(await balance('40110'), '-900000', 'owed to the supplier');
        t.is(
          (
            await knex('fixed_assets')
              .where({ id: other })
              .first('acquisition_entry_id')
              .then((row) => knex('journal_entries').where({ id: row.acquisition_entry_id }).first('journal_code'))
          ).journal_code,
          'OD',
        );
        await setBusinessDate(world, '2026-06-20');
        const loss = await dispose(other, { date: '2026-06-20', proceeds: '500000' });
        t.is((await decide(loss.body.id as string, 'approve', as('direction'))).body.status, 'approved');
        const otherDepreciation = round(new Money(900_000).times(19).div(30).div(36));
        const otherValue = new Money(900_000).minus(otherDepreciation);
        t.true(new Money(500_000).minus(otherValue).lt(0), 'a loss');
        t.is(await balance('6762'), first.netBookValue.plus(otherValue).toFixed(0));
        t.is(await balance('775'), '-2100000');
        t.is(await balance('6824'), first.depreciation.plus(otherDepreciation).toFixed(0));
        t.is(await balance('225'), '0');
        t.is(await balance('2825'), '0');
        t.true(await ledgerBalanced(knex, world.enterpriseId));
      },
      taskQueue,
    );
  },
);

test.serial(
  'with four eyes off for the register, a software licence is recorded at once (201) and scrapped at once',
  async (t) => {
    await knex('approval_policies').insert(
      ['fixed_asset.acquisition', 'fixed_asset.disposal'].map((operation) => ({
        enterprise_id: world.enterpriseId,
        operation,
        four_eyes: false,
        approver_roles: ['direction'],
        lifetime_days: 7,
      })),
    );
    const software = await app.request('POST', '/api/v1/accounting/fixed-asset-categories/', {
      headers: accountant,
      json: {
        enterprise: world.enterpriseId,
        name: 'Logiciels',
        depreciation_months: 12,
        asset_account: '2024',
        depreciation_account: '28012',
        charge_account: '6802',
      },
    });
    t.is(software.status, 201, software.text);
    const licence = await app.request('POST', '/api/v1/accounting/fixed-assets/', {
      headers: accountant,
      json: {
        category: software.body.id,
        branch: world.otherBranch,
        label: 'Licence comptable',
        acquisition_date: '2026-06-15',
        cost: '240000',
        funding_account: '5710',
      },
    });
    t.is(licence.status, 201, licence.text);
    t.is(licence.headers.get('location'), `/api/v1/accounting/fixed-assets/${licence.body.id as string}/`);
    t.like(licence.body, {
      status: 'active',
      branch: world.otherBranch,
      depreciation_months: 12,
      net_book_value: '240000',
      supplier: null,
    });
    t.is(await balance('2024'), '240000');
    // Scrapped on 20 June: 5 days of June's 30 depreciated (240 000 ÷ 12 × 5/30), the rest lost.
    const scrapped = await dispose(licence.body.id as string, { date: '2026-06-20' });
    t.is(scrapped.status, 200, scrapped.text);
    const depreciation = round(new Money(240_000).div(12).times(5).div(30));
    t.like(scrapped.body, {
      status: 'disposed',
      accumulated_depreciation: depreciation.toFixed(0),
      disposal: { proceeds: '0', proceeds_account: '5710' },
    });
    t.is(await balance('6802'), depreciation.toFixed(0));
    t.is(await balance('2024'), '0');
    t.is(await balance('28012'), '0');
  },
);
