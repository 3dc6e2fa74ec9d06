import test from 'ava';
import ExcelJS from 'exceljs';
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { smallCooperative, type SmallCooperative } from '../helpers/small-cooperative';
import { fileTeardown } from '../helpers/teardown';

const file = fileTeardown(test);
let app: TestApp;
let knex: Knex;
let coop: SmallCooperative;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex });
  coop = await smallCooperative(app, knex, 'DL1');
});

const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

async function download(path: string) {
  const response = await fetch(`${app.baseUrl}/api/v1/accounts/charts/${coop.chartId}/${path}`, {
    headers: coop.world.users.direction!.headers,
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    disposition: response.headers.get('content-disposition'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

async function json(path: string) {
  const response = await app.request('GET', `/api/v1/accounts/charts/${coop.chartId}/${path}`, {
    headers: coop.world.users.direction!.headers,
  });
  if (response.status !== 200) throw new Error(response.text);
  return response.body;
}

/** The CSV's sheets: name → rows of fields (a naive split is enough: the test's figures hold no `;` nor quotes). */
function csvSheets(csv: string): Map<string, string[][]> {
  const blocks = csv
    .replace(/^\uFEFF/, '')
    .split('\r\n\r\n')
    .slice(1);
  return new Map(
    blocks.map((block) => {
      const [name, ...rows] = block.split('\r\n').filter((line) => line !== '');
      return [name!, rows.map((row) => row.split(';'))];
    }),
  );
}

/** The workbook's sheets: name → rows of cell values from the column titles down. */
async function workbookSheets(bytes: Buffer): Promise<Map<string, unknown[][]>> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return new Map(
    workbook.worksheets.map((sheet) => {
      const rows: unknown[][] = [];
      sheet.eachRow((row, number) => {
        if (number >= 7) rows.push((row.values as unknown[]).slice(1));
      });
      return [sheet.name, rows];
    }),
  );
}

type Line = { code: string; label: string; amount: string; prior_amount: string };
const lineFields = (lines: Line[]) => lines.map((line) => [line.code, line.label, line.amount, line.prior_amount]);

test('the balance sheet downloads as CSV and XLSX with the JSON answer’s figures', async (t) => {
  const answer = await json('balance-sheet/?date=2026-12-31');
  const csv = await download('balance-sheet/?date=2026-12-31&format=csv');
  t.is(csv.status, 200);
  t.is(csv.type, 'text/csv; charset=utf-8');
  t.is(csv.disposition, 'attachment; filename="balance-sheet-DL1-2026-12-31.csv"');
  t.deepEqual([...csv.bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 byte-order mark');
  const text = csv.bytes.toString('utf8');
  t.true(text.startsWith('\uFEFFRapport;Bilan\r\nEntreprise;DL1;'));
  t.true(text.includes('\r\nDate;2026-12-31\r\nAgence;Consolidé\r\n'));
  const sheets = csvSheets(text);
  t.deepEqual([...sheets.keys()], ['Actif', 'Passif', 'Détail par compte']);
  t.deepEqual(sheets.get('Actif'), [
    ['Poste', 'Libellé', 'Au 2026-12-31', 'Au 2025-12-31'],
    ...lineFields(answer.assets),
    ['', 'Total actif', answer.totals.assets, answer.totals.prior_assets],
  ]);
  t.deepEqual(sheets.get('Passif')!.at(-1), [
    '',
    'Total passif',
    answer.totals.liabilities,
    answer.totals.prior_liabilities,
  ]);

  const xlsx = await download('balance-sheet/?date=2026-12-31&format=xlsx');
  t.is(xlsx.status, 200);
  t.is(xlsx.type, xlsxType);
  t.is(xlsx.disposition, 'attachment; filename="balance-sheet-DL1-2026-12-31.xlsx"');
  const workbook = await workbookSheets(xlsx.bytes);
  t.deepEqual([...workbook.keys()], ['Actif', 'Passif', 'Détail par compte']);
  const asCells = (lines: Line[]) =>
    lines.map((line) => [line.code, line.label, Number(line.amount), Number(line.prior_amount)]);
  t.deepEqual(workbook.get('Actif')!.slice(1, -1), asCells(answer.assets));
  t.deepEqual(workbook.get('Passif')!.at(-1), [
    undefined,
    'Total passif',
    Number(answer.totals.liabilities),
    Number(answer.totals.prior_liabilities),
  ]);
});

test('the income statement and the trial balance download with the JSON answer’s figures', async (t) => {
  const statement = await json('income-statement/?date_from=2026-01-01&date_to=2026-12-31');
  const csv = await download('income-statement/?date_from=2026-01-01&date_to=2026-12-31&format=csv');
  t.is(csv.disposition, 'attachment; filename="income-statement-DL1-2026-12-31.csv"');
  const sheets = csvSheets(csv.bytes.toString('utf8'));
  t.deepEqual(sheets.get('Charges')!.slice(1, -1), lineFields(statement.expenses));
  t.deepEqual(sheets.get('Produits')!.slice(1, -1), lineFields(statement.income));
  t.deepEqual(sheets.get('Résultat')!.at(-1), [
    'Résultat (produits − charges)',
    statement.totals.result,
    statement.totals.prior_result,
  ]);
  const workbook = await workbookSheets(
    (await download('income-statement/?date_from=2026-01-01&date_to=2026-12-31&format=xlsx')).bytes,
  );
  t.deepEqual(workbook.get('Résultat')!.at(-1), [
    'Résultat (produits − charges)',
    Number(statement.totals.result),
    Number(statement.totals.prior_result),
  ]);

  const trial = await json('trial-balance/?date=2026-12-31');
  const trialCsv = csvSheets((await download('trial-balance/?date=2026-12-31&format=csv')).bytes.toString('utf8'));
  const columns = [
    'opening_debit',
    'opening_credit',
    'movement_debit',
    'movement_credit',
    'closing_debit',
    'closing_credit',
  ] as const;
  type Account = { code: string; label: string; class: number } & Record<(typeof columns)[number], string>;
  t.deepEqual(
    trialCsv.get('Balance')!.slice(1, -1),
    trial.accounts.map((row: Account) => [
      row.code,
      row.label,
      String(row.class),
      ...columns.map((column) => row[column]),
    ]),
  );
  t.deepEqual(trialCsv.get('Balance')!.at(-1), ['', 'Total', '', ...columns.map((column) => trial.totals[column])]);
  const trialXlsx = await download('trial-balance/?date=2026-12-31&format=xlsx');
  t.is(trialXlsx.disposition, 'attachment; filename="trial-balance-DL1-2026-12-31.xlsx"');
  const trialBook = await workbookSheets(trialXlsx.bytes);
  t.deepEqual(
    trialBook.get('Balance')!.slice(1, -1),
    trial.accounts.map((row: Account) => [
      row.code,
      row.label,
      row.class,
      ...columns.map((column) => Number(row[column])),
    ]),
  );
  t.is(trialBook.get('Regroupements')!.length - 1, trial.groups.length);
});

test('an unknown format is a 400 naming format; json is the default', async (t) => {
  const refused = await app.request(
    'GET',
    `/api/v1/accounts/charts/${coop.chartId}/balance-sheet/?date=2026-12-31&format=pdf`,
    { headers: coop.world.users.direction!.headers },
  );
  t.is(refused.status, 400);
  t.is(refused.body.errors[0].field, 'format');
  const explicit = await json('trial-balance/?date=2026-12-31&format=json');
  t.deepEqual(explicit, await json('trial-balance/?date=2026-12-31'));
});
