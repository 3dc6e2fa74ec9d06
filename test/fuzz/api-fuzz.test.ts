import test from 'ava';
import { startTestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { newTaskQueue, withWorker } from '../helpers/worker';
import { formatReport, runFuzz, settingsFrom } from './fuzzer';
import { closeConnections } from './http';

/**
 * Every operation of the OpenAPI document, fed malformed requests as a platform administrator and as a
 * cashier: no 5xx, no success for what must be refused, problem+json for every 4xx, the books still
 * balanced, and every operation with path parameters past the 404 with the world's real ids at least once.
 * `npm test` runs a fixed seed and budget; `npm run fuzz` a random seed and a larger budget
 * (FUZZ_SEED, FUZZ_BUDGET and FUZZ_ONLY override; see test/fuzz/fuzzer.ts).
 */
test('the API survives malformed requests to every operation', async (t) => {
  const settings = settingsFrom(process.env);
  // The bounded run (its world, a loan through the circuit and a month end included) takes some 2 min on two busy
  // cores, about 5 s per unit of budget: leave room for a loaded machine.
  t.timeout(Math.max(240_000, settings.budget * 10_000));
  t.teardown(closeConnections);
  const { knex } = await createTestDatabase(t);
  // A worker runs the workflows the requests start or update (an Update waits for one).
  const taskQueue = newTaskQueue();
  const app = await startTestApp(t, { knex, taskQueue });
  const started = Date.now();
  const report = await withWorker(knex, () => runFuzz(app, knex, settings), taskQueue);
  const text = formatReport(settings, report, (Date.now() - started) / 1000);
  console.log(text);
  t.true(
    report.fewestPerOperation >= settings.budget,
    `fewest requests to one operation: ${report.fewestPerOperation}`,
  );
  t.is(report.failures.length + report.brokenInvariants.length, 0, text.split('\n').slice(0, 2).join('\n'));
  t.deepEqual(report.unreached, [], 'every operation with path parameters reaches its handler with real ids');
});
