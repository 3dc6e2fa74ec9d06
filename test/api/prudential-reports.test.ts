import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { approveRequest, secondAdmin } from '../helpers/approvals';
import { createTestDatabase } from '../helpers/database';
import { accountBalance, setBusinessDate } from '../helpers/loans';
import { loanOf, provisioningRun, smallCooperative, type SmallCooperative } from '../helpers/small-cooperative';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
});

const text = (amount: Money | number) => new Money(amount).toFixed(0);
const ratio = (numerator: Money, denominator: Money) =>
  numerator.div(denominator).toDecimalPlaces(6, Money.ROUND_DOWN).toFixed(6);

/**
 * The small cooperative's loan by hand, independently of the product: 1 200 000 over 12 months at 18 %, a
 * constant annuity rounded half-up, each period's interest on the remaining principal (30/360), the last
 * installment taking the remainder.
 */
function schedule() {
  const principal = new Money(1_200_000);
  const rate = new Money('0.18').div(12);
  const annuity = principal
    .times(rate)
    .div(new Money(1).minus(rate.plus(1).pow(-12)))
    .toDecimalPlaces(0);
  const principalParts: Money[] = [];
  let remaining = principal;
  for (let period = 1; period <= 12; period += 1) {
    const part = period === 12 ? remaining : annuity.minus(remaining.times(rate).toDecimalPlaces(0));
    principalParts.push(part);
    remaining = remaining.minus(part);
  }
  const sum = (from: number, to: number) =>
    principalParts.slice(from - 1, to).reduce((total, part) => total.plus(part), new Money(0));
  return { principal, annuity, fees: principal.times('0.01'), sum };
}

async function get(coop: SmallCooperative, path: string, as = 'direction') {
  return app.request('GET', path, { headers: coop.world.users[as]!.headers });
}

test(
  'SIG of the small cooperative: 80 to 87 by the formulas, ' + "87 equals the income statement's result; per branch",
  async (t) => {
    const coop = await smallCooperative(app, knex, 'PR1');
    const path = `/api/v1/accounts/charts/${coop.chartId}`;
    const period = 'date_from=2026-01-01&date_to=2026-12-31';
    const sig = (await get(coop, `${path}/intermediate-balances/?${period}`)).body;
    const income = (await get(coop, `${path}/income-statement/?${period}`)).body;
    const amounts = Object.fromEntries(
      sig.balances.map((line: { code: string; amount: string }) => [line.code, line.amount]),
    );
    const { interest, fees, expenses, result } = coop.expected;
    t.deepEqual(amounts, {
      80: text(interest.plus(fees)),
      81: text(interest.plus(fees)),
      82: text(result),
      83: text(result),
      84: '0',
      85: text(result),
      86: '0',
      87: text(result),
    });
    t.is(amounts['87'], income.totals.result, "87 is the income statement's result");
    t.like(
      sig.balances.find((line: { code: string }) => line.code === '82'),
      { prior_amount: '0', accounts: [{ account: '6511', amount: text(expenses.negated()) }] },
    );
    const branch = (await get(coop, `${path}/intermediate-balances/?${period}&branch=${coop.world.otherBranch}`)).body;
    t.true(
      branch.balances.every((line: { amount: string }) => line.amount === '0'),
      'the second branch earned and spent nothing',
    );
    t.is(
      (await get(coop, `${path}/intermediate-balances/?${period}&branch=${coop.world.headOffice}`, 'other_cashier'))
        .status,
      404,
      'a branch not seen',
    );
  },
);

/** A ratio of a prudential-ratios answer, by its code. */
const byCode = (body: any, code: string) => body.ratios.find((row: { code: string }) => row.code === code);

/** The ratios of the small cooperative at the end of 2026, by hand, with the default settings. */
function assertYearEndRatios(
  t: ExecutionContext,
  report: any,
  figures: { equity: Money; outstanding: Money; liquid: Money; demand: Money; performing: Money },
) {
  const { equity, outstanding, liquid, demand, performing } = figures;
  t.like(report.net_equity, { amount: text(equity) });
  t.like(byCode(report, 'solvency'), {
    numerator: text(equity),
    denominator: text(outstanding),
    value: ratio(equity, outstanding),
    threshold: '0.1',
    met: true,
  });
  t.like(byCode(report, 'solvency').denominator_parts[0], {
    key: 'customer_loans',
    accounts: [{ account: '3221', amount: text(outstanding) }],
  });
  t.like(byCode(report, 'liquidity'), {
    numerator: text(liquid),
    denominator: text(demand),
    value: ratio(liquid, demand),
    met: true,
  });
  t.like(byCode(report, 'liquidity').numerator_parts[2], {
    key: 'performing_installments',
    amount: text(performing),
  });
  t.like(byCode(report, 'fixed_asset_coverage'), { denominator: '0', value: null, met: true, cobac_emf_norm: false });
  t.like(byCode(report, 'concentration'), {
    numerator: text(outstanding),
    denominator: text(equity),
    value: ratio(outstanding, equity),
    met: true,
  });
  t.like(byCode(report, 'insiders'), { numerator: '0', met: true, borrowers: [] });
  t.like(report.credit_caps, { paid_up_capital: text(equity), share_capital_limit: '100000000', breaches: [] });
}

