import fs from 'node:fs';
import test from 'ava';
import {
  classTitles,
  parseCsv,
  parsePcemf,
  pcemfCsvPath,
  pcemfOffBalanceRecords,
  pcemfRecords,
} from '../../db/fixtures/pcemf';

const text = fs.readFileSync(pcemfCsvPath, 'utf8');
const records = pcemfRecords(text);

test('the CSV parser reads quoted fields with commas, doubled quotes and line breaks, LF or CRLF', (t) => {
  t.deepEqual(parseCsv('a,"b, c",d\r\n"say ""hi""",,"two\nlines"\n'), [
    ['a', 'b, c', 'd'],
    ['say "hi"', '', 'two\nlines'],
  ]);
  t.deepEqual(
    parseCsv('\uFEFFcode,label\n1,x'),
    [
      ['code', 'label'],
      ['1', 'x'],
    ],
    'a byte-order mark is dropped; the last line may lack its end',
  );
  t.deepEqual(parseCsv('"",x\n'), [['', 'x']]);
});

test('the CSV parser refuses a malformed quote', (t) => {
  t.throws(() => parseCsv('a,"b\n'), { message: /line 1: a quoted field is not closed/ });
  t.throws(() => parseCsv('a,b\nc,d"e"\n'), { message: /line 2: a quote inside an unquoted field/ });
});

test('the PCEMF file is read whole: 1,483 accounts, class 9 included, labels with commas intact', (t) => {
  const accounts = parsePcemf(text);
  t.is(accounts.length, 1483);
  t.is(accounts.filter((account) => account.class === 9).length, 136);
  t.deepEqual(accounts[0], {
    code: '10',
    label: 'CAPITAL, PARTS SOCIALES ET DOTATIONS',
    class: 1,
    parentCode: null,
    isSystem: false,
  });
});

test('a malformed PCEMF file is refused with its line', (t) => {
  t.throws(() => parsePcemf('code,label,class\n10,X,1\n'), { message: /header must be code,label,class,parent_code/ });
  t.throws(() => parsePcemf('code,label,class,parent_code\n10,X,1,\n21,Y,1,\n'), { message: /line 3/ });
  t.throws(() => parsePcemf('code,label,class,parent_code\n10,,1,\n'), { message: /line 2/ });
});

test('the records are classes 1 to 8 with one root per class: 1,355 rows, codes unique', (t) => {
  t.is(records.length, 1355);
  t.is(new Set(records.map((record) => record.code)).size, records.length);
  t.deepEqual([...new Set(records.map((record) => record.class))].sort(), [1, 2, 3, 4, 5, 6, 7, 8]);
  const roots = records.filter((record) => record.parentCode === null);
  t.deepEqual(
    roots.map((root) => [root.code, root.label]),
    Object.entries(classTitles),
  );
  t.is(records.find((record) => record.code === '3')?.label, 'Opérations avec la clientèle');
});

test('every parent is in the set, and every code extends its parent and starts with its class', (t) => {
  const codes = new Set(records.map((record) => record.code));
  const broken = records.filter(
    (record) =>
      record.code[0] !== String(record.class) ||
      (record.parentCode === null
        ? record.code.length !== 1
        : !codes.has(record.parentCode) ||
          !record.code.startsWith(record.parentCode) ||
          record.code === record.parentCode),
  );
  t.deepEqual(broken, []);
  t.is(
    records.find((record) => record.code === '57')?.parentCode,
    '5',
    'a two-digit account hangs from its class root',
  );
  t.is(
    records.find((record) => record.code === '44200')?.parentCode,
    '44',
    'an orphan keeps its nearest present ancestor',
  );
});

test('classes 6 to 8 and only they are system accounts', (t) => {
  const wrong = records.filter((record) => record.isSystem !== record.class >= 6);
  t.deepEqual(wrong, []);
  t.true(
    records.some((record) => record.isSystem),
    'there are system accounts to check',
  );
});

test('the off-balance records are class 9 under its own root, every parent present, all system accounts', (t) => {
  const offBalance = pcemfOffBalanceRecords(text);
  t.is(offBalance.length, 137);
  t.deepEqual(offBalance[0], {
    code: '9',
    label: 'Engagements hors bilan',
    class: 9,
    parentCode: null,
    isSystem: true,
  });
  const codes = new Set(offBalance.map((record) => record.code));
  t.deepEqual(
    offBalance.filter((record) => record.parentCode !== null && !codes.has(record.parentCode)),
    [],
  );
  t.true(offBalance.every((record) => record.class === 9 && record.isSystem));
  t.is(offBalance.find((record) => record.code === '92')?.parentCode, '9');
});
