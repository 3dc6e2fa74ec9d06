/**
 * What an uploaded import file may be (docs/domain.md §15): its real type read from its first bytes, never from
 * its name or declared type, and the caps that keep a hostile file (a zip bomb, a sheet declaring a million
 * columns) from costing more than a legitimate one. Pure.
 */

/**
 * The default size limit of one uploaded file (IMPORT_FILE_LIMIT_BYTES): 50 MB, above a 50 000-member cooperative's
 * accounts file.
 */
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
  /** Parts of an XLSX zip: a workbook has a dozen; thousands are refused before any is inflated. */
  zipEntries: 1000,
  /**
   * Bytes all of a zip's parts may inflate to, per byte of the size limit (1 GB by default): worksheets are read as
   * they inflate, so this bounds time, not memory.
   */
  inflatedBytesPerLimitByte: 20,
  /**
   * Bytes `xl/sharedStrings.xml` may inflate to, per byte of the size limit (50 MB by default): ExcelJS holds the
   * shared strings whole in memory.
   */
  sharedStringsBytesPerLimitByte: 1,
} as const;

/** The part of an XLSX that ExcelJS reads whole into memory before any cell is seen. */
export const sharedStringsPart = 'xl/sharedStrings.xml';

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

/**
 * A zip's record signatures (APPNOTE 6.3, §4.3): local file header, central directory header, end of central directory,
 * data descriptor.
 */
export const zipSignatures = {
  local: 0x04034b50,
  central: 0x02014b50,
  end: 0x06054b50,
  descriptor: 0x08074b50,
} as const;

/** A 32-bit size of 0xFFFFFFFF means "in the ZIP64 extra field": no workbook under the size limit needs one. */
const zip64Marker = 0xffffffff;

export interface ZipEndRecord {
  entries: number;
  directoryOffset: number;
  directorySize: number;
}

/**
 * The end of central directory record found in a zip's last bytes (up to 22 + 65 535 of comment); null when there is
 * none.
 */
export function zipEndRecord(tail: Uint8Array): ZipEndRecord | null {
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  for (let at = tail.length - 22; at >= 0; at -= 1) {
    if (view.getUint32(at, true) !== zipSignatures.end) continue;
    return {
      entries: view.getUint16(at + 10, true),
      directorySize: view.getUint32(at + 12, true),
      directoryOffset: view.getUint32(at + 16, true),
    };
  }
  return null;
}

export interface ZipDirectoryEntry {
  name: string;
  uncompressedSize: number;
}

/**
 * The central directory's entries: each part's name and its declared inflated size. Throws on a malformed directory.
 */
export function zipDirectoryEntries(directory: Uint8Array, count: number): ZipDirectoryEntry[] {
  const view = new DataView(directory.buffer, directory.byteOffset, directory.byteLength);
  const entries: ZipDirectoryEntry[] = [];
  let at = 0;
  for (let index = 0; index < count; index += 1) {
    if (at + 46 > directory.length || view.getUint32(at, true) !== zipSignatures.central)
      throw new Error("the zip's central directory is malformed");
    const nameLength = view.getUint16(at + 28, true);
    const skip = 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    const name = new TextDecoder().decode(directory.subarray(at + 46, at + 46 + nameLength));
    entries.push({ name, uncompressedSize: view.getUint32(at + 24, true) });
    at += skip;
  }
  return entries;
}

export interface ZipLocalHeader {
  flags: number;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  /** The header's length: 30 bytes, the name and the extra field. */
  length: number;
  nameLength: number;
}

/** A local file header from its first 30 bytes (the signature checked by the caller). */
export function zipLocalHeader(bytes: Uint8Array): ZipLocalHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const nameLength = view.getUint16(26, true);
  return {
    flags: view.getUint16(6, true),
    method: view.getUint16(8, true),
    compressedSize: view.getUint32(18, true),
    uncompressedSize: view.getUint32(22, true),
    nameLength,
    length: 30 + nameLength + view.getUint16(28, true),
  };
}

/** Whether a size field defers to a ZIP64 extra field. */
export const isZip64Size = (size: number) => size === zip64Marker;

/**
 * Whether the entry's compressed size is known from its local header. A streaming reader (ExcelJS's, unzipper's)
 * otherwise reads up to the next data descriptor signature: the same rule here, so the guard reads what it reads.
 */
export const localSizeKnown = (header: ZipLocalHeader) => (header.flags & 0x08) === 0 || header.compressedSize > 0;
