import test from 'ava';
import { readFileSync } from 'node:fs';
import { pcemfCsvPath, pcemfRecords } from '../../db/fixtures/pcemf';
import {
  closingEntries,
  closingRefusal,
  openingEntries,
  yearResult,
  type BranchBalance,
  type YearFacts,
} from '../../domain/enterprise/year-end-closing';
import {
  balanceSheet,
  balanceSheetLineOf,
  besidePrior,
  incomeStatement,
  rollUp,
  yearEarlier,
  type ChartAccount,
} from '../../domain/accounts/statements';
import { assertBalanced } from '../../domain/events/journal';
import { Money } from '../../domain/money';

const balance = (branchId: string | null, account: string, amount: number): BranchBalance => ({
  branchId,
  account,
  accountClass: Number(account[0]),
  balance: new Money(amount),
});
const signedLines = (lines: { account: string; debit: Money; credit: Money }[]) =>
  Object.fromEntries(lines.map((line) => [line.account, line.debit.minus(line.credit).toNumber()]));

// Two branches: A earns 30 000 of interest and spends 10 000; B spends 25 000 (a loss of its own).
const year: BranchBalance[] = [
  balance('A', '5710', 120_000),
  balance('A', '3711', -100_000),
  balance('A', '713', -30_000),
  balance('A', '6511', 10_000),
  balance('B', '5710', -25_000),
  balance('B', '6511', 25_000),
  balance(null, '10000', -50_000),
  balance(null, '5710', 50_000),
];

test(
  'the result is income minus expenses; the closing zeroes classes 6 and 7 per branch into the enterprise’s ' +
    'result account',
  (t) => {
    t.is(yearResult(year).toNumber(), -5_000);
    const { result, resultAccount, entries } = closingEntries(year);
    t.is(result.toNumber(), -5_000);
    t.is(resultAccount, '132', 'a loss of the enterprise goes to 132, even for a branch that made a profit');
    t.deepEqual(
      entries.map((entry) => [entry.branchId, signedLines(entry.lines)]),
      [
        ['A', { 713: 30_000, 6511: -10_000, 132: -20_000 }],
        ['B', { 6511: -25_000, 132: 25_000 }],
      ],
    );
    for (const entry of entries) t.notThrows(() => assertBalanced(entry.lines));
    t.is(closingEntries(year.filter((row) => row.branchId === 'A')).resultAccount, '131');
  },
);

test(
  'the opening entries carry each branch’s balance-sheet accounts after the closing, balanced, and nothing of ' +
    'classes 6 and 7',
  (t) => {
    const { entries } = closingEntries(year);
    const closed = [
      ...year,
      ...entries.flatMap((entry) =>
        entry.lines.map((line) => balance(entry.branchId, line.account, line.debit.minus(line.credit).toNumber())),
      ),
    ];
    // The closing's lines added to the year's: summed per branch and account, as the ledger would.
    const summed = new Map<string, BranchBalance>();
    for (const row of closed) {
      const key = `${row.branchId} ${row.account}`;
      const sum = summed.get(key);
      summed.set(key, sum === undefined ? row : { ...row, balance: sum.balance.plus(row.balance) });
    }
    const opening = openingEntries([...summed.values()]);
    t.deepEqual(
      opening.map((entry) => [entry.branchId, signedLines(entry.lines)]),
      [
        ['A', { 5710: 120_000, 3711: -100_000, 132: -20_000 }],
        ['B', { 5710: -25_000, 132: 25_000 }],
        [null, { 10000: -50_000, 5710: 50_000 }],
      ],
    );
    for (const entry of opening) t.notThrows(() => assertBalanced(entry.lines));
  },
);

test('a year closes when the next one is open and the previous one closed', (t) => {
  const y = (code: string, status: YearFacts['status'] = 'open'): YearFacts => ({
    code,
    startDate: `${code}-01-01`,
    endDate: `${code}-12-31`,
    status,
  });
  t.is(closingRefusal({ year: y('2026'), others: [] })?.code, 'next_exercice_not_open');
  t.is(closingRefusal({ year: y('2026'), others: [y('2027', 'closed')] })?.code, 'next_exercice_not_open');
  t.is(closingRefusal({ year: y('2026'), others: [y('2025'), y('2027')] })?.code, 'previous_exercice_open');
  t.is(closingRefusal({ year: y('2026', 'closed'), others: [y('2027')] })?.code, 'exercice_already_closed');
  t.is(closingRefusal({ year: y('2026'), others: [y('2025', 'closed'), y('2027')] }), null);
  t.is(
    closingRefusal({ year: y('2026'), others: [y('2028')] })?.code,
    'next_exercice_not_open',
    'the next year starts the day after',
  );
});

