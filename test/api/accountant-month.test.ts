import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, putBusinessDate, setBusinessDate, type LoanWorld } from '../helpers/loans';
import { runMonthEnd } from '../helpers/month-ends';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';
import { newTaskQueue, withWorker } from '../helpers/worker';
import { booksBreaches } from '../model/books';

/**
 * The hand-computed month (issue 28, "Tests and bad input"): an accountant keeps a cooperative's books for March 2026
 * through the API only, and a second person approves every request through the four-eyes workflow. The opening
 * balance sheet, the rent, the salaries and their payment, a deposit of cash at the bank, a motorcycle bought on the
 * 10th and depreciated by three month ends, an electricity invoice paid in full. The test writes down every line it
 * posts (`book`); the balance sheet, the income statement, the six-column trial balance and the general ledger of
 * the bank must equal what it computes from that list, and the depreciation from the rule of docs/domain.md §12.4
 * (days in use of the first month, then whole months), not from the product's code.
 */
const file = fileTeardown(test);
const taskQueue = newTaskQueue();
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let chartId: string;
let accountant: Record<string, string>;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
  // No share capital: the books hold only what this test posts.
  world = await createLoanWorld(app, knex, 'AMO', { capital: false });
  chartId = (await knex('company_charts').where({ enterprise_id: world.enterpriseId }).first('id')).id as string;
  await createUser(knex, 'accountant_amo', [{ role: 'accountant', enterpriseId: world.enterpriseId, branchId: null }]);
  accountant = await bearer(app, 'accountant_amo', '10.72.0.1');
  await putBusinessDate(world, '2026-03-31');
});

/**
 * One posted entry as the test wrote it: its date, whether it is the opening balance sheet, each account's debit (+) or
 * credit (−).
 */
interface Written {
  date: string;
  opening: boolean;
  lines: [string, Money][];
}
const book: Written[] = [];
const write = (date: string, lines: [string, number | Money][], opening = false) =>
  book.push({ date, opening, lines: lines.map(([account, amount]) => [account, new Money(amount)]) });

const [bank, vault, suspense] = ['5603', '5710', '4780'];
const opening = { bank: 8_000_000, vault: 500_000, reserves: 2_000_000, fund: 1_000_000 };
const [rent, salaries, deposit, electricity] = [250_000, 600_000, 300_000, 85_000];
const cost = new Money(1_200_000);
const months = 36;
/** Depreciated by the end of the k-th whole month after March: bought on the 10th, 22 of March's 31 days in use. */
const depreciatedBy = (k: number) =>
  cost.times(new Money(22).div(31).plus(k)).div(months).toDecimalPlaces(0, Money.ROUND_HALF_UP);
const charges = [depreciatedBy(0), depreciatedBy(1).minus(depreciatedBy(0)), depreciatedBy(2).minus(depreciatedBy(1))];
const depreciation = depreciatedBy(2);

const as = (name: string) => world.users[name]!.headers;
const post = (path: string, json: unknown, headers = accountant) =>
  app.request('POST', `/api/v1/accounting/${path}`, { headers, json });
const get = async (path: string) => {
  const answer = await app.request('GET', path, { headers: accountant });
  if (answer.status !== 200) throw new Error(`${path}: ${answer.text}`);
  return answer.body;
};
const line = (account: string, side: 'debit' | 'credit', amount: number | Money) => ({
  account,
  branch: world.headOffice,
  [side]: new Money(amount).toFixed(0),
});

/** A request (202) approved by `approver` through the API and the request's workflow. */
async function approved(t: ExecutionContext, requested: TestResponse, approver = 'direction'): Promise<void> {
  t.is(requested.status, 202, requested.text);
  const decided = await app.request('POST', `/api/v1/approvals/requests/${requested.body.id as string}/approve/`, {
    headers: as(approver),
    json: { reason: 'pièce vérifiée' },
  });
  t.is(decided.body.status, 'approved', decided.text);
}

