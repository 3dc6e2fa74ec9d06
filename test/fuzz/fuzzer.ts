import { randomInt } from 'node:crypto';
import type { Knex } from 'knex';
import type { TestApp } from '../helpers/app';
import { buildRequest, planAttacks, type FuzzRequest } from './attacks';
import { send, type RawRequest, type RawResponse } from './http';
import { faultOf, mustRefuse } from './judge';
import { deriveSeed, mulberry32 } from './random';
import { operationsOf, type OpenApiDocument, type Operation } from './schema';
import { buildWorld, signIn, type Caller, type FuzzWorld } from './world';

export interface FuzzSettings {
  seed: number;
  /** Malformed requests per operation and caller (more when the body has more fields than that). */
  budget: number;
  /** Only these operation ids (a replay); every operation otherwise. */
  only: Set<string> | undefined;
}

/** The run of `npm test` is fixed and bounded; `npm run fuzz` draws a seed and spends more. */
const fixedSeed = 20_260_212;
const largeBudget = 200;
/** Operations fuzzed at once: enough to keep both cores busy, few enough not to queue in the pool of connections. */
const concurrency = 4;
const bodyLimitBytes = 1024 * 1024; // the test app's limit (test/helpers/app.ts)

export function settingsFrom(env: NodeJS.ProcessEnv): FuzzSettings {
  const large = env.npm_lifecycle_event === 'fuzz';
  const seed = env.FUZZ_SEED !== undefined ? Number(env.FUZZ_SEED) : large ? randomInt(2 ** 31) : fixedSeed;
  const budget = env.FUZZ_BUDGET !== undefined ? Number(env.FUZZ_BUDGET) : large ? largeBudget : 25;
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(budget) || budget < 1)
    throw new Error('FUZZ_SEED must be an integer and FUZZ_BUDGET a positive integer');
  return { seed, budget, only: env.FUZZ_ONLY === undefined ? undefined : new Set(env.FUZZ_ONLY.split(',')) };
}

export interface Failure {
  operation: string;
  caller: string;
  attack: string;
  fault: string;
  request: string;
  body: string;
  answer: string;
}

export interface FuzzReport {
  operations: number;
  requests: number;
  /** The fewest requests any operation received from one caller. */
  fewestPerOperation: number;
  failures: Failure[];
  /**
   * Operations with path parameters whose real ids never got past the 404 to the handler (no answer that only a
   * found resource gets): the world lacks their resource. Each with the answers its real ids got.
   */
  unreached: string[];
  /** Operations the world gives no real resource, with why (test/fuzz/world.ts): not checked. */
  waived: string[];
  /** The books after the run: debits and credits, the members' reconciliation. */
  brokenInvariants: string[];
}

interface RunContext {
  app: TestApp;
  world: FuzzWorld;
  settings: FuzzSettings;
}

/** Fuzzes every operation of the document the app serves, as each caller, then checks the books. */
export async function runFuzz(app: TestApp, knex: Knex, settings: FuzzSettings): Promise<FuzzReport> {
  const schema = await send(app.baseUrl, { method: 'GET', target: '/api/v1/schema/', headers: {} });
  if (schema.status !== 200) throw new Error(`GET /api/v1/schema/ answered ${schema.status}`);
  const all = operationsOf(JSON.parse(schema.text) as OpenApiDocument);
  const world = await buildWorld(app, knex, all);
  const operations = all.filter((op) => settings.only === undefined || settings.only.has(op.id));
  const jobs = operations.flatMap((op) => world.callers.map((caller) => ({ op, caller })));
  const results = await inPool(jobs, concurrency, ({ op, caller }) =>
    fuzzOperation({ app, world, settings }, op, caller),
  );
  const reached = (op: Operation) => results.some((result) => result.op === op && result.reached);
  const answersOf = (op: Operation) => results.filter((result) => result.op === op).flatMap((result) => result.answers);
  const unreached = operations.filter((op) => op.pathParams.length > 0 && !world.notBuilt.has(op.id) && !reached(op));
  return {
    operations: operations.length,
    requests: results.reduce((sum, result) => sum + result.sent, 0),
    fewestPerOperation: Math.min(...results.map((result) => result.sent)),
    failures: results.flatMap((result) => result.failures),
    waived: operations.filter((op) => world.notBuilt.has(op.id)).map((op) => `${op.id}: ${world.notBuilt.get(op.id)!}`),
    unreached: unreached.map((op) => `${op.id} (${op.method} ${op.path}): answered ${summarize(answersOf(op))}`),
    brokenInvariants: await checkBooks(app, knex, world.callers[0]!),
  };
}

