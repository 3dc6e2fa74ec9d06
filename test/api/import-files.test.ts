import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { enterpriseCodes, writeCooperative } from '../../bench/import-files';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, type LoanWorld } from '../helpers/loans';
import { validateImport } from '../helpers/imports';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';
import { deflatedRun, stored, zipOf } from '../helpers/zips';

/**
 * Upload hardening of the go-live import (issue 31, docs/domain.md §15 "Files, limits and the benchmark"): a
 * workbook whose shared strings are a zip bomb is refused before ExcelJS reads it, whatever its headers declare;
 * the body is spooled to a temporary file before any transaction, so a slow client holds no database connection.
 */

const file = fileTeardown(test);
const taskQueue = newTaskQueue();
const limitBytes = 64 * 1024;
const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
let app: TestApp;
let knex: Knex;
let world: LoanWorld;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, importFileLimitBytes: limitBytes, taskQueue });
  world = await createLoanWorld(app, knex, 'IMF', { capital: false });
});

const direction = () => world.users.direction!.headers;

async function newImport(t: ExecutionContext): Promise<string> {
  const created = await app.request('POST', '/api/v1/imports/', {
    headers: direction(),
    json: { enterprise: world.enterpriseId, cut_over_date: '2026-10-31' },
  });
  t.is(created.status, 201, created.text);
  return created.body.id as string;
}

const upload = (id: string, body: Uint8Array | string, contentType = 'text/csv') =>
  app.request('PUT', `/api/v1/imports/${id}/files/members/`, {
    headers: { ...direction(), 'content-type': contentType },
    body,
  });
const header =
  'member_number;branch_code;kind;first_name;last_name;legal_name;' +
  'id_document_type;id_document_number;birth_date;gender;phone;address;membership_date\n';
const memberLine = (index: number) =>
  `M${index};HQ;natural_person;Awa;Ndi;;national_id;CM${index};1988-02-28;female;;;2016-03-01\n`;
// This process's spools only (the API runs in it): other test files upload at the same time in their own processes.
const spools = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`coopbank-import-${process.pid}-`));

const xml = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
const ns = 'http://schemas.openxmlformats.org';

/** A members workbook whose one shared string is 50 MB of "A" in some 50 KB, declaring `declaredSize` once inflated. */
async function sharedStringsBomb(declaredSize: (inflated: number) => number): Promise<Buffer> {
  const megabytes = 50;
  const prefix = `${xml}<sst xmlns="${ns}/spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>`;
  const suffix = '</t></si></sst>';
  const bomb = await deflatedRun(prefix, megabytes, suffix);
  const inflated = prefix.length + megabytes * 1024 * 1024 + suffix.length;
  return zipOf([
    stored(
      '[Content_Types].xml',
      `${xml}<Types xmlns="${ns}/package/2006/content-types">` +
        '<Default Extension="xml" ContentType="application/xml"/></Types>',
    ),
    stored(
      'xl/workbook.xml',
      `${xml}<workbook xmlns="${ns}/spreadsheetml/2006/main">` +
        '<sheets><sheet name="members" sheetId="1"/></sheets></workbook>',
    ),
    { name: 'xl/sharedStrings.xml', data: bomb, declaredSize: declaredSize(inflated), deflated: true },
    stored(
      'xl/worksheets/sheet1.xml',
      `${xml}<worksheet xmlns="${ns}/spreadsheetml/2006/main">` +
        '<sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>',
    ),
  ]);
}

/**
 * The largest resident set of this process (the API runs in it) while `work` runs, sampled every 5 ms, over the set
 * before.
 */
async function residentGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const result = await work();
    return { result, growthMb: (peak - before) / 1024 / 1024 };
  } finally {
    clearInterval(sampler);
  }
}