/** Settings are validated field by field; only direction and administrators change them. */
async function assertSettingsValidated(t: ExecutionContext, coop: SmallCooperative, settingsPath: string) {
  const headers = coop.world.users.direction!.headers;
  const refused = await app.request('PATCH', settingsPath, {
    headers,
    json: { concentration_max: '2', risk_weights: { treasury: '-1' }, liquidity_min: 1 },
  });
  t.is(refused.status, 400);
  t.deepEqual(refused.body.errors.map((error: { field: string }) => error.field).sort(), ['liquidity_min']);
  const outOfRange = await app.request('PATCH', settingsPath, {
    headers,
    json: { concentration_max: '2', risk_weights: { treasury: '1.6' } },
  });
  t.deepEqual(outOfRange.body.errors.map((error: { field: string }) => error.field).sort(), [
    'concentration_max',
    'risk_weights.treasury',
  ]);
  t.is(
    (
      await app.request('PATCH', settingsPath, {
        headers: coop.world.users.cashier!.headers,
        json: { solvency_min: '0.12' },
      })
    ).status,
    403,
  );
}

test(
  'prudential ratios at a date, each to the franc; ' +
    'a concentration breach named and an insider flagged once the settings tighten; settings validated and audited',
  async (t) => {
    const coop = await smallCooperative(app, knex, 'PR2');
    const { world } = coop;
    const path = `/api/v1/accounts/charts/${coop.chartId}/prudential-ratios/`;
    const loan = schedule();
    const outstanding = loan.principal.minus(loan.sum(1, 2));
    const equity = new Money(1_000_000_000);
    // At the end of 2026 (the share capital is paid within the year): the staff costs of June paid, the loan's
    // installments of April to December unpaid, so only the last one (15 January 2027) falls due within 3 months.
    const cash = equity
      .plus(500_000)
      .plus(300_000)
      .minus(loan.principal)
      .plus(loan.fees)
      .plus(loan.annuity.times(2))
      .minus(coop.expected.expenses);
    const liquid = cash.plus(loan.sum(12, 12));
    const demand = new Money(400_000);

    const report = (await get(coop, `${path}?date=2026-12-31`)).body;
    assertYearEndRatios(t, report, { equity, outstanding, liquid, demand, performing: loan.sum(12, 12) });

    // The borrower becomes a related party and the limits tighten below their exposure.
    const borrower = await loanOf(coop);
    await knex('client_profiles').where({ id: borrower.client_id }).update({ related_party: true });
    const settingsPath = `/api/v1/enterprise/enterprises/${world.enterpriseId}/prudential-settings/`;
    const headers = world.users.direction!.headers;
    // The settings change under four eyes (docs/domain.md §11): another administrator approves.
    const requested = await app.request('PATCH', settingsPath, {
      headers,
      json: { concentration_max: '0.0005', insiders_max: '0.0005', risk_weights: { treasury: '0.2' } },
    });
    const patched = await approveRequest(knex, requested, await secondAdmin(knex, world));
    t.is(patched.status, 200, patched.text);
    t.like((await app.request('GET', settingsPath, { headers })).body, {
      concentration_max: '0.0005',
      risk_weights: { treasury: '0.2', customer_loans: '1' },
      changed: ['concentration_max', 'insiders_max', 'risk_weights.treasury'],
    });
    const tightened = (await get(coop, `${path}?date=2026-12-31`)).body;
    const named = {
      member: borrower.client_id,
      outstanding: text(outstanding),
      exposure: text(outstanding),
      exceeds: true,
      related_party: true,
    };
    t.like(byCode(tightened, 'concentration'), { met: false, borrowers: [named] });
    t.like(byCode(tightened, 'insiders'), { numerator: text(outstanding), met: false, borrowers: [named] });
    const weighted = outstanding.plus(cash.times('0.2').toDecimalPlaces(0, Money.ROUND_HALF_UP));
    t.like(byCode(tightened, 'solvency'), { denominator: text(weighted), value: ratio(equity, weighted) });
    t.is(
      (await knex('audit_events').where({ action: 'prudential_settings.update', enterprise_id: world.enterpriseId }))
        .length,
      1,
    );
    await assertSettingsValidated(t, coop, settingsPath);

    // One branch: its own balances and loans; a branch or a chart outside the caller's roles is a 404.
    const branch = (await get(coop, `${path}?date=2026-12-31&branch=${world.otherBranch}`, 'other_cashier')).body;
    t.like(byCode(branch, 'liquidity'), { numerator: '300000', denominator: '150000', value: '2.000000' });
    t.is((await get(coop, `${path}?date=2026-12-31&branch=${world.headOffice}`, 'other_cashier')).status, 404);
    const stranger = await smallCooperative(app, knex, 'PR3');
    t.is((await get(stranger, `${path}?date=2026-12-31`)).status, 404);
    t.is((await get(stranger, settingsPath)).status, 404);
    t.is((await get(coop, `${path}?date=2019-12-31`)).body.errors[0].field, 'date');
  },
);

