import test, { type ExecutionContext } from 'ava';
import ExcelJS from 'exceljs';
import type { Knex } from 'knex';
import { postJournalEntry } from '../../activities/events/post-entry';
import { inTransaction } from '../../db/transaction';
import type { JournalCode } from '../../domain/events/journal';
import { Money } from '../../domain/money';
import { startTestApp, type TestApp } from '../helpers/app';
import { testClock } from '../helpers/clock';
import { createTestDatabase } from '../helpers/database';
import { fileTeardown } from '../helpers/teardown';
import { bearer, createUser } from '../helpers/users';

/**
 * The general ledger and the journal book (issue 28, part 3) of a cooperative whose entries the test posts itself,
 * dated, in named journals, at two branches: every opening, running balance, closing and total below is computed
 * here from the test's own list of postings, not read back from the product.
 */

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let root: Record<string, string>;
/** The cooperative, its chart, its two branches, and the accountant who posts March's salaries. */
let [enterpriseId, chartId, headOffice, market, accountantId] = ['', '', '', '', ''];

interface Posting {
  date: string;
  branch: 'hq' | 'market';
  journal: JournalCode;
  label: string;
  debit: [string, number];
  credit: [string, number];
  byAccountant?: boolean;
}

/** The postings, in the order they are posted (so each journal's numbers follow it). */
const postings: Posting[] = [
  {
    date: '2026-01-15',
    branch: 'hq',
    journal: 'CAI',
    label: 'Capital paid in',
    debit: ['5710', 1_000_000],
    credit: ['10000', 1_000_000],
  },
  {
    date: '2026-02-10',
    branch: 'hq',
    journal: 'BQ',
    label: 'Cash to the bank',
    debit: ['56090', 400_000],
    credit: ['5710', 400_000],
  },
  {
    date: '2026-03-05',
    branch: 'hq',
    journal: 'OD',
    label: 'Bank fees',
    debit: ['626', 2_500],
    credit: ['56090', 2_500],
  },
  {
    date: '2026-03-20',
    branch: 'market',
    journal: 'CAI',
    label: 'Capital paid in at the market',
    debit: ['5710', 300_000],
    credit: ['10000', 300_000],
  },
  {
    date: '2026-03-31',
    branch: 'hq',
    journal: 'OD',
    label: 'Salaries of March',
    debit: ['626', 50_000],
    credit: ['422', 50_000],
    byAccountant: true,
  },
  {
    date: '2026-04-02',
    branch: 'hq',
    journal: 'CAI',
    label: 'Salaries paid',
    debit: ['422', 50_000],
    credit: ['5710', 50_000],
  },
  {
    date: '2026-03-10',
    branch: 'hq',
    journal: 'BQ',
    label: 'Cash from the bank',
    debit: ['5710', 100_000],
    credit: ['56090', 100_000],
  },
];

/** How many of the postings up to `index` (included) are in `journal`. */
const journalCountUpTo = (index: number, journal: string) =>
  postings.slice(0, index + 1).filter((p) => p.journal === journal).length;
/** Each posting's printed number: its journal's count in posting order. */
const numbers = postings.map(
  (posting, index) => `${posting.journal}-2026-${String(journalCountUpTo(index, posting.journal)).padStart(6, '0')}`,
);

const text = (amount: number) => String(amount);

/**
 * The test's own ledger of an account: opening before `from`, the period's lines in date then posting order with the
 * balance after each.
 */
