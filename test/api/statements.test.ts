import test, { type ExecutionContext } from 'ava';
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
const amounts = (lines: Line[]) =>
  Object.fromEntries(
    lines
      .filter((line) => line.amount !== '0' || line.prior_amount !== '0')
      .map((line) => [line.code, [line.amount, line.prior_amount]]),
  );
const text = (amount: Money | number) => new Money(amount).toFixed(0);

async function get(coop: SmallCooperative, path: string, as = 'direction') {
  const response = await app.request('GET', `/api/v1/accounts/charts/${coop.chartId}/${path}`, {
    headers: coop.world.users[as]!.headers,
  });
  if (response.status !== 200) throw new Error(response.text);
  return response.body;
}

/** Bad input is named: a date no year covers, dates out of order, a branch unknown. */
async function assertBadInputNamed(t: ExecutionContext, coop: SmallCooperative) {
  const path = `/api/v1/accounts/charts/${coop.chartId}`;
  const headers = coop.world.users.direction!.headers;
  t.like((await app.request('GET', `${path}/balance-sheet/?date=2019-06-30`, { headers })).body, {
    code: 'no_exercice_for_date',
    errors: [{ field: 'date' }],
  });
  t.is((await app.request('GET', `${path}/balance-sheet/`, { headers })).body.errors[0].field, 'date');
  t.is(
    (await app.request('GET', `${path}/income-statement/?date_from=2026-02-01&date_to=2026-01-01`, { headers })).body
      .errors[0].field,
    'date_to',
  );
  t.is(
    (
      await app.request(
        'GET',
        `${path}/income-statement/?date_from=2026-01-01&date_to=2026-12-31` +
          `&branch=00000000-0000-4000-8000-000000000000`,
        { headers },
      )
    ).status,
    404,
  );
}

test(
  'balance sheet, income statement and rolled-up trial balance of a small cooperative, ' +
    'to the franc, before and after its year end; bad input named',
  async (t) => {
    const coop = await smallCooperative(app, knex, 'ST1');
    const { world, expected } = coop;
    const { headOffice: hq, otherBranch: other, result } = expected;
    const cash = hq['5710']!.plus(other['5710']!);
    const path = `/api/v1/accounts/charts/${coop.chartId}`;
    await assertBadInputNamed(t, coop);

    // 2026 running: the result is the period's (P5), not yet in 13.
    const sheet = await get(coop, 'balance-sheet/?date=2026-12-31');
    t.deepEqual(amounts(sheet.assets), { A2: [text(expected.loanOutstanding), '0'], A5: [text(cash), '0'] });
    t.deepEqual(amounts(sheet.liabilities), {
      P1: [text(hq['10000']!.negated()), '0'],
      P5: [text(result), '0'],
      P8: [text(800_000), '0'],
    });
    t.like(sheet, {
      prior_date: '2025-12-31',
      totals: {
        assets: text(cash.plus(expected.loanOutstanding)),
        liabilities: text(cash.plus(expected.loanOutstanding)),
        balanced: true,
      },
    });
    const branchSheet = await get(coop, `balance-sheet/?date=2026-12-31&branch=${world.otherBranch}`);
    t.deepEqual(
      [amounts(branchSheet.assets), amounts(branchSheet.liabilities)],
      [{ A5: ['300000', '0'] }, { P8: ['300000', '0'] }],
    );
    t.is(
      (
        await app.request('GET', `${path}/balance-sheet/?date=2026-12-31&branch=${world.headOffice}`, {
          headers: world.users.other_cashier!.headers,
        })
      ).status,
      404,
      'a branch not seen',
    );

    const income = await get(coop, 'income-statement/?date_from=2026-01-01&date_to=2026-12-31');
    t.deepEqual(amounts(income.expenses), { 65: [text(expected.expenses), '0'] });
    t.deepEqual(
      amounts(income.income),
      { 71: [text(expected.interest.plus(expected.fees)), '0'] },
      'interest (713) and credit fees (7153) are both of group 71',
    );
    t.like(income, { prior_date_from: '2025-01-01', totals: { result: text(result), prior_result: '0' } });

    const trial = await get(coop, 'trial-balance/?date=2026-12-31');
    const group = (code: string) => trial.groups.find((row: { code: string }) => row.code === code);
    t.like(group('5'), { level: 1, balance: text(cash) });
    t.like(group('57'), { level: 2, balance: text(cash) });
    t.like(group('3'), { level: 1, balance: text(expected.loanOutstanding.minus(800_000)) });
    t.like(group('7'), { level: 1, balance: text(expected.interest.plus(expected.fees).negated()) });

    await openNextYear(coop);
    await withWorker(knex, async () => t.is((await closeYear(coop)).body.closing.status, 'closed'), taskQueue);
    // 2027 opens with the à-nouveaux: the closed year's result sits in 13 (P4) until it is allocated.
    const opened = await get(coop, 'balance-sheet/?date=2027-01-31');
    t.deepEqual(amounts(opened.liabilities), {
      P1: [text(hq['10000']!.negated()), text(hq['10000']!.negated())],
      P4: [text(result), text(result)],
      P8: ['800000', '800000'],
    });
    t.true(opened.totals.balanced);
    const closedYear = await get(coop, 'income-statement/?date_from=2026-01-01&date_to=2026-12-31');
    t.is(closedYear.totals.result, text(result), 'the closing entries do not empty the closed year’s income statement');
  },
);