/** A manual entry drafted and submitted by the accountant, validated by the branch head. */
async function manualEntry(
  t: ExecutionContext,
  date: string,
  reference: string,
  lines: [string, 'debit' | 'credit', number][],
): Promise<void> {
  const drafted = await post('manual-entries/', {
    enterprise: world.enterpriseId,
    entry_date: date,
    reference,
    label: reference,
    lines: lines.map(([account, side, amount]) => line(account, side, amount)),
  });
  t.is(drafted.status, 201, drafted.text);
  await approved(t, await post(`manual-entries/${drafted.body.id as string}/submission/`, {}), 'branch_head');
  write(
    date,
    lines.map(([account, side, amount]) => [account, side === 'debit' ? amount : -amount]),
  );
}

/**
 * The opening balance sheet: the bank, the vault, reserves and a guarantee fund; the difference waits on 4780. Four
 * eyes tried on it.
 */
async function openingBalanceSheet(t: ExecutionContext): Promise<void> {
  const cashier = await post(
    'manual-entries/',
    {
      enterprise: world.enterpriseId,
      entry_date: '2026-03-02',
      reference: 'X',
      label: 'X',
      lines: [line('65234', 'debit', 1), line(bank, 'credit', 1)],
    },
    as('cashier'),
  );
  t.is(cashier.status, 403, 'a cashier cannot draft');
  const drafted = await post('manual-entries/opening/', {
    enterprise: world.enterpriseId,
    reference: 'BILAN-2025',
    lines: [
      line(bank, 'debit', opening.bank),
      line(vault, 'debit', opening.vault),
      line('111', 'credit', opening.reserves),
      line('16300', 'credit', opening.fund),
    ],
  });
  t.is(drafted.status, 201, drafted.text);
  const submitted = await post(`manual-entries/${drafted.body.id as string}/submission/`, {});
  const own = await app.request('POST', `/api/v1/approvals/requests/${submitted.body.id as string}/approve/`, {
    headers: accountant,
    json: { reason: 'mine' },
  });
  t.like(own.body, { status: 403, code: 'approval_own_request' }, 'the maker cannot validate their own entry');
  await approved(t, submitted);
  const difference = opening.bank + opening.vault - opening.reserves - opening.fund;
  write(
    '2026-01-01',
    [
      [bank, opening.bank],
      [vault, opening.vault],
      ['111', -opening.reserves],
      ['16300', -opening.fund],
      [suspense, -difference],
    ],
    true,
  );
}

/** The electricity invoice, booked to its supplier and paid in full from the bank. */
async function invoicePaid(t: ExecutionContext): Promise<void> {
  const supplier = await post('suppliers/', {
    enterprise: world.enterpriseId,
    branch: world.headOffice,
    name: 'ENEO Cameroun',
  });
  t.is(supplier.status, 201, supplier.text);
  await approved(
    t,
    await post('supplier-invoices/', {
      supplier: supplier.body.id,
      number: 'ENEO-2026-03',
      invoice_date: '2026-03-20',
      due_date: '2026-03-31',
      label: 'Électricité mars',
      amount: String(electricity),
      lines: [{ account: '65211', amount: String(electricity), label: 'Consommation' }],
    }),
  );
  const invoice = (
    await get(
      `/api/v1/accounting/supplier-invoices/?enterprise=${world.enterpriseId}&supplier=${supplier.body.id as string}`,
    )
  ).results[0];
  await approved(
    t,
    await post('supplier-payments/', {
      supplier: supplier.body.id,
      payment_date: '2026-03-25',
      amount: String(electricity),
      paying_account: bank,
      allocations: [{ invoice: invoice.id, amount: String(electricity) }],
    }),
  );
  const account = supplier.body.account as string;
  write('2026-03-20', [
    ['65211', electricity],
    [account, -electricity],
  ]);
  write('2026-03-25', [
    [account, electricity],
    [bank, -electricity],
  ]);
  t.like(await get(`/api/v1/accounting/suppliers/${supplier.body.id as string}/`), {
    invoiced: String(electricity),
    paid: String(electricity),
    balance: '0',
  });
}