function expectedLedger(
  account: string,
  from: string,
  to: string,
  branches: readonly Posting['branch'][] = ['hq', 'market'],
) {
  const lines = postings
    .map((posting, index) => ({ posting, number: numbers[index]!, index }))
    .filter(
      ({ posting }) =>
        branches.includes(posting.branch) &&
        posting.date <= to &&
        (posting.debit[0] === account || posting.credit[0] === account),
    )
    .map(({ posting, number, index }) => ({
      ...posting,
      number,
      index,
      signed: posting.debit[0] === account ? posting.debit[1] : -posting.credit[1],
    }));
  const opening = lines.filter((line) => line.date < from).reduce((sum, line) => sum + line.signed, 0);
  let balance = opening;
  const movements = lines
    .filter((line) => line.date >= from)
    .sort((a, b) => a.date.localeCompare(b.date) || a.index - b.index)
    .map((line) => {
      balance += line.signed;
      return {
        date: line.date,
        number: line.number,
        debit: text(Math.max(line.signed, 0)),
        credit: text(Math.max(-line.signed, 0)),
        balance: text(balance),
      };
    });
  return { account, opening_balance: text(opening), movements, closing_balance: text(balance) };
}

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, clock: testClock });
  await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  root = await bearer(app, 'root');
  enterpriseId = (
    await app.request('POST', '/api/v1/enterprise/enterprises/', {
      headers: root,
      json: { code: 'GLR', name: 'Coop ledger reports', legal_form: 'C', country: 'CM' },
    })
  ).body.id;
  chartId = (await knex('company_charts').where({ enterprise_id: enterpriseId }).first('id')).id;
  headOffice = (await knex('branches').where({ enterprise_id: enterpriseId }).first('id')).id;
  market = (
    await app.request('POST', '/api/v1/enterprise/branches/', {
      headers: root,
      json: { enterprise: enterpriseId, code: 'GLRM', name: 'Agence du marché' },
    })
  ).body.id;
  accountantId = await createUser(knex, 'accountant', [{ role: 'accountant', enterpriseId, branchId: null }]);
  for (const posting of postings) {
    await inTransaction(knex, (trx) =>
      postJournalEntry(trx, {
        enterpriseId,
        branchId: posting.branch === 'hq' ? headOffice : market,
        entryDate: posting.date,
        journal: posting.journal,
        description: posting.label,
        createdBy: posting.byAccountant === true ? accountantId : null,
        lines: [
          { account: posting.debit[0], debit: new Money(posting.debit[1]), credit: new Money(0) },
          { account: posting.credit[0], debit: new Money(0), credit: new Money(posting.credit[1]) },
        ],
      }),
    );
  }
});

const ledgerPath = (query: string) => `/api/v1/accounts/charts/${chartId}/general-ledger/?${query}`;

/** The field named by the first error of a refused read. */
const refusedField = async (path: string, headers: Record<string, string>) =>
  (await app.request('GET', path, { headers })).body.errors[0].field as string;

/** The answer's accounts reduced to what the test computes. */
type LedgerMovement = { date: string; number: string; debit: string; credit: string; balance: string };
const ledgerFigures = (body: {
  accounts: { account: string; opening_balance: string; closing_balance: string; movements: LedgerMovement[] }[];
}) =>
  body.accounts.map(({ account, opening_balance, closing_balance, movements }) => ({
    account,
    opening_balance,
    closing_balance,
    movements: movements.map(({ date, number, debit, credit, balance }) => ({ date, number, debit, credit, balance })),
  }));

/** A cashier of the market reads the market's lines only, and no other branch; another enterprise reads nothing. */
async function assertLedgerReadersConfined(t: ExecutionContext) {
  await createUser(knex, 'market-cashier', [{ role: 'cashier', enterpriseId, branchId: market }]);
  const cashier = await bearer(app, 'market-cashier');
  const seen = await app.request('GET', ledgerPath('date_from=2026-01-01&date_to=2026-12-31'), { headers: cashier });
  t.deepEqual(ledgerFigures(seen.body), [
    expectedLedger('10000', '2026-01-01', '2026-12-31', ['market']),
    expectedLedger('5710', '2026-01-01', '2026-12-31', ['market']),
  ]);
  t.is(
    (
      await app.request('GET', ledgerPath(`date_from=2026-01-01&date_to=2026-12-31&branch=${headOffice}`), {
        headers: cashier,
      })
    ).status,
    404,
  );
  const [other] = await knex('enterprises')
    .insert({ code: 'GLO', name: 'Other', legal_form: 'C', country: 'CM' })
    .returning('id');
  await createUser(knex, 'outsider', [{ role: 'auditor', enterpriseId: other.id, branchId: null }]);
  t.is(
    (
      await app.request('GET', ledgerPath('date_from=2026-01-01&date_to=2026-12-31'), {
        headers: await bearer(app, 'outsider'),
      })
    ).status,
    404,
  );
}

