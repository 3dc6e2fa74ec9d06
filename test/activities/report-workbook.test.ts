import { Writable } from 'node:stream';
import test from 'ava';
import ExcelJS from 'exceljs';
import { reportFileBytes } from '../../activities/report-files';
import { cellValue, writeWorkbook } from '../../activities/report-workbook';
import type { ReportDocument } from '../../domain/accounts/report-document';

const document: ReportDocument = {
  title: 'Ratios prudentiels COBAC',
  enterprise: { code: 'COOP', name: 'Coopérative d’Épargne de Douala' },
  period: { from: '2026-01-01', to: '2026-11-30' },
  branch: 'AG02',
  generatedAt: '2026-12-01T08:00:00.000Z',
  sheets: [
    {
      name: 'Bilan: actif/passif',
      columns: [
        { key: 'label', title: 'Libellé', kind: 'text' },
        { key: 'amount', title: 'Montant', kind: 'money' },
        { key: 'on', title: 'Au', kind: 'date' },
      ],
      rows: [
        { label: '=cmd|calc', amount: '-1234567', on: '2026-11-30' },
        { label: 'Énorme', amount: '12345678901234567890', on: null },
      ],
    },
    {
      name: 'Ratios',
      columns: [
        { key: 'ratio', title: 'Ratio', kind: 'ratio' },
        { key: 'count', title: 'Nombre', kind: 'integer' },
      ],
      rows: [{ ratio: '0.1534', count: '12' }],
    },
  ],
};

test('a cell is a number only where the number is exact: 15 significant digits at most', (t) => {
  t.is(cellValue('-1500', 'money'), -1500);
  t.is(cellValue('999999999999999', 'money'), 999_999_999_999_999);
  t.is(cellValue('1234567890123456', 'money'), '1234567890123456', '16 digits stay text rather than be rounded');
  t.is(cellValue('0.000125', 'ratio'), 0.000125, 'leading zeros are not significant');
  t.is(cellValue('=1+1', 'text'), '=1+1', 'a string cell is never evaluated');
  t.is(cellValue(null, 'money'), null);
});

test(
  'the workbook read back: a sheet per ReportSheet, the header block, frozen titles, money numbers ' +
    'formatted #,##0, ratios as percent',
  async (t) => {
    const bytes = await reportFileBytes(document, 'xlsx');
    t.is(bytes.subarray(0, 2).toString(), 'PK', 'a zip');
    const workbook = new ExcelJS.Workbook();
    // ExcelJS types its Buffer before Node 20 made it generic.
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    t.deepEqual(
      workbook.worksheets.map((sheet) => sheet.name),
      ['Bilan actif passif', 'Ratios'],
    );
    const sheet = workbook.worksheets[0]!;
    t.deepEqual(sheet.getRow(1).values, [undefined, 'Rapport', 'Ratios prudentiels COBAC']);
    t.deepEqual(sheet.getRow(2).values, [undefined, 'Entreprise', 'COOP', 'Coopérative d’Épargne de Douala']);
    t.deepEqual(sheet.getRow(3).values, [undefined, 'Période', '2026-01-01', '2026-11-30']);
    t.deepEqual(sheet.getRow(4).values, [undefined, 'Agence', 'AG02']);
    t.deepEqual(sheet.getRow(5).values, [undefined, 'Généré le', '2026-12-01T08:00:00.000Z']);
    t.deepEqual(sheet.getRow(7).values, [undefined, 'Libellé', 'Montant', 'Au']);
    t.true(sheet.getRow(7).getCell(1).font?.bold);
    t.like(sheet.views[0], { state: 'frozen', ySplit: 7 });
    t.true(sheet.getColumn(1).width! >= 40);
    const money = sheet.getRow(8).getCell(2);
    t.is(money.value, -1234567);
    t.is(money.numFmt, '#,##0');
    t.is(sheet.getRow(8).getCell(1).value, '=cmd|calc', 'a string, not a formula');
    t.deepEqual(sheet.getRow(8).getCell(3).value, new Date('2026-11-30T00:00:00Z'));
    t.is(sheet.getRow(9).getCell(2).value, '12345678901234567890', 'too long for a double: kept as text');
    const ratio = workbook.worksheets[1]!.getRow(8).getCell(1);
    t.is(ratio.value, 0.1534);
    t.is(ratio.numFmt, '0.00%');
    t.is(workbook.worksheets[1]!.getRow(8).getCell(2).value, 12);
  },
);

test('a large sheet streams: bytes reach the output before the last row is produced', async (t) => {
  let produced = 0;
  const rowsTotal = 60_000;
  async function* rows() {
    for (let index = 0; index < rowsTotal; index += 1) {
      produced += 1;
      yield { label: `Prêt ${index}`, amount: String(index * 1000), on: '2026-11-30' };
    }
  }
  let producedAtFirstBytes = -1;
  let bytes = 0;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (producedAtFirstBytes < 0) producedAtFirstBytes = produced;
      bytes += chunk.length;
      done();
    },
  });
  await writeWorkbook({ ...document, sheets: [{ ...document.sheets[0]!, rows: rows() }] }, output);
  t.is(produced, rowsTotal);
  t.true(
    producedAtFirstBytes >= 0 && producedAtFirstBytes < rowsTotal / 2,
    `first bytes after ${producedAtFirstBytes} rows`,
  );
  t.true(bytes > 100_000);
});