const chartRows = pcemfRecords(readFileSync(pcemfCsvPath, 'utf8')).map((account) => account.code);

test('every account of classes 1 to 5 of the PCEMF has its balance-sheet line, on either side of its balance', (t) => {
  // The class roots (one digit) hold no postings.
  for (const account of chartRows.filter((code) => /^[1-5]\d/.test(code))) {
    for (const amount of [1, -1])
      t.truthy(balanceSheetLineOf({ account, balance: new Money(amount) }), `${account} ${amount}`);
  }
  t.is(balanceSheetLineOf({ account: '3711', balance: new Money(-1) }), 'P8', 'a deposit is a liability');
  t.is(balanceSheetLineOf({ account: '3711', balance: new Money(1) }), 'A3', 'an overdrawn account an asset');
  t.is(balanceSheetLineOf({ account: '3931', balance: new Money(-1) }), 'A2', 'provisions are deducted from the loans');
});

test(
  'the balance sheet balances with the period’s result among the liabilities; the income statement by ' +
    'two-digit group',
  (t) => {
    // Consolidated: the branches' balances summed per account (5710: 120 000 − 25 000 + 50 000).
    const consolidated = new Map<string, Money>();
    for (const row of year)
      consolidated.set(row.account, (consolidated.get(row.account) ?? new Money(0)).plus(row.balance));
    const rows = [...consolidated].map(([account, amount]) => ({ account, balance: amount }));
    const sheet = balanceSheet(rows);
    t.is(sheet.totals.assets.toNumber(), 145_000);
    t.deepEqual(sheet.totals.assets, sheet.totals.liabilities);
    t.is(sheet.liabilities.find((line) => line.code === 'P5')!.amount.toNumber(), -5_000);
    const statement = incomeStatement(rows, (group) => `group ${group}`);
    t.deepEqual(
      statement.expenses.map((line) => [line.code, line.label, line.amount.toNumber()]),
      [['65', 'group 65', 35_000]],
    );
    t.deepEqual(
      statement.income.map((line) => [line.code, line.amount.toNumber()]),
      [['71', 30_000]],
    );
    t.is(statement.totals.result.toNumber(), -5_000);
  },
);

test('the trial balance rolls up to every parent and class', (t) => {
  const chart = new Map<string, ChartAccount>([
    ['5', { code: '5', label: 'Trésorerie', accountClass: 5, parent: null }],
    ['57', { code: '57', label: 'Caisse', accountClass: 5, parent: '5' }],
    ['571', { code: '571', label: 'Caisse', accountClass: 5, parent: '57' }],
    ['5710', { code: '5710', label: 'Caisse FCFA', accountClass: 5, parent: '571' }],
    ['5711', { code: '5711', label: 'Caisse devises', accountClass: 5, parent: '571' }],
  ]);
  const rolled = rollUp(
    [
      { code: '5710', debit: new Money(100), credit: new Money(30) },
      { code: '5711', debit: new Money(5), credit: new Money(0) },
    ],
    chart,
  );
  t.deepEqual(
    rolled.map((row) => [row.code, row.level, row.balance.toNumber()]),
    [
      ['5', 1, 75],
      ['57', 2, 75],
      ['571', 3, 75],
    ],
  );
});

test(
  'the prior period is the same dates a year earlier; ' + 'lines of either period sit side by side in code order',
  (t) => {
    t.deepEqual(['2026-03-31', '2028-02-29', '2027-01-01'].map(yearEarlier), [
      '2025-03-31',
      '2027-02-28',
      '2026-01-01',
    ]);
    const line = (code: string, amount: number) => ({ code, label: code, amount: new Money(amount), accounts: [] });
    const compared = besidePrior([line('71', 10), line('65', 4)], [line('65', 3), line('60', 1)]);
    t.deepEqual(
      compared.map((row) => [row.code, row.amount.toNumber(), row.prior.toNumber()]),
      [
        ['60', 0, 1],
        ['65', 4, 3],
        ['71', 10, 0],
      ],
    );
    t.deepEqual(
      besidePrior([line('P10', 1), line('P2', 2)], []).map((row) => row.code),
      ['P2', 'P10'],
    );
  },
);
