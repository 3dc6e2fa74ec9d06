import fs from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from './app';
import { createTestDatabase } from './database';
import { createLoanWorld, memberOf } from './loans';
import type { Teardown } from './teardown';
import { until } from './until';

/** A hand-made file of test/fixtures/imports/, by its path there. */
export const importFixture = (name: string): Buffer =>
  fs.readFileSync(path.join(__dirname, '../fixtures/imports', name));

/**
 * The enterprise the pipeline's files come into: no share capital, and the member M-EXIST of the head office that
 * the accounts file names as already the enterprise's. A workflow day of a minute: the import's workflow, woken by
 * apply's approval, would read its status after a minute anyway.
 */
export async function importWorld(scope: Teardown, taskQueue: string, code: string) {
  const { knex } = await createTestDatabase(scope);
  const app = await startTestApp(scope, { knex, taskQueue, workflowDayMs: 60_000 });
  const world = await createLoanWorld(app, knex, code, { capital: false });
  await knex('client_profiles')
    .where({ id: await memberOf(world) })
    .update({ member_number: 'M-EXIST' });
  return { app, knex, world };
}

/**
 * The go-live import's workflow moves it on in the background (docs/domain.md §15.1): the one way the tests wait
 * for it, reading the import (GET, as a client does) until its status is none of `passing`.
 */
export async function importPast(
  app: TestApp,
  id: string,
  headers: Record<string, string>,
  passing: readonly string[],
  timeoutMs?: number,
): Promise<Record<string, unknown>> {
  let read: Record<string, unknown> = {};
  await until(
    `the import ${id} past ${passing.join(', ')}`,
    async () => {
      const answer = await app.request('GET', `/api/v1/imports/${id}/`, { headers });
      if (answer.status !== 200) throw new Error(`reading the import ${id}: ${answer.text}`);
      read = answer.body as Record<string, unknown>;
      return !passing.includes(read.status as string);
    },
    timeoutMs,
  );
  return read;
}

/**
 * Asks for the import's validation (202, `validating`) and answers the import once its workflow has validated, tied
 * out and run the dry run: `validated`, `rejected` or `failed`. A worker must poll the app's task queue.
 */
export async function validateImport(
  app: TestApp,
  id: string,
  headers: Record<string, string>,
  timeoutMs?: number,
): Promise<Record<string, unknown>> {
  const asked = await app.request('POST', `/api/v1/imports/${id}/validation/`, { headers });
  if (asked.status !== 202 || asked.body.status !== 'validating')
    throw new Error(`the validation of import ${id} was not accepted: ${asked.status} ${asked.text}`);
  return importPast(app, id, headers, ['validating'], timeoutMs);
}

/**
 * Asks for the import's operation (apply or cancel) as its uploader (`maker`) and has `checker` approve it, once the
 * uploader's own approval is refused (four eyes: docs/domain.md §15.1). Throws at the first answer that is not so.
 */
export async function importFourEyes(
  app: TestApp,
  id: string,
  operation: 'application' | 'cancellation',
  people: { maker: Record<string, string>; checker: Record<string, string> },
  json: Record<string, string> = {},
): Promise<void> {
  const asked = await app.request('POST', `/api/v1/imports/${id}/${operation}/`, { headers: people.maker, json });
  if (asked.status !== 202) throw new Error(`the ${operation} of import ${id} was not asked: ${asked.text}`);
  const requestId = asked.body.id as string;
  const own = await app.request('POST', `/api/v1/approvals/requests/${requestId}/approve/`, {
    headers: people.maker,
    json: {},
  });
  if (own.body.code !== 'approval_own_request')
    throw new Error(`the uploader who asked approved their own ${operation}: ${own.text}`);
  const approved = await app.request('POST', `/api/v1/approvals/requests/${requestId}/approve/`, {
    headers: people.checker,
    json: {},
  });
  if (approved.status !== 200) throw new Error(`the ${operation} of import ${id} was not approved: ${approved.text}`);
}
