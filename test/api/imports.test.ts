import fs from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import ExcelJS from 'exceljs';
import type { Knex } from 'knex';
import { markImportFailed, markImportValidating } from '../../activities/imports/validation';
import { startTestApp, testActivityContext, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, type LoanWorld } from '../helpers/loans';
import { validateImport } from '../helpers/imports';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';

/**
 * The go-live import's first slice (issue 31, docs/domain.md §15) through the API: templates, uploads of
 * hand-made files (test/fixtures/imports/), validation and its report. Every expected problem is written here
 * by hand from the files' contents; nothing outside the staging tables may change.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
const limitBytes = 64 * 1024;
const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const fixture = (name: string) => fs.readFileSync(path.join(__dirname, '../fixtures/imports', name));
let app: TestApp;
let knex: Knex;
let world: LoanWorld;
let other: LoanWorld;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, importFileLimitBytes: limitBytes, taskQueue });
  world = await createLoanWorld(app, knex, 'IMP', { capital: false });
  other = await createLoanWorld(app, knex, 'IMO', { capital: false });
  // A member the enterprise already has, and one only the other enterprise has.
  await knex('client_profiles')
    .where({ id: await memberOf(world) })
    .update({ member_number: 'M-EXIST' });
  await knex('client_profiles')
    .where({ id: await memberOf(other) })
    .update({ member_number: 'M-OTHER' });
});

const direction = () => world.users.direction!.headers;

async function newImport(t: ExecutionContext, headers = direction()): Promise<string> {
  const created = await app.request('POST', '/api/v1/imports/', {
    headers,
    json: { enterprise: world.enterpriseId, cut_over_date: '2026-10-31' },
  });
  t.is(created.status, 201, created.text);
  t.like(created.body, { status: 'uploaded', cut_over_date: '2026-10-31', files: [], problems: 0 });
  return created.body.id as string;
}

const upload = (id: string, kind: string, body: Uint8Array | string, contentType = 'text/csv') =>
  app.request('PUT', `/api/v1/imports/${id}/files/${kind}/`, {
    headers: { ...direction(), 'content-type': contentType },
    body,
  });
/** The import once its workflow has validated it (a worker runs it meanwhile). */
const validate = (id: string) => withWorker(knex, () => validateImport(app, id, direction()), taskQueue);

async function problemsOf(id: string): Promise<string[]> {
  const report = await app.request('GET', `/api/v1/imports/${id}/report/?page_size=100`, { headers: direction() });
  return (report.body.results as { kind: string; row: number; column: string; value: string; problem: string }[]).map(
    (problem) => `${problem.kind} ${problem.row} ${problem.column} '${problem.value}': ${problem.problem}`,
  );
}

/** What the import must never write: the enterprise's members, accounts, events and ledger. */
const outsideStaging = async () =>
  Promise.all(
    ['client_profiles', 'comptes_clients', 'business_event_logs', 'journal_lines'].map(async (table) =>
      Number((await knex(table).count({ count: '*' }).first())!.count),
    ),
  );

test('a template downloaded (XLSX and CSV) and uploaded back empty validates with no rows', async (t) => {
  const id = await newImport(t);
  const xlsx = await fetch(`${app.baseUrl}/api/v1/imports/templates/members/?format=xlsx`, { headers: direction() });
  t.is(xlsx.status, 200);
  t.is(xlsx.headers.get('content-type'), xlsxType);
  const bytes = new Uint8Array(await xlsx.arrayBuffer());
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  t.deepEqual(
    workbook.worksheets.map((sheet) => sheet.name),
    ['members', 'Documentation'],
  );
  const header = (workbook.getWorksheet('members')!.getRow(1).values as string[]).slice(1);
  t.deepEqual(header, [
    'member_number',
    'branch_code',
    'kind',
    'first_name',
    'last_name',
    'legal_name',
    'id_document_type',
    'id_document_number',
    'birth_date',
    'gender',
    'phone',
    'address',
    'membership_date',
  ]);
  const documentation = workbook.getWorksheet('Documentation')!;
  t.deepEqual((documentation.getRow(1).values as string[]).slice(1), [
    'column',
    'required',
    'format',
    'codes allowed',
    'example',
    'description',
  ]);
  t.is(documentation.rowCount, 1 + header.length);
  t.deepEqual((documentation.getRow(4).values as string[]).slice(1, 5), [
    'kind',
    'yes',
    'a code',
    'natural_person, legal_entity',
  ]);

  const csv = Buffer.from(
    await (
      await fetch(`${app.baseUrl}/api/v1/imports/templates/member-accounts/?format=csv`, { headers: direction() })
    ).arrayBuffer(),
  );
  t.deepEqual(
    csv,
    Buffer.from('\ufeffaccount_number;member_number;product_code;opened_on;balance;maturity_date;interest_rate\r\n'),
  );

  t.is((await upload(id, 'members', bytes, xlsxType)).status, 200);
  const uploaded = await upload(id, 'member-accounts', csv);
  t.like(uploaded.body, {
    status: 'uploaded',
    files: [
      { kind: 'member-accounts', format: 'csv', rows: 0 },
      { kind: 'members', format: 'xlsx', rows: 0 },
    ],
  });
  t.like(await validate(id), { status: 'validated', problems: 0 });
});

