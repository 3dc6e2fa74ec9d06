import type { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { AppError } from '../../domain/errors';
import { detectDelimiter, importFileCaps, type ImportFileFormat } from '../../domain/imports/files';

/**
 * The rows of an uploaded file, read as it streams in (docs/architecture.md §11): CSV through a small state
 * machine, XLSX through ExcelJS's streaming reader. Row 1 is the header. Cells are text; a formula cell is
 * flagged, never evaluated. The caps of domain/imports/files.ts are checked as the rows come, so a sheet
 * declaring a million rows is refused at its first excess; an XLSX's zip has passed zip-guard.ts before.
 */

export interface FileRow {
  rowNumber: number;
  cells: string[];
  /** Indexes in `cells` of the cells that held a formula. */
  formulas: number[];
}

export const fileRefused = (message: string) =>
  new AppError('validation', 'import_file_invalid', message, [{ field: 'file', message }]);

/** Keeps the running totals a hostile file could inflate: rows, columns, characters. */
class Caps {
  private characters = 0;
  constructor(private readonly maxCharacters: number) {}

  check(rowNumber: number, cells: readonly string[]): void {
    if (rowNumber > importFileCaps.rows + 1)
      throw fileRefused(`The file has more than ${importFileCaps.rows} data rows.`);
    if (cells.length > importFileCaps.columns)
      throw fileRefused(`Row ${rowNumber} has more than ${importFileCaps.columns} columns.`);
    for (const cell of cells) {
      if (cell.length > importFileCaps.cellCharacters)
        throw fileRefused(`Row ${rowNumber} has a cell longer than ${importFileCaps.cellCharacters} characters.`);
      this.characters += cell.length;
    }
    if (this.characters > this.maxCharacters)
      throw fileRefused(
        `The file's cells hold more than ${this.maxCharacters} characters: refused as a possible zip bomb.`,
      );
  }
}

export function fileRows(format: ImportFileFormat, input: Readable, limitBytes: number): AsyncGenerator<FileRow> {
  const caps = new Caps(limitBytes * importFileCaps.totalCharactersPerLimitByte);
  return format === 'csv' ? csvRows(input, caps) : xlsxRows(input, caps);
}

/** RFC 4180 fields (quotes doubled inside quotes), `;` or `,` as the header line shows, UTF-8 with or without BOM. */
async function* csvRows(input: Readable, caps: Caps): AsyncGenerator<FileRow> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const parser = new CsvParser();
  let rowNumber = 0;
  const decode = (chunk?: Buffer) => {
    try {
      return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch {
      throw fileRefused('The CSV file is not UTF-8: save it as "CSV UTF-8".');
    }
  };
  for await (const chunk of input) {
    for (const cells of parser.feed(decode(chunk as Buffer))) {
      rowNumber += 1;
      caps.check(rowNumber, cells);
      yield { rowNumber, cells, formulas: formulaIndexes(cells) };
    }
  }
  for (const cells of parser.feed(decode(), true)) {
    rowNumber += 1;
    caps.check(rowNumber, cells);
    yield { rowNumber, cells, formulas: formulaIndexes(cells) };
  }
}

/** A CSV cell a spreadsheet would evaluate: refused as a formula like an XLSX formula cell. */
const formulaIndexes = (cells: readonly string[]) =>
  cells.flatMap((cell, index) => (cell.startsWith('=') ? [index] : []));

class CsvParser {
  private delimiter: string | null = null;
  private pending = '';

  /** The complete records of `text` (and of what was pending); at the end, the last record without its line end too. */
  feed(text: string, end = false): string[][] {
    this.pending += text;
    const records: string[][] = [];
    let start = 0;
    let inQuotes = false;
    for (let index = 0; index < this.pending.length; index += 1) {
      const char = this.pending[index];
      if (char === '"') inQuotes = !inQuotes;
      else if (char === '\n' && !inQuotes) {
        records.push(this.record(this.pending.slice(start, index)));
        start = index + 1;
      }
    }
    this.pending = this.pending.slice(start);
    if (end && this.pending.trim() !== '') records.push(this.record(this.pending));
    return records.filter((cells) => cells.some((cell) => cell !== ''));
  }

  private record(line: string): string[] {
    const text = line.replace(/\r$/, '').replace(/^\ufeff/, '');
    this.delimiter ??= detectDelimiter(text);
    const cells: string[] = [];
    let cell = '';
    let inQuotes = false;
    for (let index = 0; index < text.length; index += 1) {
      const char = text[index]!;
      if (inQuotes && char === '"' && text[index + 1] === '"') {
        cell += '"';
        index += 1;
      } else if (char === '"') inQuotes = !inQuotes;
      else if (char === this.delimiter && !inQuotes) {
        cells.push(cell.trim());
        cell = '';
      } else cell += char;
    }
    cells.push(cell.trim());
    return cells;
  }
}

type CellValue = ExcelJS.CellValue;

/** A cell as text: a date as YYYY-MM-DD, a number as JavaScript writes it, rich text joined; null for a formula. */
function cellText(value: CellValue): string | null {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value !== 'object') return String(value).trim();
  if ('formula' in value || 'sharedFormula' in value) return null;
  if ('richText' in value)
    return value.richText
      .map((run) => run.text)
      .join('')
      .trim();
  if ('text' in value) return String(value.text).trim();
  if ('error' in value) return String(value.error);
  return '';
}

/**
 * The first worksheet's rows (styles are read: a date cell is a number with a date format); the other sheets (the
 * template's Documentation) are read for the caps only.
 */
async function* xlsxRows(input: Readable, caps: Caps): AsyncGenerator<FileRow> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'cache',
    worksheets: 'emit',
    entries: 'emit',
  });
  let sheet = 0;
  try {
    for await (const worksheet of reader) {
      sheet += 1;
      for await (const row of worksheet as AsyncIterable<ExcelJS.Row>) {
        const values = (row.values as CellValue[]).slice(1);
        if (values.length > importFileCaps.columns)
          throw fileRefused(`Row ${row.number} of sheet ${sheet} has a cell beyond column ${importFileCaps.columns}.`);
        const texts = Array.from(values, cellText);
        const cells = texts.map((text) => text ?? '');
        caps.check(row.number, cells);
        if (sheet === 1)
          yield {
            rowNumber: row.number,
            cells,
            formulas: texts.flatMap((text, index) => (text === null ? [index] : [])),
          };
      }
    }
  } catch (error) {
    if (error instanceof AppError || (error as { status?: number }).status !== undefined) throw error;
    throw fileRefused(`The file is not a readable XLSX workbook: ${(error as Error).message}`);
  }
}
