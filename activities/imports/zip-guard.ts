import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createInflateRaw } from 'node:zlib';
import {
  importFileCaps,
  isZip64Size,
  localSizeKnown,
  sharedStringsPart,
  zipDirectoryEntries,
  zipEndRecord,
  zipLocalHeader,
  zipSignatures,
  type ZipDirectoryEntry,
} from '../../domain/imports/files';
import { fileRefused } from './file-rows';

/**
 * Refuses an uploaded XLSX whose zip would inflate past the caps of domain/imports/files.ts before ExcelJS reads it
 * (docs/domain.md §15, "Files, limits and the benchmark"): ExcelJS holds `xl/sharedStrings.xml` whole in memory before
 * any cell is seen. Two passes over the spooled file: the central directory's declared sizes and entry count (nothing
 * inflated), then every part inflated the way the streaming reader will walk them, its bytes counted and dropped,
 * stopping at the first byte past the declared total or the shared strings' cap (a header that lies). Memory: one
 * chunk.
 */
export async function guardZip(file: string, limitBytes: number): Promise<void> {
  const handle = await open(file);
  try {
    const size = (await handle.stat()).size;
    const declared = await directoryOf(handle, size);
    const declaredTotal = checkDeclared(declared, limitBytes);
    await inflateAll(handle, {
      file,
      size,
      declaredTotal,
      sharedCap: limitBytes * importFileCaps.sharedStringsBytesPerLimitByte,
    });
  } finally {
    await handle.close();
  }
}

const bomb = (what: string) => fileRefused(`${what}: refused as a possible zip bomb.`);
const unreadable = (why: string) => fileRefused(`The file is not a readable XLSX workbook: ${why}.`);

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/** The central directory, found from the end record in the file's last 64 KB. */
async function directoryOf(handle: FileHandle, size: number): Promise<ZipDirectoryEntry[]> {
  const tailLength = Math.min(size, 22 + 0xffff);
  const end = zipEndRecord(await readAt(handle, size - tailLength, tailLength));
  if (end === null) throw unreadable('no zip directory');
  if (end.entries > importFileCaps.zipEntries)
    throw bomb(`The zip holds ${end.entries} parts, more than ${importFileCaps.zipEntries}`);
  if (end.directoryOffset + end.directorySize > size) throw unreadable('its zip directory lies past its end');
  try {
    return zipDirectoryEntries(await readAt(handle, end.directoryOffset, end.directorySize), end.entries);
  } catch (error) {
    throw unreadable((error as Error).message);
  }
}

/** The declared inflated total, refused past the caps before anything is inflated. */
function checkDeclared(entries: readonly ZipDirectoryEntry[], limitBytes: number): number {
  const totalCap = limitBytes * importFileCaps.inflatedBytesPerLimitByte;
  const sharedCap = limitBytes * importFileCaps.sharedStringsBytesPerLimitByte;
  if (entries.some((entry) => isZip64Size(entry.uncompressedSize))) throw unreadable('ZIP64 parts are not taken');
  const total = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  const shared = entries
    .filter((entry) => entry.name === sharedStringsPart)
    .reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  if (shared > sharedCap)
    throw bomb(`Its shared strings declare ${shared} bytes once inflated, more than ${sharedCap}`);
  if (total > totalCap) throw bomb(`Its parts declare ${total} bytes once inflated, more than ${totalCap}`);
  return total;
}

interface Walk {
  file: string;
  size: number;
  declaredTotal: number;
  sharedCap: number;
}

/**
 * Walks the records from the first byte as a streaming reader does (a local header, its data, a data descriptor
 * when the header gave no size; a directory header skipped; the end record stops) and inflates each part's data.
 */
async function inflateAll(handle: FileHandle, walk: Walk): Promise<void> {
  const counted = { total: 0, shared: 0, parts: 0 };
  let at = 0;
  for (;;) {
    const head = await readAt(handle, at, 46);
    if (head.length < 4) return;
    const signature = head.readUInt32LE(0);
    if (signature === zipSignatures.end) return;
    if (signature === zipSignatures.central) {
      at += 46 + head.readUInt16LE(28) + head.readUInt16LE(30) + head.readUInt16LE(32);
      continue;
    }
    if (signature !== zipSignatures.local || head.length < 30) throw unreadable(`an unknown zip record at byte ${at}`);
    counted.parts += 1;
    if (counted.parts > importFileCaps.zipEntries)
      throw bomb(`The zip holds more than ${importFileCaps.zipEntries} parts`);
    at = await inflatePart(handle, walk, at, counted);
  }
}

/**
 * Inflates the part whose local header is at `at`, adds its bytes to `counted`, and answers where the next record
 * starts.
 */
async function inflatePart(
  handle: FileHandle,
  walk: Walk,
  at: number,
  counted: { total: number; shared: number },
): Promise<number> {
  const header = zipLocalHeader(await readAt(handle, at, 30));
  if (isZip64Size(header.compressedSize) || isZip64Size(header.uncompressedSize))
    throw unreadable('ZIP64 parts are not taken');
  const name = (await readAt(handle, at + 30, header.nameLength)).toString('utf8');
  const start = at + header.length;
  const end = localSizeKnown(header) ? start + header.compressedSize : await descriptorAt(handle, start, walk.size);
  if (end > walk.size) throw unreadable(`its part ${name} is cut short`);
  const shared = name === sharedStringsPart;
  const allowance = Math.min(walk.declaredTotal - counted.total, shared ? walk.sharedCap - counted.shared : Infinity);
  const bytes = await inflatedBytes(walk.file, { start, end, compressed: header.method !== 0, allowance });
  if (bytes > allowance) {
    throw shared && counted.shared + bytes > walk.sharedCap
      ? bomb(`Its shared strings inflate to more than ${walk.sharedCap} bytes`)
      : bomb(`Its parts inflate to more than the ${walk.declaredTotal} bytes its directory declares`);
  }
  counted.total += bytes;
  if (shared) counted.shared += bytes;
  return localSizeKnown(header) ? end : end + 16;
}

const descriptorSignature = Buffer.from([0x50, 0x4b, 0x07, 0x08]);

/** Where the first data descriptor signature after `start` is: the end of a part whose header gave no size. */
async function descriptorAt(handle: FileHandle, start: number, size: number): Promise<number> {
  const chunk = 64 * 1024;
  for (let from = start; from < size; from += chunk - 3) {
    const found = (await readAt(handle, from, chunk)).indexOf(descriptorSignature);
    if (found >= 0) return from + found;
  }
  throw unreadable('a part without its data descriptor');
}

class Overflow extends Error {}

/**
 * The bytes `file[start, end)` inflates to, counted and dropped; stops at the first byte past `allowance` (answering
 * allowance + 1).
 */
async function inflatedBytes(
  file: string,
  part: { start: number; end: number; compressed: boolean; allowance: number },
): Promise<number> {
  let count = 0;
  const counter = new Writable({
    write(chunk: Buffer, _encoding, done) {
      count += chunk.length;
      done(count > part.allowance ? new Overflow() : null);
    },
  });
  const source =
    part.end > part.start ? createReadStream(file, { start: part.start, end: part.end - 1 }) : Readable.from([]);
  try {
    await pipeline(source, part.compressed ? createInflateRaw() : new PassThrough(), counter);
  } catch (error) {
    if (error instanceof Overflow) return part.allowance + 1;
    throw unreadable(`a part does not inflate (${(error as Error).message})`);
  }
  return count;
}