test.serial(
  'a workbook whose shared strings inflate past the cap is refused, whether its headers declare it or lie',
  async (t) => {
    const id = await newImport(t);
    const good = `${header}${memberLine(1)}`;
    t.is((await upload(id, good)).status, 200);
    const honest = await sharedStringsBomb((inflated) => inflated);
    t.true(honest.length < limitBytes, `the bomb is ${honest.length} bytes, under the size limit`);
    const declared = await upload(id, honest, xlsxType);
    t.is(declared.status, 400, declared.text);
    t.like(declared.body, { code: 'import_file_invalid', errors: [{ field: 'file' }] });
    const [, declaredBytes] =
      /shared strings declare (\d+) bytes once inflated, more than 65536: refused as a possible zip bomb/.exec(
        declared.body.detail as string,
      ) ?? [];
    t.true(Number(declaredBytes) > 50 * 1024 * 1024, declared.body.detail as string);

    // Headers that lie (100 bytes declared): the guard inflates and counts, and stops at the first byte past what was
    // declared.
    const lying = await sharedStringsBomb(() => 100);
    const { result: refused, growthMb } = await residentGrowth(() => upload(id, lying, xlsxType));
    t.is(refused.status, 400, refused.text);
    t.regex(
      refused.body.detail as string,
      /inflate to more than the \d+ bytes its directory declares: refused as a possible zip bomb/,
    );
    t.true(growthMb < 30, `the resident set grew ${growthMb.toFixed(1)} MB while a 50 MB shared string was refused`);
    // The earlier upload stays whole, and no spooled file is left.
    t.like((await app.request('GET', `/api/v1/imports/${id}/`, { headers: direction() })).body, {
      files: [{ kind: 'members', format: 'csv', rows: 1 }],
    });
    t.deepEqual(spools(), []);
  },
);

/** Connections of the test database inside a transaction, this query's aside. */
const inTransaction = async () =>
  Number(
    (
      (
        await knex.raw(
          'SELECT count(*) AS count FROM pg_stat_activity WHERE datname = ' +
            'current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL',
        )
      ).rows as { count: string }[]
    )[0]!.count,
  );