test(
  'general ledger of class 5 for March: openings, running balances ' +
    'and closings to the franc, consolidated and per branch',
  async (t) => {
    const accountant = await bearer(app, 'accountant');
    const march = await app.request(
      'GET',
      ledgerPath('account_from=5&account_to=5&date_from=2026-03-01&date_to=2026-03-31'),
      { headers: accountant },
    );
    t.is(march.status, 200, march.text);
    t.deepEqual(ledgerFigures(march.body), [
      expectedLedger('56090', '2026-03-01', '2026-03-31'),
      expectedLedger('5710', '2026-03-01', '2026-03-31'),
    ]);
    // By hand: the bank opens at 400 000 (February's deposit), the vault at 600 000; March moves 400 000 in and 102 500
    // out.
    t.like(march.body.accounts[0], {
      opening_balance: '400000',
      closing_balance: '297500',
      movement_debit: '0',
      movement_credit: '102500',
    });
    t.like(march.body.totals, {
      opening_debit: '1000000',
      opening_credit: '0',
      movement_debit: '400000',
      movement_credit: '102500',
      closing_debit: '1297500',
      closing_credit: '0',
    });
    t.like(march.body, {
      provisional: false,
      branch: null,
      date_from: '2026-03-01',
      account_from: '5',
      account_to: '5',
    });
    t.is(march.body.accounts[1].movements[0].journal, 'BQ');
    t.is(march.body.accounts[1].movements[1].branch, 'GLRM');

    const hq = await app.request(
      'GET',
      ledgerPath(`account_from=5710&account_to=5710&date_from=2026-03-01&date_to=2026-04-30&branch=${headOffice}`),
      { headers: accountant },
    );
    t.deepEqual(ledgerFigures(hq.body), [expectedLedger('5710', '2026-03-01', '2026-04-30', ['hq'])]);
    await assertLedgerReadersConfined(t);
  },
);

test(
  'the general ledger of every account adds up to the ' + "trial balance's six columns over the same period",
  async (t) => {
    const [ledger, trial] = await Promise.all([
      app.request('GET', ledgerPath('date_from=2026-03-01&date_to=2026-03-31'), { headers: root }),
      app.request('GET', `/api/v1/accounts/charts/${chartId}/trial-balance/?date=2026-03-31&date_from=2026-03-01`, {
        headers: root,
      }),
    ]);
    const { debit: _debit, credit: _credit, balanced: _balanced, ...sixColumns } = trial.body.totals;
    t.deepEqual(ledger.body.totals, sixColumns);
    t.deepEqual(
      ledger.body.accounts.map((account: { account: string }) => account.account),
      ['10000', '422', '56090', '5710', '626'],
    );
    t.deepEqual(
      ledgerFigures(ledger.body).find((account) => account.account === '626'),
      expectedLedger('626', '2026-03-01', '2026-03-31'),
    );
  },
);

/** Opens the exercice 2027 and posts 1 000 of fees in it, paid from the vault. */
async function postFeesOf2027(t: ExecutionContext) {
  const created = await app.request('POST', '/api/v1/enterprise/exercices/', {
    headers: root,
    json: { enterprise: enterpriseId, code: '2027', start_date: '2027-01-01', end_date: '2027-12-31' },
  });
  t.is(created.status, 201, created.text);
  await inTransaction(knex, (trx) =>
    postJournalEntry(trx, {
      enterpriseId,
      branchId: headOffice,
      entryDate: '2027-01-10',
      journal: 'OD',
      description: 'Fees of 2027',
      createdBy: null,
      lines: [
        { account: '626', debit: new Money(1_000), credit: new Money(0) },
        { account: '5710', debit: new Money(0), credit: new Money(1_000) },
      ],
    }),
  );
}

/** Bad periods and account ranges are refused, each naming its field. */
async function assertBadLedgerQueriesNamed(t: ExecutionContext) {
  t.like((await app.request('GET', ledgerPath('date_from=2026-12-01&date_to=2027-01-31'), { headers: root })).body, {
    code: 'ledger_period_across_years',
    errors: [{ field: 'date_from' }],
  });
  t.like((await app.request('GET', ledgerPath('date_from=2019-01-01&date_to=2019-01-31'), { headers: root })).body, {
    code: 'no_exercice_for_date',
    errors: [{ field: 'date_to' }],
  });
  t.is(await refusedField(ledgerPath('date_from=2026-03-02&date_to=2026-03-01'), root), 'date_to');
  t.is(
    await refusedField(ledgerPath('account_from=57&account_to=56&date_from=2026-03-01&date_to=2026-03-31'), root),
    'account_to',
  );
  t.is(
    await refusedField(ledgerPath('account_from==1+1&date_from=2026-03-01&date_to=2026-03-31'), root),
    'account_from',
  );
  t.is(await refusedField(ledgerPath('date_from=2026-03-01&date_to=2026-03-31&format=pdf'), root), 'format');
}