test(
  'a good members and accounts pair (three date formats, French ' +
    'amounts in balances) validates clean and writes only staging',
  async (t) => {
    const before = await outsideStaging();
    const id = await newImport(t);
    t.like((await upload(id, 'members', fixture('members-good.csv'))).body, {
      files: [{ kind: 'members', format: 'csv', rows: 3 }],
    });
    t.is(
      (await upload(id, 'member-accounts', fixture('member-accounts-good.csv'), 'application/octet-stream')).status,
      200,
    );
    const validated = await validate(id);
    t.deepEqual(await problemsOf(id), []);
    t.like(validated, { status: 'validated', problems: 0 });
    // The cells are kept as written: the quoted `;` of an address, the French amount.
    const staged = await knex('import_rows')
      .where({ import_id: id })
      .orderBy(['kind', 'row_number'])
      .select('kind', 'row_number', 'data');
    t.is(staged.length, 7);
    t.is(staged.find((row) => row.kind === 'members' && row.row_number === 4).data.address, 'Marché A; porte 3');
    t.is(staged.find((row) => row.kind === 'member-accounts' && row.row_number === 2).data.balance, '1 234 567');
    t.deepEqual(await outsideStaging(), before);
  },
);

test(
  "each bad row gets its problem: a member twice, another enterprise's " +
    'member, a formula, bad dates, amounts and a negative balance',
  async (t) => {
    const before = await outsideStaging();
    const id = await newImport(t);
    t.is((await upload(id, 'members', fixture('members-bad.csv'))).status, 200);
    t.is((await upload(id, 'member-accounts', fixture('member-accounts-bad.csv'))).status, 200);
    t.like(await validate(id), { status: 'rejected', problems: 15 });
    t.deepEqual(
      (await problemsOf(id)).sort(),
      [
        "member-accounts 2 member_number 'M-OTHER': neither in the members file nor a member of the enterprise",
        "member-accounts 3 balance '-5000': negative: impossible in this column",
        "member-accounts 4 balance '1 234,50': not a whole number of francs (XAF has no minor unit)",
        "member-accounts 5 product_code 'XYZ': not a savings product of the enterprise",
        "member-accounts 6 account_number 'B-005': twice in the file",
        "member-accounts 7 account_number 'B-005': twice in the file",
        'member-accounts 8 balance \'1.234.567\': not an amount: digits, thousands grouped by spaces, optionally ",00"',
        "members 2 member_number 'M010': twice in the file",
        "members 3 member_number 'M010': twice in the file",
        "members 4 member_number 'M-EXIST': already a member of the enterprise",
        "members 5 birth_date '1985/03/14': not a date: YYYY-MM-DD, DD/MM/YYYY or DD-MM-YYYY",
        "members 6 first_name 'Luc': not for a legal entity",
        "members 7 membership_date '=TODAY()': a formula: type the value itself (formulas are never evaluated)",
        "members 8 branch_code 'ZZ': not a branch of the enterprise",
        "members 8 membership_date '2026-11-20': after the cut-over date (2026-10-31)",
      ].sort(),
    );
    t.deepEqual(await outsideStaging(), before);

    // The XLSX report: the problems, then each kind's rows with the rejected ones filled.
    const report = await fetch(`${app.baseUrl}/api/v1/imports/${id}/report/?format=xlsx`, { headers: direction() });
    t.is(report.status, 200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(await report.arrayBuffer()) as unknown as ArrayBuffer);
    t.deepEqual(
      workbook.worksheets.map((sheet) => sheet.name),
      ['Problems', 'members', 'member-accounts'],
    );
    t.is(workbook.getWorksheet('Problems')!.rowCount, 1 + 15);
    const members = workbook.getWorksheet('members')!;
    const fillOf = (row: number) =>
      (members.getRow(row).getCell(1).fill as ExcelJS.FillPattern | undefined)?.fgColor?.argb;
    t.is(members.getRow(2).getCell(2).value, 'M010');
    t.is(fillOf(2), 'FFFFC7CE', 'a rejected row is filled');
    t.is(members.getRow(2).getCell(15).value, 'member_number: twice in the file');
  },
);