/**
 * The sum of every posted line of the enterprise up to a date, by account, whatever the year: the outside view of the
 * books.
 */
async function allLinesUpTo(coop: SmallCooperative, date: string): Promise<Record<string, Money>> {
  const rows = await knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('e.enterprise_id', coop.world.enterpriseId)
    .where('e.entry_date', '<=', date)
    .groupBy('c.code')
    .select('c.code', knex.raw('(sum(l.debit) - sum(l.credit))::text AS balance'));
  return Object.fromEntries(rows.map((row) => [row.code, new Money(row.balance)]));
}

/** The trial balance of January 2027 while 2026 is open: 2026 carried as the opening, its result pending. */
async function assertJanuaryTrialBalance(t: ExecutionContext, coop: SmallCooperative, cash: Money) {
  const { headOffice: hq, otherBranch: other, result } = coop.expected;
  const trial = await get(coop, 'trial-balance/?date=2027-01-31');
  t.like(trial, { provisional: true, open_exercices: ['2026'], totals: { balanced: true } });
  const line = (code: string) => trial.accounts.find((row: { code: string }) => row.code === code);
  t.like(line('13'), {
    balance: text(result.negated()),
    label: 'Résultat en instance d’affectation (exercice 2026 non clôturé)',
  });
  t.like(line('5710'), { balance: text(cash) });
  // Six columns: 2026 carried as the opening balance, January's deposit and withdrawal as the movements.
  const cashAtYearEnd = hq['5710']!.plus(other['5710']!);
  t.like(line('5710'), {
    opening_debit: text(cashAtYearEnd),
    opening_credit: '0',
    movement_debit: '1000000',
    movement_credit: '1200000',
    closing_debit: text(cash),
    closing_credit: '0',
  });
  t.like(line('13'), {
    opening_debit: '0',
    opening_credit: text(result),
    movement_debit: '0',
    movement_credit: '0',
    closing_credit: text(result),
  });
  t.like(trial.totals, {
    opening_debit: trial.totals.opening_credit,
    closing_debit: trial.totals.closing_credit,
    movement_debit: trial.totals.movement_credit,
  });
  t.is(line('713'), undefined, 'no income account of 2026 in 2027');
}

test(
  'while the previous year is open, a date in the next one carries its balances forward, ' +
    'provisional, its result pending allocation; the same figures once it is closed',
  async (t) => {
    const coop = await smallCooperative(app, knex, 'ST2');
    const { world, expected } = coop;
    const { headOffice: hq, otherBranch: other, result } = expected;
    await openNextYear(coop); // 2026 stays open; the business date is 2027-01-05
    const headers = world.users.cashier!.headers;
    const account = `/api/v1/members/accounts/${coop.savingsAccount}`;
    t.is((await app.request('POST', `${account}/deposits/`, { headers, json: { amount: '1000000' } })).status, 201);
    t.is((await app.request('POST', `${account}/withdrawals/`, { headers, json: { amount: '1200000' } })).status, 201);

    // Hand-computed: the cash and deposits of Dec 31 moved by January's deposit and withdrawal; 2026's result pending.
    const cash = hq['5710']!.plus(other['5710']!).plus(1_000_000).minus(1_200_000);
    const deposits = new Money(800_000).plus(1_000_000).minus(1_200_000);
    const january = await get(coop, 'balance-sheet/?date=2027-01-31');
    t.like(january, { provisional: true, open_exercices: ['2026'] });
    t.deepEqual(amounts(january.assets), {
      A2: [text(expected.loanOutstanding), text(expected.loanOutstanding)],
      A5: [text(cash), text(cash.minus(1_000_000).plus(1_200_000))],
    });
    t.deepEqual(amounts(january.liabilities), {
      P1: [text(hq['10000']!.negated()), text(hq['10000']!.negated())],
      P4: [text(result), '0'],
      P5: ['0', text(result)],
      P8: [text(deposits), '800000'],
    });
    t.like(january.totals, {
      assets: text(cash.plus(expected.loanOutstanding)),
      liabilities: text(cash.plus(expected.loanOutstanding)),
      balanced: true,
    });
    // The outside sum of every entry up to the date, whatever its year, gives the same balance-sheet accounts.
    const outside = await allLinesUpTo(coop, '2027-01-31');
    t.is(text(outside['5710']!), text(cash));
    t.is(text(outside['3711']!.negated()), text(deposits));

    await assertJanuaryTrialBalance(t, coop, cash);
    const ratios = await get(coop, 'prudential-ratios/?date=2027-01-31');
    t.like(ratios, { provisional: true, open_exercices: ['2026'] });
    const csv = await app.request(
      'GET',
      `/api/v1/accounts/charts/${coop.chartId}/balance-sheet/?date=2027-01-31&format=csv`,
      { headers: world.users.direction!.headers },
    );
    t.regex(csv.text, /Provisoire;soldes reportés par calcul des exercices non clôturés 2026/);
    t.like(
      await get(coop, 'balance-sheet/?date=2026-12-31'),
      { provisional: false, open_exercices: [] },
      'a date of the open year itself is not provisional',
    );

    await withWorker(knex, async () => t.is((await closeYear(coop)).body.closing.status, 'closed'), taskQueue);
    const closed = await get(coop, 'balance-sheet/?date=2027-01-31');
    t.like(closed, { provisional: false, open_exercices: [] });
    t.deepEqual(amounts(closed.assets), amounts(january.assets));
    const { P5: _running, ...carried } = amounts(january.liabilities);
    t.deepEqual(
      amounts(closed.liabilities),
      { ...carried, P4: [text(result), text(result)] },
      'the closing posts what was carried by computation',
    );
  },
);

