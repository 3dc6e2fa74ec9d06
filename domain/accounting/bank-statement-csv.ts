import { daysInMonth, type IsoDate } from '../calendar';
import { AppError } from '../errors';
import { Money } from '../money';

/**
 * A bank statement as the bank exports it (docs/domain.md §12.6, columns in README): CSV in UTF-8, `;` or `,`,
 * a header row naming the columns. Pure: the file's bytes in, the lines or a refusal naming the row and column.
 */

/** Half the request body limit, once base64 is decoded: a month of a busy account fits many times over. */
const statementBytesMax = 512 * 1024;
const statementRowsMax = 5000;

export interface StatementLine {
  /** 1 for the first row after the header. */
  position: number;
  date: IsoDate;
  valueDate: IsoDate | null;
  label: string;
  reference: string;
  /** From the cooperative's side: positive when money comes in (the bank's credit), negative when it leaves. */
  amount: Money;
  balance: Money | null;
}

const columnNames = ['date', 'value_date', 'label', 'reference', 'debit', 'credit', 'amount', 'balance'] as const;
type Column = (typeof columnNames)[number];

const refuse = (where: string, message: string) =>
  new AppError('validation', 'bank_statement_invalid', `The statement is refused: ${where}: ${message}.`, [
    { field: where, message },
  ]);

/** Decodes the file strictly: anything but UTF-8 is refused, not guessed. A leading BOM is dropped. */
function decode(bytes: Uint8Array): string {
  if (bytes.length > statementBytesMax) throw refuse('file', `more than ${statementBytesMax} bytes`);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw refuse('file', 'not UTF-8 text');
  }
}

/** Splits one line into cells: double quotes enclose a cell, `""` is a quote inside it. */
function cellsOf(line: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index];
    if (quoted && char === '"' && line[index + 1] === '"') {
      cell += '"';
      index += 1;
    } else if (char === '"') quoted = !quoted;
    else if (char === delimiter && !quoted) {
      cells.push(cell);
      cell = '';
    } else cell += char;
  }
  cells.push(cell);
  return cells.map((value) => value.trim());
}

/** `2026-04-15` or `15/04/2026`, a real day. */
function dateOf(text: string, where: string): IsoDate {
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const french = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text);
  const parts = iso !== null ? [iso[1], iso[2], iso[3]] : french !== null ? [french[3], french[2], french[1]] : null;
  if (parts === null) throw refuse(where, 'not a date (YYYY-MM-DD or DD/MM/YYYY)');
  const [year, month, day] = parts.map(Number) as [number, number, number];
  if (year < 1900 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
    throw refuse(where, 'not a day of the calendar');
  return parts.join('-');
}

/** Whole francs, spaces as thousands separators, a leading minus when `signed`; no formula, no fraction. */
function amountOf(text: string, where: string, signed: boolean): Money {
  const compact = text.replace(/[\s\u00a0\u202f]/g, '').replace(/[.,]00$/, '');
  if (!(signed ? /^-?\d{1,15}$/ : /^\d{1,15}$/).test(compact))
    throw refuse(where, signed ? 'not a whole amount of francs' : 'not a positive whole amount of francs');
  return new Money(compact);
}

function headerOf(cells: readonly string[]): Map<Column, number> {
  const header = new Map<Column, number>();
  cells.forEach((name, index) => {
    const column = name.toLowerCase().replace(/\s+/g, '_') as Column;
    if (!columnNames.includes(column))
      throw refuse(
        `header, column ${index + 1}`,
        `unknown column "${name.slice(0, 40)}" (known: ${columnNames.join(', ')})`,
      );
    if (header.has(column)) throw refuse(`header, column ${index + 1}`, `column ${column} twice`);
    header.set(column, index);
  });
  const hasSides = header.has('debit') && header.has('credit');
  if (!header.has('date') || !header.has('label') || hasSides === header.has('amount'))
    throw refuse('header', 'the columns are date, label, and either amount or debit and credit');
  return header;
}

function lineOf(cells: readonly string[], header: Map<Column, number>, position: number, row: number): StatementLine {
  const at = (column: Column) => (header.has(column) ? (cells[header.get(column)!] ?? '') : '');
  const where = (column: Column) => `row ${row}, ${column}`;
  const optional = <T>(column: Column, read: (text: string, place: string) => T): T | null =>
    at(column) === '' ? null : read(at(column), where(column));
  let amount: Money;
  if (header.has('amount')) amount = amountOf(at('amount'), where('amount'), true);
  else {
    const [debit, credit] = [
      optional('debit', (text, place) => amountOf(text, place, false)),
      optional('credit', (text, place) => amountOf(text, place, false)),
    ];
    if ((debit === null) === (credit === null))
      throw refuse(where('debit'), 'one of debit and credit, not both nor neither');
    amount = credit ?? debit!.negated();
  }
  if (amount.isZero()) throw refuse(where(header.has('amount') ? 'amount' : 'debit'), 'a zero amount');
  const label = at('label');
  if (label === '' || label.length > 200) throw refuse(where('label'), 'empty or longer than 200 characters');
  if (at('reference').length > 100) throw refuse(where('reference'), 'longer than 100 characters');
  return {
    position,
    date: dateOf(at('date'), where('date')),
    valueDate: optional('value_date', dateOf),
    label,
    reference: at('reference'),
    amount,
    balance: optional('balance', (text, place) => amountOf(text, place, true)),
  };
}

/**
 * The statement's lines, in the file's order. Cells beginning with = + - @ stay text: they are stored and shown
 * as written, never evaluated (the CSV answers prefix them, docs/architecture.md §4).
 */
export function parseBankStatement(bytes: Uint8Array): StatementLine[] {
  // Rows keep their number in the file (the header is row 1), blank ones skipped, so a refusal points at the row.
  const rows = decode(bytes)
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((text, index) => ({ text, row: index + 1 }))
    .filter(({ text }) => text.trim() !== '');
  if (rows.length < 2) throw refuse('file', 'a header row and at least one line');
  if (rows.length - 1 > statementRowsMax) throw refuse('file', `more than ${statementRowsMax} lines`);
  const delimiter = rows[0]!.text.includes(';') ? ';' : ',';
  const header = headerOf(cellsOf(rows[0]!.text, delimiter));
  return rows.slice(1).map(({ text, row }, index) => {
    const cells = cellsOf(text, delimiter);
    if (cells.length !== header.size) throw refuse(`row ${row}`, `${cells.length} cells for ${header.size} columns`);
    return lineOf(cells, header, index + 1, row);
  });
}