test(
  'general ledger: a later year carries the open year ' + 'by computation; bad periods and ranges are named',
  async (t) => {
    await postFeesOf2027(t);
    const january = await app.request(
      'GET',
      ledgerPath('account_from=5710&account_to=626&date_from=2027-01-01&date_to=2027-01-31'),
      { headers: root },
    );
    const vault2026 = expectedLedger('5710', '2026-01-01', '2026-12-31');
    t.like(january.body, { provisional: true, open_exercices: ['2026'] });
    // The vault opens 2027 with its 2026 closing; an expense account (class 6) opens at zero (its 2026 result is
    // carried in 13).
    t.deepEqual(ledgerFigures(january.body), [
      {
        account: '5710',
        opening_balance: vault2026.closing_balance,
        closing_balance: text(Number(vault2026.closing_balance) - 1_000),
        movements: [
          {
            date: '2027-01-10',
            number: 'OD-2027-000001',
            debit: '0',
            credit: '1000',
            balance: text(Number(vault2026.closing_balance) - 1_000),
          },
        ],
      },
      {
        account: '626',
        opening_balance: '0',
        closing_balance: '1000',
        movements: [{ date: '2027-01-10', number: 'OD-2027-000001', debit: '1000', credit: '0', balance: '1000' }],
      },
    ]);
    await assertBadLedgerQueriesNamed(t);
  },
);

