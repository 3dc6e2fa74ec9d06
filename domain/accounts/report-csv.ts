import type { ReportColumn, ReportColumnKind, ReportDocument, ReportSheet } from './report-document';

/**
 * A ReportDocument as CSV text (docs/architecture.md §10), in the dialect a French-locale Excel opens by a double
 * click: UTF-8 with a byte-order mark (without it Excel reads the accents as Windows-1252), `;` between fields (the
 * French list separator: `,` is the decimal comma there, and a `,`-separated file opens as one column), CRLF line ends
 * and RFC 4180 quoting. Numbers keep the JSON's canonical form (digits, `-`, `.`): the CSV is also read by software,
 * and francs are whole numbers, which every locale reads alike.
 *
 * A spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (and, in some, a tab or CR before one) as a formula:
 * a member's name such as `=HYPERLINK(…)` would run on the accountant's machine. Spreadsheets with East Asian input
 * fold the full-width `＝ ＋ － ＠` (and the small forms `﹦ ﹢ ﹣ ﹫`) into those, so they start a formula too. Every text
 * cell starting with one of those gets a leading `'`, which spreadsheets show as text. Number columns are not touched:
 * their values are checked to be decimal strings, so "-1500" there is a number, never a formula.
 */

const csvSeparator = ';';
const byteOrderMark = '\uFEFF';
const lineEnd = '\r\n';

/** Text a spreadsheet would evaluate: neutralised with a leading apostrophe. */
const formulaStart = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B]/;
/** The canonical decimal strings of the JSON (money, ratios, integers): no exponent, no grouping, no `+`. */
const decimalString = /^-?\d+(\.\d+)?$/;
const isoDateString = /^\d{4}-\d{2}-\d{2}$/;
/** A field is quoted when it holds the separator, a quote or a line break (RFC 4180 §2.6). */
const needsQuotes = /[;"\r\n]/;

/** One field, quoted when needed, quotes doubled. */
export function csvField(text: string): string {
  return needsQuotes.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A cell's text by its column's kind: numbers and dates checked (a programmer's error otherwise), text neutralised. */
export function csvCell(value: string | null, kind: ReportColumnKind): string {
  if (value === null) return '';
  if (kind === 'text') return csvField(formulaStart.test(value) ? `'${value}` : value);
  const valid =
    kind === 'date'
      ? isoDateString.test(value)
      : decimalString.test(value) && (kind !== 'integer' || !value.includes('.'));
  if (!valid)
    throw new Error(
      `a ${kind} cell holds ${JSON.stringify(value)}, not a ${kind === 'date' ? 'ISO date' : 'decimal string'}`,
    );
  return value;
}

const record = (cells: readonly string[]) => `${cells.join(csvSeparator)}${lineEnd}`;
const textRecord = (texts: readonly string[]) => record(texts.map((text) => csvCell(text, 'text')));

/** The lines an auditor reads first, in French as the reports are: what, whose, when, where, and when it was made. */
export function headerLines(document: ReportDocument): string[][] {
  const lines = [
    ['Rapport', document.title],
    ['Entreprise', document.enterprise.code, document.enterprise.name],
  ];
  if (document.asOf !== undefined) lines.push(['Date', document.asOf]);
  if (document.period !== undefined) lines.push(['Période', document.period.from, document.period.to]);
  lines.push(['Agence', document.branch ?? 'Consolidé'], ['Généré le', document.generatedAt]);
  if ((document.openExercices ?? []).length > 0)
    lines.push([
      'Provisoire',
      `soldes reportés par calcul des exercices non clôturés ${document.openExercices!.join(', ')}`,
    ]);
  return lines;
}

/** Rows gathered into chunks of about this many characters: one write per chunk, not per row. */
const chunkCharactersMax = 64 * 1024;

async function* sheetChunks(sheet: ReportSheet): AsyncGenerator<string> {
  let chunk = textRecord([sheet.name]) + textRecord(sheet.columns.map((column) => column.title));
  const cellsOf = (row: Readonly<Record<string, string | null>>) =>
    sheet.columns.map((column: ReportColumn) => csvCell(row[column.key] ?? null, column.kind));
  for await (const row of sheet.rows) {
    chunk += record(cellsOf(row));
    if (chunk.length >= chunkCharactersMax) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

/**
 * The document as CSV, chunk by chunk as its rows come: a sheet whose rows are an AsyncIterable (read from the
 * database as they are written) is never held whole, and the first bytes leave before the last row is read.
 * The header block, then each sheet: its name, its column titles, its rows, a blank line between sheets.
 */
export async function* csvChunks(document: ReportDocument): AsyncGenerator<string> {
  yield byteOrderMark + headerLines(document).map(textRecord).join('');
  for (const sheet of document.sheets) {
    yield lineEnd;
    yield* sheetChunks(sheet);
  }
}
