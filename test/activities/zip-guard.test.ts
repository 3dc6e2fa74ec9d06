import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import test, { type ExecutionContext } from 'ava';
import ExcelJS from 'exceljs';
import { guardZip } from '../../activities/imports/zip-guard';
import { AppError } from '../../domain/errors';
import { deflatedRun, stored, zipOf } from '../helpers/zips';

/**
 * The zip guard of an uploaded workbook (activities/imports/zip-guard.ts, docs/domain.md §15.4) on files made by
 * hand: it reads the parts a streaming reader would read, not only those the central directory lists.
 */

const limitBytes = 64 * 1024;

async function guarded(t: ExecutionContext, bytes: Buffer): Promise<string | null> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'zip-guard-'));
  t.teardown(() => fs.rmSync(directory, { recursive: true, force: true }));
  const file = path.join(directory, 'upload.xlsx');
  fs.writeFileSync(file, bytes);
  try {
    await guardZip(file, limitBytes);
    return null;
  } catch (error) {
    t.true(error instanceof AppError, String(error));
    t.is((error as AppError).code, 'import_file_invalid');
    return (error as AppError).message;
  }
}

test('a workbook as ExcelJS writes it passes', async (t) => {
  const workbook = new ExcelJS.Workbook();
  workbook.addWorksheet('members').addRow(['member_number', 'branch_code']);
  t.is(await guarded(t, Buffer.from(await workbook.xlsx.writeBuffer())), null);
});

test('a zip of more parts than the cap is refused before any is inflated', async (t) => {
  const parts = Array.from({ length: 1001 }, (_, index) => stored(`part${index}.xml`, '<a/>'));
  t.regex(
    (await guarded(t, zipOf(parts)))!,
    /The zip holds 1001 parts, more than 1000: refused as a possible zip bomb/,
  );
});

/** A local header of `name` with the given flags and sizes (deflated). */
function localHeader(name: string, flags: number, compressedSize: number, uncompressedSize: number): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(flags, 6);
  header.writeUInt16LE(8, 8);
  header.writeUInt32LE(compressedSize, 18);
  header.writeUInt32LE(uncompressedSize, 22);
  header.writeUInt16LE(Buffer.byteLength(name), 26);
  return Buffer.concat([header, Buffer.from(name)]);
}

test(
  'a part hidden after a data descriptor, which the directory does not list, is inflated and ' +
    'counted as a streaming reader would',
  async (t) => {
    // The directory lists one small part spanning the file; a streaming reader ends that part at its descriptor and
    // then reads the hidden 5 MB shared strings that follow.
    const small = zlib.deflateRawSync('<workbook/>');
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(small.length, 8);
    descriptor.writeUInt32LE(11, 12);
    const bomb = await deflatedRun('<sst><si><t>', 5, '</t></si></sst>');
    const records = Buffer.concat([
      localHeader('xl/workbook.xml', 0x08, 0, 0),
      small,
      descriptor,
      localHeader('xl/sharedStrings.xml', 0, bomb.length, 10),
      bomb,
    ]);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(records.length - 30 - 15, 20);
    central.writeUInt32LE(100, 24);
    central.writeUInt16LE(15, 28);
    const directory = Buffer.concat([central, Buffer.from('xl/workbook.xml')]);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(1, 8);
    end.writeUInt16LE(1, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(records.length, 16);
    t.regex(
      (await guarded(t, Buffer.concat([records, directory, end])))!,
      /inflate to more than the 100 bytes its directory declares: refused as a possible zip bomb/,
    );
  },
);

test('a part that does not inflate, or a file with no zip directory, is not a readable workbook', async (t) => {
  const garbage = {
    name: 'xl/workbook.xml',
    data: Buffer.from([0xff, 0xff, 0xff, 0xff]),
    declaredSize: 10,
    deflated: true,
  };
  t.regex((await guarded(t, zipOf([garbage])))!, /not a readable XLSX workbook: a part does not inflate/);
  t.regex(
    (await guarded(t, Buffer.from('PK\u0003\u0004 and nothing else')))!,
    /not a readable XLSX workbook: no zip directory/,
  );
});