/** A members workbook as a spreadsheet would save it: typed cells (dates, numbers) and whatever `extra` adds. */
async function membersWorkbook(extra: (sheet: ExcelJS.Worksheet) => void = () => undefined): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('members');
  sheet.addRow([
    'member_number',
    'branch_code',
    'kind',
    'first_name',
    'last_name',
    'legal_name',
    'id_document_type',
    'id_document_number',
    'birth_date',
    'gender',
    'phone',
    'address',
    'membership_date',
  ]);
  sheet.addRow([
    'M100',
    'HQ',
    'natural_person',
    'Awa',
    'Ndi',
    '',
    'national_id',
    123456,
    new Date('1988-02-29T00:00:00Z'),
    'female',
    '',
    '',
    new Date('2016-03-01T00:00:00Z'),
  ]);
  sheet.addRow([
    'M101',
    'HQ',
    'natural_person',
    'Yves',
    'Ndi',
    '',
    'national_id',
    'CM101',
    '1988-02-28',
    'male',
    '',
    '',
    { formula: 'TODAY()', result: new Date('2026-11-26T00:00:00Z') },
  ]);
  extra(sheet);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

test(
  'an XLSX workbook: typed cells read as text, a formula ' + 'cell refused in the report and never evaluated',
  async (t) => {
    const id = await newImport(t);
    const uploaded = await upload(id, 'members', await membersWorkbook(), xlsxType);
    t.like(uploaded.body, { files: [{ kind: 'members', format: 'xlsx', rows: 2 }] });
    const staged = await knex('import_rows')
      .where({ import_id: id, kind: 'members' })
      .orderBy('row_number')
      .select('data', 'formulas');
    t.like(staged[0].data, { id_document_number: '123456', birth_date: '1988-02-29', membership_date: '2016-03-01' });
    t.deepEqual(staged[1].formulas, ['membership_date']);
    t.is(staged[1].data.membership_date, '', "the formula's cached result is not taken either");
    t.like(await validate(id), { status: 'rejected', problems: 1 });
    t.deepEqual(await problemsOf(id), [
      "members 3 membership_date '': a formula: type the value itself (formulas are never evaluated)",
    ]);
  },
);

test(
  'refused files: not XLSX or CSV, a sheet declaring too many ' +
    'rows or columns, a wrong header, a file over the size limit',
  async (t) => {
    const id = await newImport(t);
    t.is((await upload(id, 'members', fixture('members-good.csv'))).status, 200);
    const refused = async (body: Uint8Array | string, contentType: string, message: RegExp) => {
      const answer = await upload(id, 'members', body, contentType);
      t.is(answer.status, 400, answer.text);
      t.like(answer.body, { code: 'import_file_invalid', errors: [{ field: 'file' }] });
      t.regex(answer.body.detail as string, message);
    };
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    await refused(png, 'application/octet-stream', /neither an XLSX workbook nor a CSV/);
    await refused(Buffer.from('PK\u0003\u0004 this is no workbook at all'), xlsxType, /not a readable XLSX workbook/);
    // Zip bomb-ish workbooks: a cell far to the right, a row far below. Refused at that cell, whatever follows.
    const farRight = (sheet: ExcelJS.Worksheet) => {
      sheet.getRow(4).getCell(200).value = 'x';
    };
    const farBelow = (sheet: ExcelJS.Worksheet) => {
      sheet.getRow(1_000_005).getCell(1).value = 'M999';
    };
    await refused(await membersWorkbook(farRight), xlsxType, /beyond column 64/);
    await refused(await membersWorkbook(farBelow), xlsxType, /more than 1000000 data rows/);
    await refused('member_number;branch;kind\n', 'text/csv', /columns the members template has not: branch/);
    const pdf = await upload(id, 'members', '%PDF-1.4', 'application/pdf');
    t.is(pdf.status, 415);
    t.is(pdf.body.code, 'unsupported_media_type');

    // Over the limit: refused by its declared length, and when streamed without one (chunked), at the first byte past
    // it.
    const huge = `${fixture('members-good.csv').toString()}${'x;'.repeat(limitBytes)}`;
    const declared = await upload(id, 'members', huge);
    t.is(declared.status, 413);
    t.is(declared.body.code, 'payload_too_large');
    const chunks = [
      Buffer.from(fixture('members-good.csv')),
      ...Array.from({ length: 20 }, () => Buffer.from('M9;HQ;natural_person\n'.repeat(400))),
    ];
    const streamed = await fetch(`${app.baseUrl}/api/v1/imports/${id}/files/members/`, {
      method: 'PUT',
      headers: { ...direction(), 'content-type': 'text/csv' },
      duplex: 'half',
      body: new ReadableStream({
        pull: (controller) => {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(next);
        },
      }),
    } as RequestInit);
    t.is(streamed.status, 413);
    // The earlier upload stays whole.
    const detail = await app.request('GET', `/api/v1/imports/${id}/`, { headers: direction() });
    t.like(detail.body, { files: [{ kind: 'members', format: 'csv', rows: 3 }] });
    t.is(Number((await knex('import_rows').where({ import_id: id }).count({ count: '*' }).first())!.count), 3);
  },
);