/** Runs `work` on every item, `width` at a time; the results keep the items' order. */
async function inPool<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

/**
 * An answer only a handler that found the path's resources gives: a success, a conflict, a business refusal (a 422,
 * or a 403 other than for the role: the same person deciding twice), a workflow's absence. The router validates the
 * path, query and body and checks the route's roles before it loads the resource, so a 400 or a 403 for the role
 * proves nothing of the ids, and a 404 says they are not there.
 */
function reachedHandler(response: RawResponse): boolean {
  const { status } = response;
  if (status === 403) return !/"code":"role_required"/.test(response.text);
  return (status >= 200 && status < 300) || status === 409 || status === 422 || status === 503;
}

/** `400×12, 404×3`: the statuses, each with its count. */
function summarize(statuses: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return (
    [...counts]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}×${count}`)
      .join(', ') || 'nothing with real ids'
  );
}

interface OperationResult {
  op: Operation;
  sent: number;
  failures: Failure[];
  /** The statuses of the requests with the caller's own token and a real id in every path parameter. */
  answers: number[];
  /** Whether one of them reached the handler. */
  reached: boolean;
}

/** One operation as one caller: its stream of random numbers depends on the seed, the operation and the caller only. */
async function fuzzOperation(context: RunContext, op: Operation, caller: Caller): Promise<OperationResult> {
  const { app, world, settings } = context;
  const random = mulberry32(deriveSeed(settings.seed, op.id, caller.name));
  const failures: Failure[] = [];
  const answers: number[] = [];
  let reached = false;
  const plan = planAttacks(op, random, settings.budget);
  for (const attack of plan) {
    const request = buildRequest(
      {
        op,
        random,
        pools: world.pools,
        bodyLimitBytes,
        authorization: caller.authorization,
        knownBody: world.bodies.get(op.id),
      },
      attack,
    );
    const raw = toRaw(op, request, caller.authorization);
    const response = await send(app.baseUrl, raw).catch((error: Error): RawResponse => ({
      status: 0,
      contentType: '',
      text: error.message,
    }));
    const fault = faultOf(response, mustRefuse(op, request, world.pools.known, bodyLimitBytes));
    if (fault !== undefined) failures.push(describe(op, caller, request, raw, response, fault));
    if (
      request.bogusAuthorization === undefined &&
      op.pathParams.every((parameter) => world.pools.known.has(request.pathValues[parameter.name]!))
    ) {
      answers.push(response.status);
      reached ||= reachedHandler(response);
    }
    // A fuzzed request may have ended the caller's own session (logout): sign in again for the next ones.
    if (response.status === 401 && request.bogusAuthorization === undefined && op.access !== 'public')
      await signIn(app, caller);
  }
  return { op, sent: plan.length, failures, answers, reached };
}

function toRaw(op: Operation, request: FuzzRequest, authorization: string): RawRequest {
  const path = op.pathParams.reduce(
    (filled, parameter) => filled.replace(`{${parameter.name}}`, request.pathValues[parameter.name]!),
    op.path,
  );
  const query = request.query.map(([key, value]) => `${key}=${value}`).join('&');
  const headers: Record<string, string> = {};
  const header = request.bogusAuthorization === undefined ? authorization : request.bogusAuthorization.header;
  if (header !== undefined) headers.authorization = header;
  if (request.contentType !== undefined) headers['content-type'] = request.contentType;
  return {
    method: request.method,
    target: query === '' ? path : `${path}?${query}`,
    headers,
    body: request.body,
    chunked: request.chunked,
  };
}

const clip = (text: string, length = 300): string =>
  text.length > length ? `${text.slice(0, length)}… (${text.length} chars)` : text;

function describe(
  op: Operation,
  caller: Caller,
  request: FuzzRequest,
  raw: RawRequest,
  response: RawResponse,
  fault: string,
): Failure {
  const auth =
    request.bogusAuthorization === undefined
      ? ''
      : ` [Authorization: ${clip(request.bogusAuthorization.header ?? '(none)', 80)}]`;
  const type = request.contentType === undefined ? '' : ` [Content-Type: ${request.contentType}]`;
  return {
    operation: `${op.id} (${op.method} ${op.path})`,
    caller: caller.name,
    attack: request.attack,
    fault,
    request: `${raw.method} ${clip(raw.target)}${type}${auth}`,
    body: clip(JSON.stringify(request.body ?? '')),
    answer: `${response.status} ${clip(response.text)}`,
  };
}

/** Debits equal credits over every journal line, and no enterprise's members' accounts differ from their ledger. */
async function checkBooks(app: TestApp, knex: Knex, admin: Caller): Promise<string[]> {
  const broken: string[] = [];
  const totals = await knex('journal_lines').first(
    knex.raw('coalesce(sum(debit), 0)::text AS debit'),
    knex.raw('coalesce(sum(credit), 0)::text AS credit'),
  );
  if (totals.debit !== totals.credit) broken.push(`journal_lines: debits ${totals.debit} ≠ credits ${totals.credit}`);
  for (const enterprise of await knex('enterprises').pluck('id')) {
    const answer = await send(app.baseUrl, {
      method: 'GET',
      target: `/api/v1/members/reconciliation/?enterprise=${enterprise}`,
      headers: { authorization: admin.authorization },
    });
    const page = answer.status === 200 ? (JSON.parse(answer.text) as { count: number; results: unknown[] }) : undefined;
    if (page === undefined || page.count !== 0 || page.results.length !== 0)
      broken.push(`reconciliation of enterprise ${enterprise}: ${answer.status} ${clip(answer.text)}`);
  }
  return broken;
}

/**
 * The report as text: the seed to replay, then each distinct failure (operation, caller, attack, fault) once with its
 * count.
 */
export function formatReport(settings: FuzzSettings, report: FuzzReport, seconds: number): string {
  const groups = new Map<string, { example: Failure; count: number }>();
  for (const failure of report.failures) {
    const key = `${failure.operation}|${failure.caller}|${failure.attack}|${failure.fault}`;
    const group = groups.get(key) ?? { example: failure, count: 0 };
    group.count += 1;
    groups.set(key, group);
  }
  const lines = [
    `fuzz: seed ${settings.seed}, budget ${settings.budget}: ${report.requests} requests to ${report.operations} ` +
      `operations in ${seconds.toFixed(1)} s; ${report.failures.length} failures (${groups.size} distinct)`,
    `replay: FUZZ_SEED=${settings.seed} FUZZ_BUDGET=${settings.budget} npm run fuzz ` +
      `(FUZZ_ONLY=<operationId,…> for some operations)`,
    ...[...groups.values()].map(({ example, count }) =>
      [
        `✗ ${example.operation} as ${example.caller}: ${example.fault}${count > 1 ? ` (×${count})` : ''}`,
        `    attack: ${example.attack}`,
        `    request: ${example.request}`,
        `    body: ${example.body}`,
        `    answer: ${example.answer}`,
      ].join('\n'),
    ),
    ...report.unreached.map((operation) => `✗ never reached with real ids: ${operation}`),
    ...report.waived.map((operation) => `  (no real resource in the world: ${operation})`),
    ...report.brokenInvariants.map((problem) => `✗ books: ${problem}`),
  ];
  return lines.join('\n');
}
