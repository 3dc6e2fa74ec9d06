import type { TestApp } from './app';
import { until } from './until';

/**
 * The go-live import's workflow moves it on in the background (docs/domain.md §15.1): the one way the tests wait
 * for it, reading the import (GET, as a client does) until its status is none of `passing`.
 */
export async function importPast(app: TestApp, id: string, headers: Record<string, string>, passing: readonly string[], timeoutMs?: number): Promise<Record<string, unknown>> {
  let read: Record<string, unknown> = {};
  await until(`the import ${id} past ${passing.join(', ')}`, async () => {
    const answer = await app.request('GET', `/api/v1/imports/${id}/`, { headers });
    if (answer.status !== 200) throw new Error(`reading the import ${id}: ${answer.text}`);
    read = answer.body as Record<string, unknown>;
    return !passing.includes(read.status as string);
  }, timeoutMs);
  return read;
}

/**
 * Asks for the import's validation (202, `validating`) and answers the import once its workflow has validated, tied
 * out and run the dry run: `validated`, `rejected` or `failed`. A worker must poll the app's task queue.
 */
export async function validateImport(app: TestApp, id: string, headers: Record<string, string>, timeoutMs?: number): Promise<Record<string, unknown>> {
  const asked = await app.request('POST', `/api/v1/imports/${id}/validation/`, { headers });
  if (asked.status !== 202 || asked.body.status !== 'validating') throw new Error(`the validation of import ${id} was not accepted: ${asked.status} ${asked.text}`);
  return importPast(app, id, headers, ['validating'], timeoutMs);
}