test(
  "an import is the whole enterprise's: direction or admin only, another " +
    "enterprise's is 404, the cut-over on or before the business date",
  async (t) => {
    const id = await newImport(t);
    const late = await app.request('POST', '/api/v1/imports/', {
      headers: direction(),
      json: { enterprise: world.enterpriseId, cut_over_date: '2026-11-27' },
    });
    t.is(late.status, 400);
    t.like(late.body, { errors: [{ field: 'cut_over_date' }] });
    for (const user of ['cashier', 'branch_head']) {
      const headers = world.users[user]!.headers;
      t.is((await app.request('GET', `/api/v1/imports/${id}/`, { headers })).status, 403, user);
      t.is(
        (
          await app.request('POST', '/api/v1/imports/', {
            headers,
            json: { enterprise: world.enterpriseId, cut_over_date: '2026-10-31' },
          })
        ).status,
        403,
        user,
      );
    }
    const stranger = other.users.direction!.headers;
    t.is((await app.request('GET', `/api/v1/imports/${id}/`, { headers: stranger })).status, 404);
    t.is(
      (
        await app.request('PUT', `/api/v1/imports/${id}/files/members/`, {
          headers: { ...stranger, 'content-type': 'text/csv' },
          body: fixture('members-good.csv'),
        })
      ).status,
      404,
    );
    t.is((await app.request('POST', `/api/v1/imports/${id}/validation/`, { headers: stranger })).status, 404);
    t.is((await app.request('GET', `/api/v1/imports/${id}/report/`, { headers: stranger })).status, 404);
    t.is(
      (
        await app.request('POST', '/api/v1/imports/', {
          headers: stranger,
          json: { enterprise: world.enterpriseId, cut_over_date: '2026-10-31' },
        })
      ).status,
      404,
    );
    const theirs = await app.request('GET', '/api/v1/imports/', { headers: stranger });
    t.is(theirs.body.count, 0);
    const ours = await app.request('GET', `/api/v1/imports/?enterprise=${world.enterpriseId}&status=uploaded`, {
      headers: direction(),
    });
    t.true((ours.body.results as { id: string }[]).some((row) => row.id === id));
  },
);

test(
  'a validation whose step fails for a reason of the system leaves the ' +
    'import failed, never validating; a validated import is left as it is',
  async (t) => {
    const id = await newImport(t);
    t.is((await upload(id, 'members', fixture('members-good.csv'))).status, 200);
    const direction = world.users.direction!;
    const asked = { importId: id, requestedBy: direction.id, requestId: null };
    // What the workflow does when a step fails past its retries (workflows/import.workflow.ts).
    await markImportValidating(testActivityContext(knex), { userId: direction.id, grants: [], requestId: 'test' }, id);
    await markImportFailed(testActivityContext(knex), { ...asked, failure: 'the database was lost' });
    t.like((await app.request('GET', `/api/v1/imports/${id}/`, { headers: direction.headers })).body, {
      status: 'failed',
      problems: 0,
    });
    const audited = await knex('audit_events')
      .where({ entity_id: id, action: 'import.validation_failed' })
      .first('details');
    t.like(audited?.details, { failure: 'the database was lost' });
    // Asked again, it validates; a late failure of the earlier run then changes nothing.
    t.like(await validate(id), { status: 'validated', problems: 0 });
    await markImportFailed(testActivityContext(knex), { ...asked, failure: 'late' });
    t.is((await knex('imports').where({ id }).first('status')).status, 'validated');
  },
);