test(
  'arrears statement after a provisioning run: the class and age band of the loan, ' +
    'its arrears and provision, totals equal to the ledger and to loan_provisions',
  async (t) => {
    const coop = await smallCooperative(app, knex, 'PR4');
    const { world } = coop;
    const loan = schedule();
    await setBusinessDate(world, '2026-07-10');
    const run = await withWorker(knex, () => provisioningRun(coop), taskQueue);
    t.is(run.status, 'completed');

    // Installments of 15 April, May and June unpaid: 86 days past due on 10 July, doubtful (> 45), the ladder's 46–90
    // band at 25 %.
    const outstanding = loan.principal.minus(loan.sum(1, 2));
    const provision = outstanding.times('0.25').toDecimalPlaces(0, Money.ROUND_HALF_UP);
    const figures = {
      loans: 1,
      litigious: 0,
      outstanding: text(outstanding),
      arrears: text(loan.annuity.times(3)),
      guaranteed: '0',
      provisions: text(provision),
    };
    const path = `/api/v1/loans/arrears-statement/?enterprise=${world.enterpriseId}&date=2026-07-10`;
    const statement = (await get(coop, path)).body;
    t.deepEqual(statement.groups, [{ classification: 'doubtful', days_from: 46, days_to: 90, ...figures }]);
    t.deepEqual(statement.totals, figures);
    t.like(statement.loans, [
      { classification: 'doubtful', days_past_due: 86, outstanding: text(outstanding), provisions: text(provision) },
    ]);

    // The totals are the ledger's (3352 holds the doubtful principal, 3931 the provisions) and loan_provisions'.
    t.is(await accountBalance(knex, world.enterpriseId, '3352'), text(outstanding));
    t.is(await accountBalance(knex, world.enterpriseId, '3931'), text(provision.negated()));
    const rows = await knex('loan_provisions')
      .where({ enterprise_id: world.enterpriseId })
      .orderBy('as_of', 'desc')
      .first('amount', 'base');
    t.deepEqual([rows.amount, rows.base], [text(provision), text(outstanding)]);
    t.true(
      statement.ledger.every((row: { agrees: boolean }) => row.agrees),
      JSON.stringify(statement.ledger),
    );
    t.like(
      statement.ledger.find((row: { figure: string }) => row.figure === 'doubtful'),
      { ledger: text(outstanding), accounts: [{ account: '3352', amount: text(outstanding) }] },
    );

    // Before the run the same loan was performing at the date, in 3221.
    const before = (
      await get(coop, `/api/v1/loans/arrears-statement/?enterprise=${world.enterpriseId}&date=2026-03-31`)
    ).body;
    t.like(before.by_class, [{ classification: 'performing', loans: 1, outstanding: text(outstanding), arrears: '0' }]);
    t.true(before.ledger.every((row: { agrees: boolean }) => row.agrees));

    // Per branch: the second branch has no loan; a branch not seen is a 404.
    const branch = (await get(coop, `${path}&branch=${world.otherBranch}`, 'other_cashier')).body;
    t.like(branch, { groups: [], loans: [], totals: { loans: 0, outstanding: '0' } });
    t.is((await get(coop, `${path}&branch=${world.headOffice}`, 'other_cashier')).status, 404);
  },
);