async function download(path: string, headers: Record<string, string>) {
  const response = await fetch(`${app.baseUrl}${path}`, { headers });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    disposition: response.headers.get('content-disposition'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

test("the general ledger downloads as CSV and XLSX with the JSON's running balances", async (t) => {
  const query = 'account_from=5710&account_to=5710&date_from=2026-03-01&date_to=2026-03-31';
  const expected = expectedLedger('5710', '2026-03-01', '2026-03-31');
  const csv = await download(ledgerPath(`${query}&format=csv`), root);
  t.is(csv.status, 200);
  t.is(csv.disposition, 'attachment; filename="general-ledger-GLR-2026-03-31.csv"');
  const rows = csv.bytes
    .toString('utf8')
    .split('\r\n')
    .map((line) => line.split(';'));
  const body = rows.slice(rows.findIndex((row) => row[0] === 'Compte') + 1).filter((row) => row.length > 1);
  t.deepEqual(
    body.map((row) => [row[0], row[2], row[4], row[7], row[8], row[9]]),
    [
      ['5710', '', '', '600000', '0', expected.opening_balance],
      ...expected.movements.map((movement) => [
        '5710',
        movement.date,
        movement.number,
        movement.debit,
        movement.credit,
        movement.balance,
      ]),
      ['5710', '', '', '400000', '0', expected.closing_balance],
      ['', '', '', '400000', '0', ''],
    ],
  );
  const xlsx = await download(ledgerPath(`${query}&format=xlsx`), root);
  t.is(xlsx.type, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(xlsx.bytes as unknown as ArrayBuffer);
  const balances: unknown[] = [];
  workbook.worksheets[0]!.eachRow((row) => balances.push(row.getCell(10).value));
  const running = [
    expected.opening_balance,
    ...expected.movements.map((movement) => movement.balance),
    expected.closing_balance,
  ].map(Number);
  t.deepEqual(
    balances.slice(-(running.length + 1)),
    [...running, null],
    'the opening, each movement, the closing, then the total (no balance)',
  );
});

const bookPath = (query: string) => `/api/v1/accounts/journal-book/?enterprise=${enterpriseId}&${query}`;

/** March's postings with their numbers, in the journal book's order: date, journal, number. */
const inMarch = postings
  .map((posting, index) => ({ ...posting, number: numbers[index]! }))
  .filter((posting) => posting.date >= '2026-03-01' && posting.date <= '2026-03-31')
  .sort(
    (a, b) => a.date.localeCompare(b.date) || a.journal.localeCompare(b.journal) || a.number.localeCompare(b.number),
  );

type BookEntry = {
  date: string;
  number: string;
  debit: string;
  lines: { account: string; debit: string; credit: string }[];
};
type JournalTotals = { journal: string; entries: number; debit: string; credit: string };
const entryFigures = (entry: BookEntry) => [
  entry.date,
  entry.number,
  entry.debit,
  entry.lines.map(({ account, debit, credit }) => ({ account, debit, credit })),
];

/** The book's entries with their lines, its totals per journal and its grand total, against March's postings. */
function assertBookEntriesAndTotals(
  t: ExecutionContext,
  body: { entries: BookEntry[]; journals: JournalTotals[]; totals: unknown },
) {
  t.deepEqual(
    body.entries.map(entryFigures),
    inMarch.map((posting) => [
      posting.date,
      posting.number,
      text(posting.debit[1]),
      [
        { account: posting.debit[0], debit: text(posting.debit[1]), credit: '0' },
        { account: posting.credit[0], debit: '0', credit: text(posting.credit[1]) },
      ],
    ]),
  );
  const sumOf = (some: readonly Posting[], side: 'debit' | 'credit') =>
    text(some.reduce((sum, posting) => sum + posting[side][1], 0));
  const perJournal = (journal: string) => inMarch.filter((posting) => posting.journal === journal);
  t.deepEqual(
    body.journals.map((journal) => [journal.journal, journal.entries, journal.debit, journal.credit]),
    ['BQ', 'CAI', 'OD'].map((journal) => [
      journal,
      perJournal(journal).length,
      sumOf(perJournal(journal), 'debit'),
      sumOf(perJournal(journal), 'credit'),
    ]),
  );
  t.deepEqual(body.totals, {
    entries: inMarch.length,
    debit: sumOf(inMarch, 'debit'),
    credit: sumOf(inMarch, 'credit'),
  });
}

/** The book filtered by day, journal, branch and user, and its refused filters. */
async function assertBookFilters(t: ExecutionContext, auditor: Record<string, string>) {
  const numbersOf = async (query: string) =>
    (await app.request('GET', bookPath(query), { headers: auditor })).body.entries.map(
      (entry: { number: string }) => entry.number,
    );
  t.deepEqual(await numbersOf('date_from=2026-03-20&date_to=2026-03-20'), [numbers[3]]);
  t.deepEqual(await numbersOf('date_from=2026-03-01&date_to=2026-03-31&journal=OD'), [numbers[2], numbers[4]]);
  t.deepEqual(await numbersOf(`date_from=2026-01-01&date_to=2026-12-31&branch=${market}`), [numbers[3]]);
  t.deepEqual(await numbersOf(`date_from=2026-01-01&date_to=2026-12-31&user=${accountantId}`), [numbers[4]]);
  t.is(
    (
      await app.request('GET', bookPath(`date_from=2026-01-01&date_to=2026-12-31&user=${accountantId}`), {
        headers: auditor,
      })
    ).body.entries[0].user,
    'accountant',
  );
  t.is(await refusedField(bookPath('date_from=2026-03-02&date_to=2026-03-01'), auditor), 'date_to');
  t.is(await refusedField(bookPath('date_from=2026-03-01&date_to=2026-03-31&journal=cai'), auditor), 'journal');
}

/** The book's CSV: one row per line of March's entries, then the total. */
async function assertBookCsv(t: ExecutionContext, auditor: Record<string, string>) {
  const csv = (await download(bookPath('date_from=2026-03-01&date_to=2026-03-31&format=csv'), auditor)).bytes.toString(
    'utf8',
  );
  const lines = csv.split('\r\n').map((line) => line.split(';'));
  t.deepEqual(
    lines.filter((line) => /^2026-03-\d\d$/.test(line[0]!)).map((line) => [line[2], line[6], line[8], line[9]]),
    inMarch.flatMap((posting) => [
      [posting.number, posting.debit[0], text(posting.debit[1]), '0'],
      [posting.number, posting.credit[0], '0', text(posting.credit[1])],
    ]),
  );
  t.deepEqual(lines.find((line) => line[1] === 'Total')!.slice(2, 5), [
    String(inMarch.length),
    text(452_500),
    text(452_500),
  ]);
}

test(
  'journal book of March: entries in date, journal and number order with ' +
    'their lines, totals per journal; filtered by day, journal, branch and user',
  async (t) => {
    const auditor =
      (await createUser(knex, 'auditor', [{ role: 'auditor', enterpriseId, branchId: null }]),
      await bearer(app, 'auditor'));
    const book = await app.request('GET', bookPath('date_from=2026-03-01&date_to=2026-03-31'), { headers: auditor });
    t.is(book.status, 200, book.text);
    assertBookEntriesAndTotals(t, book.body);
    await assertBookFilters(t, auditor);
    await assertBookCsv(t, auditor);
  },
);
