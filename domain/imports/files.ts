/**
 * What an uploaded import file may be (docs/domain.md §15): its real type read from its first bytes, never from
 * its name or declared type, and the caps that keep a hostile file (a zip bomb, a sheet declaring a million
 * columns) from costing more than a legitimate one. Pure.
 */

/** The default size limit of one uploaded file (IMPORT_FILE_LIMIT_BYTES): 50 MB, above a 50 000-member cooperative's accounts file. */
export const importFileLimitDefault = 50 * 1024 * 1024;

export const importFileCaps = {
  /** Data rows of one file: 1 000 000, twelve times the 80 000 accounts of the benchmark's cooperative. */
  rows: 1_000_000,
  /** Columns of a row: no template has 20; a sheet declaring more is refused at the first such cell. */
  columns: 64,
  /** Characters of one cell. */
  cellCharacters: 1000,
  /** Characters of all cells together: what a zip may inflate to, 4 × the size limit. */
  totalCharactersPerLimitByte: 4,
} as const;

export type ImportFileFormat = 'csv' | 'xlsx';

/** A zip's local file header: an XLSX workbook is a zip of XML parts. */
const zipMagic = [0x50, 0x4b, 0x03, 0x04];

/**
 * XLSX when the bytes open as a zip; CSV when they are text (UTF-8 without control characters but tab, CR and
 * LF); null for anything else (a PDF, an image, a legacy .xls). `start` is the file's first bytes (a few KB).
 */
export function detectImportFormat(start: Uint8Array): ImportFileFormat | null {
  if (zipMagic.every((byte, index) => start[index] === byte)) return 'xlsx';
  // A multi-byte character cut by the end of `start` is not an error: only what precedes it is judged.
  const text = new TextDecoder('utf-8', { fatal: false }).decode(start.subarray(0, lastCompleteCharacterEnd(start)));
  return /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffd]/.test(text) ? null : 'csv';
}

/** The end of the last complete UTF-8 character of `bytes`. */
function lastCompleteCharacterEnd(bytes: Uint8Array): number {
  let end = bytes.length;
  // Back over at most three continuation bytes to the lead byte of the last character.
  for (let back = 1; back <= 3 && end - back >= 0; back += 1) {
    const byte = bytes[end - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    if (length > back) end -= back;
    break;
  }
  return end;
}

/** The CSV's separator: `;` (French spreadsheets) or `,`, whichever the header line holds more of outside quotes. */
export function detectDelimiter(headerLine: string): ';' | ',' {
  const unquoted = headerLine.replace(/"[^"]*"/g, '');
  const count = (char: string) => unquoted.split(char).length - 1;
  return count(',') > count(';') ? ',' : ';';
}
