import test from 'ava';
import type { Knex } from 'knex';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { closeYear, openNextYear, smallCooperative, type SmallCooperative } from '../helpers/small-cooperative';
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

type Line = { code: string; amount: string; prior_amount: string };
/** The non-zero lines of a statement side: code → [amount, prior amount]. */
const amounts = (lines: Line[]) => Object.fromEntries(lines.filter((line) => line.amount !== '0' || line.prior_amount !== '0').map((line) => [line.code, [line.amount, line.prior_amount]]));
const text = (amount: Money | number) => new Money(amount).toFixed(0);

async function get(coop: SmallCooperative, path: string, as = 'direction') {
  const response = await app.request('GET', `/api/v1/accounts/charts/${coop.chartId}/${path}`, { headers: coop.world.users[as]!.headers });
  if (response.status !== 200) throw new Error(response.text);
  return response.body;
}

test('balance sheet, income statement and rolled-up trial balance of a small cooperative, to the franc, before and after its year end; bad input named', async (t) => {
  const coop = await smallCooperative(app, knex, 'ST1');
  const { world, expected } = coop;
  const { headOffice: hq, otherBranch: other, result } = expected;
  const cash = hq['5710']!.plus(other['5710']!);
  const path = `/api/v1/accounts/charts/${coop.chartId}`;
  const headers = world.users.direction!.headers;

  // Bad input is named: a date no year covers, dates out of order, a branch unknown.
  t.like((await app.request('GET', `${path}/balance-sheet/?date=2019-06-30`, { headers })).body, { code: 'no_exercice_for_date', errors: [{ field: 'date' }] });
  t.is((await app.request('GET', `${path}/balance-sheet/`, { headers })).body.errors[0].field, 'date');
  t.is((await app.request('GET', `${path}/income-statement/?date_from=2026-02-01&date_to=2026-01-01`, { headers })).body.errors[0].field, 'date_to');
  t.is((await app.request('GET', `${path}/income-statement/?date_from=2026-01-01&date_to=2026-12-31&branch=00000000-0000-4000-8000-000000000000`, { headers })).status, 404);

  // 2026 running: the result is the period's (P5), not yet in 13.
  const sheet = await get(coop, 'balance-sheet/?date=2026-12-31');
  t.deepEqual(amounts(sheet.assets), { A2: [text(hq['3221']!), '0'], A5: [text(cash), '0'] });
  t.deepEqual(amounts(sheet.liabilities), { P1: [text(hq['10000']!.negated()), '0'], P5: [text(result), '0'], P8: [text(800_000), '0'] });
  t.like(sheet, { prior_date: '2025-12-31', totals: { assets: text(cash.plus(hq['3221']!)), liabilities: text(cash.plus(hq['3221']!)), balanced: true } });
  const branchSheet = await get(coop, `balance-sheet/?date=2026-12-31&branch=${world.otherBranch}`);
  t.deepEqual([amounts(branchSheet.assets), amounts(branchSheet.liabilities)], [{ A5: ['300000', '0'] }, { P8: ['300000', '0'] }]);
  t.is((await app.request('GET', `${path}/balance-sheet/?date=2026-12-31&branch=${world.headOffice}`, { headers: world.users.other_cashier!.headers })).status, 404, 'a branch not seen');

  const income = await get(coop, 'income-statement/?date_from=2026-01-01&date_to=2026-12-31');
  t.deepEqual(amounts(income.expenses), { 65: [text(expected.expenses), '0'] });
  t.deepEqual(amounts(income.income), { 71: [text(expected.interest.plus(expected.fees)), '0'] }, 'interest (713) and credit fees (7153) are both of group 71');
  t.like(income, { prior_date_from: '2025-01-01', totals: { result: text(result), prior_result: '0' } });

  const trial = await get(coop, 'trial-balance/?date=2026-12-31');
  const group = (code: string) => trial.groups.find((row: { code: string }) => row.code === code);
  t.like(group('5'), { level: 1, balance: text(cash) });
  t.like(group('57'), { level: 2, balance: text(cash) });
  t.like(group('3'), { level: 1, balance: text(hq['3221']!.minus(800_000)) });
  t.like(group('7'), { level: 1, balance: text(expected.interest.plus(expected.fees).negated()) });

  await openNextYear(coop);
  await withWorker(knex, async () => t.is((await closeYear(coop)).body.closing.status, 'closed'), taskQueue);
  // 2027 opens with the à-nouveaux: the closed year's result sits in 13 (P4) until it is allocated.
  const opened = await get(coop, 'balance-sheet/?date=2027-01-31');
  t.deepEqual(amounts(opened.liabilities), { P1: [text(hq['10000']!.negated()), text(hq['10000']!.negated())], P4: [text(result), text(result)], P8: ['800000', '800000'] });
  t.true(opened.totals.balanced);
  const closedYear = await get(coop, 'income-statement/?date_from=2026-01-01&date_to=2026-12-31');
  t.is(closedYear.totals.result, text(result), 'the closing entries do not empty the closed year’s income statement');
});
