import test from 'ava';
import { parseImportAmount, parseImportDate, rowProblems } from '../../domain/imports/cells';
import { detectDelimiter, detectImportFormat } from '../../domain/imports/files';
import { memberAccountProblems, memberProblems } from '../../domain/imports/member-rules';
import { importKinds, importTemplates } from '../../domain/imports/templates';

test('dates in the three formats, the day first; a day that does not exist is refused', (t) => {
  t.is(parseImportDate('2024-02-29'), '2024-02-29');
  t.is(parseImportDate('29/02/2024'), '2024-02-29');
  t.is(parseImportDate('29-02-2024'), '2024-02-29');
  t.is(parseImportDate('05/04/2026'), '2026-04-05', 'the 5th of April, not May the 4th');
  for (const refused of ['29/02/2025', '2026-13-01', '31-04-2026', '2026/04/05', '5/4/2026', '05.04.2026', ''])
    t.is(parseImportDate(refused), null, refused);
});

test('amounts: whole francs; French style only where the column allows it; cents refused', (t) => {
  t.deepEqual(parseImportAmount('1234567', false), { amount: '1234567' });
  t.deepEqual(parseImportAmount('1234567.00', false), { amount: '1234567' });
  t.deepEqual(parseImportAmount('0', false), { amount: '0' });
  t.deepEqual(parseImportAmount('1 234 567', true), { amount: '1234567' });
  t.deepEqual(parseImportAmount('1\u00a0234\u00a0567,00', true), { amount: '1234567' });
  t.deepEqual(parseImportAmount('75000,0', true), { amount: '75000' });
  t.deepEqual(parseImportAmount('-5 000', true), { amount: '-5000' });
  t.deepEqual(parseImportAmount('1 234 567', false), { problem: 'not an amount: plain digits only in this column' });
  t.deepEqual(parseImportAmount('1 234,50', true), { problem: 'not a whole number of francs (XAF has no minor unit)' });
  t.deepEqual(parseImportAmount('12.5', false), { problem: 'not a whole number of francs (XAF has no minor unit)' });
  t.true('problem' in parseImportAmount('1 23 456', true), 'thousands grouped by three');
  t.true('problem' in parseImportAmount('1,234,567', true));
});

test("the trial balance takes plain amounts only; the accounts' balances French ones, never negative", (t) => {
  const line = { branch_code: 'HQ', account_code: '3711', debit: '0', credit: '1 234 567' };
  t.deepEqual(rowProblems('trial-balance', line, []), [
    { column: 'credit', value: '1 234 567', problem: 'not an amount: plain digits only in this column' },
  ]);
  const account = {
    account_number: 'A1',
    member_number: 'M1',
    product_code: 'EPA',
    opened_on: '01/02/2020',
    balance: '-1 000',
  };
  t.deepEqual(rowProblems('member-accounts', account, []), [
    { column: 'balance', value: '-1 000', problem: 'negative: impossible in this column' },
  ]);
  t.deepEqual(rowProblems('member-accounts', { ...account, balance: '1 000' }, ['product_code']), [
    {
      column: 'product_code',
      value: 'EPA',
      problem: 'a formula: type the value itself (formulas are never evaluated)',
    },
  ]);
});

test("a member's kind decides its required fields; an account's maturity is a term deposit's only", (t) => {
  const person = {
    kind: 'natural_person',
    first_name: 'A',
    last_name: 'B',
    birth_date: '1990-01-01',
    id_document_type: 'national_id',
    membership_date: '2020-01-01',
  };
  t.deepEqual(memberProblems(person, '2026-10-31'), []);
  t.deepEqual(
    memberProblems({ ...person, birth_date: '', legal_name: 'X' }, '2026-10-31').map((problem) => problem.column),
    ['birth_date', 'legal_name'],
  );
  t.deepEqual(
    memberProblems(
      { kind: 'legal_entity', legal_name: 'GIC', id_document_type: 'national_id', membership_date: '2026-11-01' },
      '2026-10-31',
    ).map((problem) => problem.column),
    ['membership_date', 'id_document_type'],
  );
  const account = { opened_on: '2025-01-01', maturity_date: '' };
  t.deepEqual(memberAccountProblems(account, '2026-10-31', 'term_deposit'), [
    { column: 'maturity_date', value: '', problem: 'required for a term deposit' },
  ]);
  t.deepEqual(memberAccountProblems({ ...account, maturity_date: '01/01/2025' }, '2026-10-31', 'term_deposit'), [
    { column: 'maturity_date', value: '01/01/2025', problem: 'not after the opening' },
  ]);
  t.deepEqual(memberAccountProblems({ ...account, maturity_date: '2027-01-01' }, '2026-10-31', 'demand_deposit'), [
    { column: 'maturity_date', value: '2027-01-01', problem: 'only a term deposit has a maturity' },
  ]);
  t.deepEqual(memberAccountProblems({ ...account, interest_rate: '0.05' }, '2026-10-31', 'demand_deposit'), [
    { column: 'interest_rate', value: '0.05', problem: 'only a term deposit has a rate of its own' },
  ]);
  t.deepEqual(
    memberAccountProblems(
      { ...account, maturity_date: '2027-01-01', interest_rate: '0.05' },
      '2026-10-31',
      'term_deposit',
    ),
    [],
    "a term deposit's contract rate",
  );
});

test("a file's type from its bytes; the CSV separator from its header", (t) => {
  t.is(detectImportFormat(Buffer.from('PK\u0003\u0004rest')), 'xlsx');
  t.is(detectImportFormat(Buffer.from('\ufeffmember_number;kind\r\nM1;é')), 'csv');
  // A character cut by the end of the sniffed bytes is not a fault.
  t.is(detectImportFormat(Buffer.from('a;é').subarray(0, 3)), 'csv');
  t.is(detectImportFormat(Uint8Array.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0xe2, 0xe3, 0xcf, 0xd3])), null);
  t.is(detectImportFormat(Uint8Array.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])), null, 'a legacy .xls');
  t.is(detectDelimiter('a;b;c'), ';');
  t.is(detectDelimiter('a,b,c'), ',');
  t.is(detectDelimiter('"x;y",b,c'), ',');
});

test('every kind has a template whose column names are unique', (t) => {
  for (const kind of importKinds) {
    const names = importTemplates[kind].map((column) => column.name);
    t.is(new Set(names).size, names.length, kind);
  }
});
