import fs from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import Decimal from 'decimal.js';
import type { GeneratedFiles } from './import-files';

/**
 * The go-live import driven through the API as a cooperative's direction would (bench/import.bench.ts, docs/domain.md
 * §15.4): files uploaded, validation asked and waited for, the tie-out compared with the generator's totals, apply
 * asked by the uploader and approved by another director, then waited for until applied and reconciled. Requests go
 * through node:http, which sets no time limit on an answer (fetch gives up after 300 s without headers).
 */

export interface ImportSession {
  base: string;
  /** The uploader's, who asks for apply. */
  headers: Record<string, string>;
  /** Another director's, who approves it. */
  checkerHeaders: Record<string, string>;
  importId: string;
  generated: GeneratedFiles;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** One request; `body` a JSON value or a file streamed from disk; the answer's body read as JSON. */
async function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: { json: unknown } | { file: string },
): Promise<Answer> {
  const url = new URL(path, base);
  const contentType = body === undefined ? {} : { 'content-type': 'json' in body ? 'application/json' : 'text/csv' };
  const request = http.request(url, { method, headers: { ...headers, ...contentType } });
  const answered = new Promise<http.IncomingMessage>((resolve, reject) =>
    request.once('response', resolve).once('error', reject),
  );
  if (body !== undefined && 'file' in body) await pipeline(fs.createReadStream(body.file), request);
  else request.end(body === undefined ? undefined : JSON.stringify(body.json));
  const response = await answered;
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return { status: response.statusCode ?? 0, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const expect = (answer: Answer, status: number, what: string): Answer => {
  if (answer.status !== status)
    throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 2000)}`);
  return answer;
};

async function signIn(base: string, username: string, password: string): Promise<Record<string, string>> {
  const token = expect(
    await call(base, 'POST', '/api/v1/token/', {}, { json: { username, password } }),
    200,
    `sign-in of ${username}`,
  );
  return { authorization: `Bearer ${token.body.access as string}` };
}

/** Signs both directors in and creates the import at the cut-over date. */
export async function openImportSession(
  base: string,
  users: { maker: string; checker: string; password: string },
  setting: { enterpriseId: string; cutOverDate: string; generated: GeneratedFiles },
): Promise<ImportSession> {
  const headers = await signIn(base, users.maker, users.password);
  const checkerHeaders = await signIn(base, users.checker, users.password);
  const created = expect(
    await call(base, 'POST', '/api/v1/imports/', headers, {
      json: { enterprise: setting.enterpriseId, cut_over_date: setting.cutOverDate },
    }),
    201,
    'the import',
  );
  return { base, headers, checkerHeaders, importId: created.body.id as string, generated: setting.generated };
}

export interface PhaseFigures {
  seconds: number;
  rows: number;
  bytes?: number;
}

const since = (began: number) => (performance.now() - began) / 1000;

/** One kind's file streamed from disk as the raw body; its rows must all be stored. */
export async function uploadKind(session: ImportSession, file: GeneratedFiles['files'][number]): Promise<PhaseFigures> {
  const began = performance.now();
  const answer = expect(
    await call(session.base, 'PUT', `/api/v1/imports/${session.importId}/files/${file.kind}/`, session.headers, {
      file: file.file,
    }),
    200,
    `${file.kind} upload`,
  );
  const stored = (answer.body.files as { kind: string; rows: number }[]).find(
    (entry) => entry.kind === file.kind,
  )?.rows;
  if (stored !== file.rows) throw new Error(`${file.kind}: ${stored} rows stored of ${file.rows}`);
  return { seconds: since(began), rows: file.rows, bytes: fs.statSync(file.file).size };
}

const readImport = async (session: ImportSession) =>
  expect(await call(session.base, 'GET', `/api/v1/imports/${session.importId}/`, session.headers), 200, 'the import')
    .body;

/** The import once its status is none of `passing` (read every `everyMs`), failing after `limitSeconds`. */
async function importOnceOutOf(
  session: ImportSession,
  passing: readonly string[],
  limitSeconds: number,
  everyMs = 500,
): Promise<Record<string, unknown>> {
  const began = performance.now();
  for (;;) {
    const imported = await readImport(session);
    if (!passing.includes(imported.status as string)) return imported;
    if (since(began) > limitSeconds)
      throw new Error(`the import stayed ${imported.status as string} for ${limitSeconds} s`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

const totalRows = (session: ImportSession) => session.generated.files.reduce((sum, file) => sum + file.rows, 0);

/**
 * Validation, tie-out and dry run: asked, then waited for by reading the import until it is neither `uploaded` nor
 * `validating` (the route answers once done, or at once with `validating` when the workflow does the work).
 */
export async function validateAll(session: ImportSession, limitSeconds: number): Promise<PhaseFigures> {
  const began = performance.now();
  const asked = await call(session.base, 'POST', `/api/v1/imports/${session.importId}/validation/`, session.headers);
  if (asked.status !== 200 && asked.status !== 202) expect(asked, 200, 'validation');
  const imported = await importOnceOutOf(session, ['uploaded', 'validating'], limitSeconds);
  if (imported.status !== 'validated') {
    const report = await call(
      session.base,
      'GET',
      `/api/v1/imports/${session.importId}/report/?page_size=20`,
      session.headers,
    );
    throw new Error(
      `validation: ${JSON.stringify({ ...imported, dry_run: undefined })}; first problems ` +
        `${JSON.stringify(report.body.results)}`,
    );
  }
  if (imported.dry_run === null) throw new Error('validated without a dry run');
  return { seconds: since(began), rows: totalRows(session) };
}

/** Every tie-out pair, read page by page: none may differ, and each detail is what the generator added up. */
export async function checkTieOut(session: ImportSession): Promise<{ pairs: number }> {
  const pairs: { branch_code: string; account_code: string; detail: string; difference: string }[] = [];
  for (let page = 1; ; page += 1) {
    const answer = expect(
      await call(
        session.base,
        'GET',
        `/api/v1/imports/${session.importId}/tie-out/?page=${page}&page_size=100`,
        session.headers,
      ),
      200,
      'the tie-out',
    );
    pairs.push(...(answer.body.results as typeof pairs));
    if (answer.body.next === null) break;
  }
  const wrong = pairs.filter(
    (pair) =>
      pair.difference !== '0' ||
      !new Decimal(pair.detail).eq(session.generated.detail.get(`${pair.branch_code}|${pair.account_code}`) ?? 0),
  );
  const missing = [...session.generated.detail.keys()].filter(
    (key) => !pairs.some((pair) => `${pair.branch_code}|${pair.account_code}` === key),
  );
  if (wrong.length > 0 || missing.length > 0)
    throw new Error(`tie-out: ${JSON.stringify(wrong.slice(0, 5))} differ, ${missing.join(', ')} missing`);
  return { pairs: pairs.length };
}

/**
 * Apply under four eyes: asked by the uploader (202, a request), approved by the other director; then the import read
 * until it is no longer `applying`. It must end `applied` with its reconciliation reconciled.
 */
export async function applyAll(session: ImportSession, limitSeconds: number): Promise<PhaseFigures> {
  const began = performance.now();
  const asked = expect(
    await call(session.base, 'POST', `/api/v1/imports/${session.importId}/application/`, session.headers, { json: {} }),
    202,
    "apply's request",
  );
  const requestId = asked.body.id as string;
  expect(
    await call(session.base, 'POST', `/api/v1/approvals/requests/${requestId}/approve/`, session.checkerHeaders, {
      json: {},
    }),
    200,
    "apply's approval",
  );
  const imported = await importOnceOutOf(session, ['validated', 'applying'], limitSeconds);
  const reconciliation = imported.reconciliation as { reconciled?: boolean } | null;
  if (imported.status !== 'applied' || reconciliation?.reconciled !== true) {
    throw new Error(
      `apply: ${imported.status as string}, reconciliation ${JSON.stringify(reconciliation).slice(0, 2000)}`,
    );
  }
  return { seconds: since(began), rows: totalRows(session) };
}