/** The motorcycle, bought from the bank on the 10th under four eyes, then March's, April's and May's month ends. */
async function motorcycle(t: ExecutionContext): Promise<void> {
  const category = await post('fixed-asset-categories/', {
    enterprise: world.enterpriseId,
    name: 'Matériel de transport',
    depreciation_months: months,
    asset_account: '225',
    depreciation_account: '2825',
    charge_account: '6824',
  });
  t.is(category.status, 201, category.text);
  await approved(
    t,
    await post('fixed-assets/', {
      category: category.body.id,
      branch: world.headOffice,
      label: 'Moto Yamaha AG 100',
      supplier: 'Moto Center Douala',
      acquisition_date: '2026-03-10',
      cost: cost.toFixed(0),
      funding_account: bank,
    }),
  );
  write('2026-03-10', [
    ['225', cost],
    [bank, cost.negated()],
  ]);
  for (const [index, [period, next]] of [
    ['2026-03', '2026-04-01'],
    ['2026-04', '2026-05-01'],
    ['2026-05', '2026-06-01'],
  ].entries()) {
    await setBusinessDate(world, next!);
    const run = await runMonthEnd(world, period!);
    t.is(run.body.status, 'done', run.text);
    const monthEnd = new Date(Date.UTC(Number(period!.slice(0, 4)), Number(period!.slice(5)), 0))
      .toISOString()
      .slice(0, 10);
    write(monthEnd, [
      ['6824', charges[index]!],
      ['2825', charges[index]!.negated()],
    ]);
  }
}

test.serial("an accountant's month through the API, each request approved by a second person", async (t) => {
  t.is(depreciatedBy(0).toFixed(0), '23656', 'by hand: 1 200 000 × 22/31 ÷ 36, half-up to the franc');
  await withWorker(
    knex,
    async () => {
      await openingBalanceSheet(t);
      await manualEntry(t, '2026-03-05', 'LOY-03', [
        ['65234', 'debit', rent],
        [bank, 'credit', rent],
      ]);
      await manualEntry(t, '2026-03-15', 'VERS-03', [
        [bank, 'debit', deposit],
        [vault, 'credit', deposit],
      ]);
      await invoicePaid(t);
      await manualEntry(t, '2026-03-31', 'PAIE-03', [
        ['6511', 'debit', salaries],
        ['422', 'credit', salaries],
      ]);
      await manualEntry(t, '2026-03-31', 'VIR-PAIE-03', [
        ['422', 'debit', salaries],
        [bank, 'credit', salaries],
      ]);
      await motorcycle(t);
    },
    taskQueue,
  );
  t.deepEqual(await booksBreaches(world, new Map()), [], 'the subledgers still equal the ledger');
});

/** Each account's balance (debit − credit) in the test's book, over the entries `within` keeps. */
function balances(within: (entry: Written) => boolean): Map<string, Money> {
  const sums = new Map<string, Money>();
  for (const entry of book.filter(within))
    for (const [account, amount] of entry.lines) sums.set(account, (sums.get(account) ?? new Money(0)).plus(amount));
  return sums;
}
const text = (amount: Money) => amount.toFixed(0);
const balanceAt = (date: string) => balances((entry) => entry.date <= date);

test.serial("the balance sheet and the income statement at the end of May equal the test's figures", async (t) => {
  const at = balanceAt('2026-05-31');
  const of = (account: string) => at.get(account) ?? new Money(0);
  const expenses = [rent, electricity, salaries].reduce((sum, amount) => sum.plus(amount), depreciation);
  t.is(
    text(of(bank)),
    String(opening.bank - rent + deposit - electricity - salaries - cost.toNumber()),
    'by hand: the bank',
  );
  const sheet = await get(`/api/v1/accounts/charts/${chartId}/balance-sheet/?date=2026-05-31`);
  const amounts = (lines: { code: string; amount: string }[]) =>
    Object.fromEntries(lines.filter((row) => row.amount !== '0').map((row) => [row.code, row.amount]));
  t.deepEqual(amounts(sheet.assets), { A1: text(cost.minus(depreciation)), A5: text(of(bank).plus(of(vault))) });
  t.deepEqual(amounts(sheet.liabilities), {
    P2: String(opening.reserves),
    P6: String(opening.fund),
    P5: text(expenses.negated()),
    P9: text(of(suspense).negated()),
  });
  const total = of(bank).plus(of(vault)).plus(cost).minus(depreciation);
  t.like(sheet.totals, { assets: text(total), liabilities: text(total), balanced: true });

  const income = await get(
    `/api/v1/accounts/charts/${chartId}/income-statement/?date_from=2026-01-01&date_to=2026-05-31`,
  );
  t.deepEqual(amounts(income.expenses), { 65: String(rent + electricity + salaries), 68: text(depreciation) });
  t.deepEqual(amounts(income.income), {});
  t.like(income.totals, { expenses: text(expenses), income: '0', result: text(expenses.negated()) });
});