test(
  'trial balance of one branch, in six columns: the à-nouveaux as opening, ' +
    "the month's movements, the closing; date_from moves the opening",
  async (t) => {
    const coop = await smallCooperative(app, knex, 'ST3');
    const { world, expected } = coop;
    const { headOffice: hq } = expected;
    await openNextYear(coop);
    await withWorker(knex, async () => t.is((await closeYear(coop)).body.closing.status, 'closed'), taskQueue);
    t.is(
      (
        await app.request('POST', `/api/v1/members/accounts/${coop.savingsAccount}/deposits/`, {
          headers: world.users.cashier!.headers,
          json: { amount: '100000' },
        })
      ).status,
      201,
    );

    const other = await get(coop, `trial-balance/?date=2027-01-31&branch=${world.otherBranch}`);
    const rows = (trial: { accounts: { code: string }[] }) =>
      Object.fromEntries(trial.accounts.map(({ code, ...row }) => [code, row]));
    t.like(other, { provisional: false, date_from: '2027-01-01', totals: { balanced: true } });
    t.deepEqual(Object.keys(rows(other)), ['3711', '5710'], "the other branch's accounts only");
    t.like(rows(other)['5710'], {
      opening_debit: '300000',
      movement_debit: '0',
      movement_credit: '0',
      closing_debit: '300000',
    });
    t.like(rows(other)['3711'], { opening_credit: '300000', closing_credit: '300000' });

    // Hand-computed: the head office's à-nouveaux, and January's deposit of 100 000.
    const head = rows(await get(coop, `trial-balance/?date=2027-01-31&branch=${world.headOffice}`));
    t.like(head['5710'], {
      opening_debit: text(hq['5710']!),
      movement_debit: '100000',
      movement_credit: '0',
      closing_debit: text(hq['5710']!.plus(100_000)),
    });
    t.like(head['3711'], { opening_credit: '500000', movement_credit: '100000', closing_credit: '600000' });
    t.like(head['131'], { opening_credit: text(expected.result), closing_credit: text(expected.result) });
    const later = rows(
      await get(coop, `trial-balance/?date=2027-01-31&date_from=2027-01-10&branch=${world.headOffice}`),
    );
    t.like(
      later['5710'],
      {
        opening_debit: text(hq['5710']!.plus(100_000)),
        movement_debit: '0',
        closing_debit: text(hq['5710']!.plus(100_000)),
      },
      'what was posted before date_from opens',
    );

    const path = `/api/v1/accounts/charts/${coop.chartId}/trial-balance/`;
    const headers = world.users.direction!.headers;
    t.like((await app.request('GET', `${path}?date=2027-01-31&date_from=2027-02-01`, { headers })).body, {
      status: 400,
      errors: [{ field: 'date_from' }],
    });
    t.is(
      (await app.request('GET', `${path}?branch=${world.headOffice}`, { headers: world.users.other_cashier!.headers }))
        .status,
      404,
      'a branch not seen',
    );
  },
);