test.serial(
  'a body trickled over seconds holds no database connection while it comes; its spool is removed after',
  async (t) => {
    const id = await newImport(t);
    const chunks = [header, ...Array.from({ length: 8 }, (_, index) => memberLine(index + 1))];
    const seen: number[] = [];
    const body = new ReadableStream({
      async pull(controller) {
        const next = chunks.shift();
        if (next === undefined) {
          controller.close();
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 400));
        seen.push(await inTransaction());
        controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const answer = await fetch(`${app.baseUrl}/api/v1/imports/${id}/files/members/`, {
      method: 'PUT',
      headers: { ...direction(), 'content-type': 'text/csv' },
      body,
      duplex: 'half',
    } as RequestInit);
    t.is(answer.status, 200, await answer.text());
    t.is(seen.length, 9);
    t.deepEqual(
      seen,
      seen.map(() => 0),
      'no transaction open while the body came',
    );
    t.is(Number((await knex('import_rows').where({ import_id: id }).count({ count: '*' }).first())!.count), 8);
    t.deepEqual(spools(), []);

    // A body cut off past the size limit: refused, its spool removed too.
    const lines = [header, ...Array.from({ length: 40 }, () => memberLine(9).repeat(40))];
    const over = await fetch(`${app.baseUrl}/api/v1/imports/${id}/files/members/`, {
      method: 'PUT',
      headers: { ...direction(), 'content-type': 'text/csv' },
      duplex: 'half',
      body: new ReadableStream({
        pull: (controller) =>
          lines.length === 0 ? controller.close() : controller.enqueue(new TextEncoder().encode(lines.shift())),
      }),
    } as RequestInit);
    t.is(over.status, 413);
    t.deepEqual(spools(), []);
  },
);

/** A generated file's rows as cells (the columns read here come before any quoted cell). */
function rowsOf(directory: string, kind: string): Record<string, string>[] {
  const [header, ...lines] = fs
    .readFileSync(path.join(directory, `${kind}.csv`), 'utf8')
    .split('\r\n')
    .filter((line) => line !== '');
  const names = header!.split(';');
  return lines.map((line) => Object.fromEntries(line.split(';').map((cell, index) => [names[index], cell])));
}

test.serial(
  'a generated cooperative (tiny, seeded) is consistent, the ' +
    'same for the same seed, and validates clean through the API',
  async (t) => {
    const directories = [1, 2].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-generated-')));
    t.teardown(() => directories.forEach((directory) => fs.rmSync(directory, { recursive: true, force: true })));
    const codes = await enterpriseCodes(knex, world.enterpriseId);
    const size = { members: 60, accounts: 90, loans: 12, trialBalanceLines: 30 };
    const generated = await writeCooperative(directories[0]!, size, codes, { cutOverDate: '2026-10-31', seed: 7 });
    await writeCooperative(directories[1]!, size, codes, { cutOverDate: '2026-10-31', seed: 7 });
    for (const { kind } of generated.files)
      t.deepEqual(
        fs.readFileSync(path.join(directories[1]!, `${kind}.csv`)),
        fs.readFileSync(path.join(directories[0]!, `${kind}.csv`)),
        kind,
      );

    // Every account's and loan's member exists; the trial balance carries, per branch and account, what they add up to.
    const directory = directories[0]!;
    const branchOf = new Map(rowsOf(directory, 'members').map((row) => [row.member_number!, row.branch_code!]));
    t.is(branchOf.size, 60);
    const expected = new Map<string, bigint>();
    const add = (member: string, account: string, amount: bigint) => {
      t.true(branchOf.has(member), member);
      const key = `${branchOf.get(member)}|${account}`;
      expected.set(key, (expected.get(key) ?? 0n) + amount);
    };
    const francs = (cell: string) => BigInt(cell.replaceAll(' ', ''));
    const savingsAccount = new Map([['EPA', '3711']]);
    const accounts = rowsOf(directory, 'member-accounts');
    t.is(accounts.length, 90);
    for (const row of accounts) add(row.member_number!, savingsAccount.get(row.product_code!)!, -francs(row.balance!));
    const portfolio = (
      await knex('loan_products')
        .where({ enterprise_id: world.enterpriseId, code: 'CRT' })
        .first('portfolio_account_code')
    ).portfolio_account_code as string;
    const loans = rowsOf(directory, 'loans');
    t.is(loans.length, 12);
    for (const row of loans)
      add(row.member_number!, portfolio, francs(row.original_amount!) - francs(row.principal_paid!));
    const trialBalance = rowsOf(directory, 'trial-balance');
    t.is(trialBalance.length, 30);
    const lineOf = new Map(
      trialBalance.map((row) => [`${row.branch_code}|${row.account_code}`, francs(row.debit!) - francs(row.credit!)]),
    );
    t.is(lineOf.size, 30, 'one line per branch and account');
    for (const [key, amount] of expected) t.is(lineOf.get(key), amount, key);
    for (const branch of ['HQ', 'B2'])
      t.is(
        [...lineOf].filter(([key]) => key.startsWith(`${branch}|`)).reduce((sum, [, amount]) => sum + amount, 0n),
        0n,
        `${branch} balanced`,
      );

    const id = await newImport(t);
    for (const { kind } of generated.files) {
      const uploaded = await app.request('PUT', `/api/v1/imports/${id}/files/${kind}/`, {
        headers: { ...direction(), 'content-type': 'text/csv' },
        body: fs.readFileSync(path.join(directory, `${kind}.csv`)),
      });
      t.is(uploaded.status, 200, uploaded.text);
    }
    const validated = await withWorker(knex, () => validateImport(app, id, direction()), taskQueue);
    t.like(
      validated,
      { status: 'validated', problems: 0 },
      JSON.stringify((await app.request('GET', `/api/v1/imports/${id}/report/`, { headers: direction() })).body),
    );
  },
);
