import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { Knex } from 'knex';
import { importTemplates, type ImportColumn, type ImportKind } from '../../domain/imports/templates';
import { validatedKinds } from './kinds';

/**
 * The import's files for people (docs/domain.md §15): the templates, and the validation report with the rejected
 * rows highlighted. Both read the one declaration of the columns (domain/imports/templates.ts).
 */

const formatTexts: Record<ImportColumn['format'], string> = {
  text: 'text',
  code: 'a code',
  date: 'a date: YYYY-MM-DD, DD/MM/YYYY or DD-MM-YYYY',
  amount: 'whole francs: digits, no decimals but ",00" or ".00"',
  integer: 'a whole number',
  rate: 'a fraction with a point, e.g. 0.045',
};

/** What the Documentation sheet says of a column's format. */
function formatText(column: ImportColumn): string {
  const parts = [formatTexts[column.format]];
  if (column.frenchStyle === true) parts.push('French style accepted: 1 234 567 or 1 234 567,00');
  if (column.format === 'amount' && column.frenchStyle !== true) parts.push('plain digits only: 1234567');
  if (column.notNegative === true) parts.push('never negative');
  return parts.join('; ');
}

/** The CSV template: the header line, `;`-separated, UTF-8 with a BOM (so a spreadsheet opens it as UTF-8). */
export const csvTemplate = (kind: ImportKind) =>
  `\ufeff${importTemplates[kind].map((column) => column.name).join(';')}\r\n`;

/** The XLSX template: the data sheet (its header; text columns typed as text) and the Documentation sheet. */
export async function xlsxTemplate(kind: ImportKind): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const columns = importTemplates[kind];
  const data = workbook.addWorksheet(kind);
  data.columns = columns.map((column) => ({
    header: column.name,
    key: column.name,
    width: 20,
    style: column.format === 'text' || column.format === 'code' ? { numFmt: '@' } : {},
  }));
  data.getRow(1).font = { bold: true };
  data.views = [{ state: 'frozen', ySplit: 1 }];
  const documentation = workbook.addWorksheet('Documentation');
  documentation.columns = [
    { header: 'column', width: 22 },
    { header: 'required', width: 10 },
    { header: 'format', width: 50 },
    { header: 'codes allowed', width: 40 },
    { header: 'example', width: 22 },
    { header: 'description', width: 80 },
  ];
  documentation.getRow(1).font = { bold: true };
  for (const column of columns) {
    documentation.addRow([
      column.name,
      column.required ? 'yes' : 'no',
      formatText(column),
      column.codes?.join(', ') ?? '',
      column.example,
      column.description,
    ]);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

const rejectedFill: ExcelJS.Fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFFC7CE' } };
const batchRows = 1000;

/**
 * The validation report as XLSX, streamed: a Problems sheet (kind, row, column, value, problem), then per validated
 * kind uploaded its rows as uploaded with their problems, the rejected ones filled red. Read in batches by row number.
 */
export async function writeReportWorkbook(knex: Knex, importId: string, output: Writable): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: false });
  const problems = workbook.addWorksheet('Problems');
  problems.columns = [
    { header: 'kind', width: 18 },
    { header: 'row', width: 8 },
    { header: 'column', width: 22 },
    { header: 'value', width: 30 },
    { header: 'problem', width: 80 },
  ];
  let lastId = 0;
  for (;;) {
    const rows = (await knex('import_problems')
      .where({ import_id: importId })
      .where('id', '>', lastId)
      .orderBy('id')
      .limit(batchRows)
      .select('id', 'kind', 'row_number', 'column', 'value', 'problem')) as {
      id: string;
      kind: string;
      row_number: number;
      column: string;
      value: string;
      problem: string;
    }[];
    if (rows.length === 0) break;
    for (const row of rows) problems.addRow([row.kind, row.row_number, row.column, row.value, row.problem]).commit();
    lastId = Number(rows.at(-1)!.id);
  }
  problems.commit();
  await writeTieOutSheet(knex, workbook, importId);
  // The kinds whose file was uploaded: a kind without one has no row to show.
  const uploaded = new Set((await knex('import_files').where({ import_id: importId }).pluck('kind')) as string[]);
  for (const kind of validatedKinds.filter((judged) => uploaded.has(judged)))
    await writeKindSheet(knex, workbook, importId, kind);
  await workbook.commit();
}

/**
 * The tie-out's pairs once tied out (docs/domain.md §15.1): a few per branch and account, read at once; a difference
 * filled red.
 */
async function writeTieOutSheet(
  knex: Knex,
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  importId: string,
): Promise<void> {
  const pairs = (await knex('import_tie_outs')
    .where({ import_id: importId })
    .orderBy(['branch_code', 'account_code'])
    .select(
      'branch_code',
      'account_code',
      'what',
      knex.raw('trial_balance::text'),
      knex.raw('detail::text'),
      knex.raw('difference::text'),
    )) as Record<string, string>[];
  if (pairs.length === 0) return;
  const sheet = workbook.addWorksheet('Tie-out');
  sheet.columns = ['branch', 'account', 'detail of', 'trial balance', 'detail', 'difference'].map((header) => ({
    header,
    width: header === 'detail of' ? 50 : 16,
  }));
  for (const pair of pairs) {
    // Amounts as text, to the franc: a spreadsheet's floating point never rounds them.
    const added = sheet.addRow([
      pair.branch_code,
      pair.account_code,
      pair.what,
      pair.trial_balance,
      pair.detail,
      pair.difference,
    ]);
    if (pair.difference !== '0') {
      added.eachCell((cell) => {
        cell.fill = rejectedFill;
      });
    }
    added.commit();
  }
  sheet.commit();
}

async function writeKindSheet(
  knex: Knex,
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  importId: string,
  kind: ImportKind,
): Promise<void> {
  const names = importTemplates[kind].map((column) => column.name);
  const sheet = workbook.addWorksheet(kind);
  sheet.columns = [
    { header: 'row', width: 8 },
    ...names.map((name) => ({ header: name, width: 18 })),
    { header: 'problems', width: 80 },
  ];
  let after = 0;
  for (;;) {
    const rows = (await knex('import_rows as r')
      .where({ 'r.import_id': importId, 'r.kind': kind })
      .where('r.row_number', '>', after)
      .orderBy('r.row_number')
      .limit(batchRows)
      .select(
        'r.row_number',
        'r.data',
        knex.raw(`(SELECT string_agg(p."column" || ': ' || p.problem, '; ' ORDER BY p.id) FROM import_problems p
        WHERE p.import_id = r.import_id AND p.kind = r.kind AND p.row_number = r.row_number) AS problems`),
      )) as { row_number: number; data: Record<string, string>; problems: string | null }[];
    if (rows.length === 0) break;
    for (const row of rows) {
      const added = sheet.addRow([row.row_number, ...names.map((name) => row.data[name] ?? ''), row.problems ?? '']);
      if (row.problems !== null) {
        added.eachCell({ includeEmpty: true }, (cell) => {
          cell.fill = rejectedFill;
        });
      }
      added.commit();
    }
    after = rows.at(-1)!.row_number;
  }
  sheet.commit();
}
