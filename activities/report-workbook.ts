import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import ExcelJS from 'exceljs';
import { headerLines } from '../domain/accounts/report-csv';
import type { ReportColumn, ReportColumnKind, ReportDocument, ReportSheet } from '../domain/accounts/report-document';

/**
 * A ReportDocument as an XLSX workbook (docs/architecture.md §10), written with ExcelJS's streaming
 * WorkbookWriter: each row is committed to the zip as it comes, so a large sheet is never held whole. Here in
 * activities/ because both callers reach it here: the API's downloads and the reporting pack's activity (domain/
 * may import no library, and activities/ may not import api/). One sheet per ReportSheet: the document's header
 * block on top, the column titles in bold, frozen under it, widths by kind.
 *
 * Cells are typed: a text cell is a string cell, which a spreadsheet never evaluates (no formula injection to
 * neutralise, unlike CSV); a money cell is a number formatted `#,##0`, a ratio a number formatted as a percent,
 * but only when the decimal string is exactly what the spreadsheet's number shows: at most 15 significant
 * digits (Excel keeps no more). Anything longer stays a text cell rather than be silently rounded.
 */

export const xlsxContentType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const numberFormats: Partial<Record<ReportColumnKind, string>> = {
  money: '#,##0',
  ratio: '0.00%',
  integer: '0',
  date: 'yyyy-mm-dd',
};
const widths: Record<ReportColumnKind, number> = { text: 40, money: 18, ratio: 12, integer: 12, date: 12 };
const significantDigitsMax = 15;
/** Rows written between two looks at the output: room for the zip to compress, and to wait while the reader is slow. */
const rowsPerTurn = 500;

/** The digits of a decimal string that a double must keep: leading zeros and the sign aside. */
const significantDigits = (text: string) => text.replace(/^-/, '').replace('.', '').replace(/^0+/, '').length;

/** A cell's value by its column's kind: a number only where the number is exact, a UTC date for an ISO date. */
export function cellValue(value: string | null, kind: ReportColumnKind): string | number | Date | null {
  if (value === null) return null;
  if (kind === 'text') return value;
  if (kind === 'date') return new Date(`${value}T00:00:00Z`);
  return significantDigits(value) <= significantDigitsMax ? Number(value) : value;
}

/** Excel's sheet names: at most 31 characters, none of `: \ / ? * [ ]`, unique in the workbook. */
function sheetNameOf(sheet: ReportSheet, taken: Set<string>): string {
  const base =
    sheet.name
      .replace(/[:\\/?*[\]]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 28) || 'Feuille';
  let name = base;
  for (let suffix = 2; taken.has(name.toLowerCase()); suffix += 1) name = `${base} ${suffix}`;
  taken.add(name.toLowerCase());
  return name;
}

function addHeaderBlock(worksheet: ExcelJS.Worksheet, document: ReportDocument, sheet: ReportSheet): void {
  headerLines(document).forEach((line, index) => {
    const row = worksheet.addRow(line);
    row.getCell(1).font = { bold: true, ...(index === 0 ? { size: 14 } : {}) };
    row.commit();
  });
  worksheet.addRow([]).commit();
  const titles = worksheet.addRow(sheet.columns.map((column) => column.title));
  titles.font = { bold: true };
  titles.commit();
}

async function writeSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  output: Writable,
  document: ReportDocument,
  sheet: ReportSheet,
  name: string,
): Promise<void> {
  const titlesRow = headerLines(document).length + 2;
  const worksheet = workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: titlesRow, xSplit: 0 }] });
  worksheet.columns = sheet.columns.map((column: ReportColumn) => ({
    key: column.key,
    width: Math.max(widths[column.kind], column.title.length + 2),
  }));
  addHeaderBlock(worksheet, document, sheet);
  // One style object per column, shared by its cells: ExcelJS finds a style it has seen by identity, instead of
  // rendering each cell's own copy to look it up.
  const plain: Partial<ExcelJS.Style> = {};
  const styles = sheet.columns.map((column) => {
    const numFmt = numberFormats[column.kind];
    return numFmt === undefined ? plain : { numFmt };
  });
  let written = 0;
  for await (const values of sheet.rows) {
    const row = worksheet.addRow(sheet.columns.map((column) => cellValue(values[column.key] ?? null, column.kind)));
    styles.forEach((style, index) => {
      const cell = row.getCell(index + 1);
      cell.style = typeof cell.value === 'string' ? plain : style;
    });
    row.commit();
    written += 1;
    if (written % rowsPerTurn === 0) await letOutputFlow(output);
  }
  worksheet.commit();
}

/** Lets the zip compress what was written and, when the reader is slower than the rows, waits for it. */
async function letOutputFlow(output: Writable): Promise<void> {
  await nextTurn();
  if (output.writableNeedDrain) await once(output, 'drain');
}

/** Writes the workbook into `output` and ends it; resolves once the last byte is handed to it. */
export async function writeWorkbook(document: ReportDocument, output: Writable): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: false });
  workbook.creator = 'Coopbank';
  workbook.created = new Date(document.generatedAt);
  const taken = new Set<string>();
  for (const sheet of document.sheets) await writeSheet(workbook, output, document, sheet, sheetNameOf(sheet, taken));
  await workbook.commit();
}