/**
 * The six columns of an account from the book: the opening balance sheet as the opening, the rest as movements to
 * `date`.
 */
function sixColumns(account: string, date: string) {
  const side = (amount: Money) => (amount.gte(0) ? [text(amount), '0'] : ['0', text(amount.negated())]);
  const amounts = book
    .filter((entry) => entry.date <= date)
    .flatMap((entry) =>
      entry.lines.filter(([code]) => code === account).map(([, amount]) => ({ amount, opening: entry.opening })),
    );
  const sum = (rows: { amount: Money }[]) => rows.reduce((total, row) => total.plus(row.amount), new Money(0));
  const moves = amounts.filter((row) => !row.opening);
  const [openingDebit, openingCredit] = side(sum(amounts.filter((row) => row.opening)));
  const [closingDebit, closingCredit] = side(sum(amounts));
  return {
    opening_debit: openingDebit,
    opening_credit: openingCredit,
    movement_debit: text(sum(moves.filter((row) => row.amount.gt(0)))),
    movement_credit: text(sum(moves.filter((row) => row.amount.lt(0))).negated()),
    closing_debit: closingDebit,
    closing_credit: closingCredit,
  };
}

test.serial("the six-column trial balance and the general ledger of the bank equal the test's figures", async (t) => {
  const trial = await get(`/api/v1/accounts/charts/${chartId}/trial-balance/?date=2026-05-31`);
  const accounts = [...new Set(book.flatMap((entry) => entry.lines.map(([account]) => account)))].sort();
  const names = [
    'opening_debit',
    'opening_credit',
    'movement_debit',
    'movement_credit',
    'closing_debit',
    'closing_credit',
  ] as const;
  type Row = { code: string } & Record<(typeof names)[number], string>;
  const columns = (row: Row) => Object.fromEntries(names.map((name) => [name, row[name]]));
  const listed = (trial.accounts as Row[]).filter(
    (row) =>
      row.closing_debit !== '0' ||
      row.closing_credit !== '0' ||
      row.movement_debit !== '0' ||
      row.movement_credit !== '0',
  );
  t.deepEqual(listed.map((row) => row.code).sort(), accounts, 'no account moved but those the test posted');
  t.deepEqual(
    Object.fromEntries(listed.map((row) => [row.code, columns(row)])),
    Object.fromEntries(accounts.map((account) => [account, sixColumns(account, '2026-05-31')])),
  );
  t.like(trial.totals, { balanced: true });

  const ledger = await get(
    `/api/v1/accounts/charts/${chartId}/general-ledger/?account_from=${bank}&account_to=${bank}` +
      '&date_from=2026-01-01&date_to=2026-05-31',
  );
  let running = new Money(opening.bank);
  const movements = book
    .filter((entry) => !entry.opening)
    .flatMap((entry) =>
      entry.lines.filter(([account]) => account === bank).map(([, amount]) => ({ date: entry.date, amount })),
    )
    .sort((a, b) => a.date.localeCompare(b.date))
    .map(({ date, amount }) => {
      running = running.plus(amount);
      return {
        date,
        debit: text(amount.gt(0) ? amount : new Money(0)),
        credit: text(amount.lt(0) ? amount.negated() : new Money(0)),
        balance: text(running),
      };
    });
  t.is(ledger.accounts.length, 1);
  const [account] = ledger.accounts;
  t.like(account, {
    account: bank,
    opening_balance: String(opening.bank),
    closing_balance: text(balanceAt('2026-05-31').get(bank)!),
  });
  t.deepEqual(
    account.movements.map(({ date, debit, credit, balance }: Record<string, string>) => ({
      date,
      debit,
      credit,
      balance,
    })),
    movements,
  );
});
