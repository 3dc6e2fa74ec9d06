import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { depositWithRetry } from '../../examples/deposit-client/deposit';
import { startTestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld, memberOf, openSavingsAccount } from '../helpers/loans';
import { testPassword } from '../helpers/users';

const run = promisify(execFile);
const committedTypes = path.join(__dirname, '../../examples/deposit-client/coopbank-api.d.ts');

test("the example client's types are generated from the current document (npm run client:types)", async (t) => {
  const folder = await mkdtemp(path.join(tmpdir(), 'client-types-'));
  t.teardown(() => rm(folder, { recursive: true, force: true }));
  const fresh = path.join(folder, 'coopbank-api.d.ts');
  await run('bash', [path.join(__dirname, '../../scripts/client-types'), fresh]);
  t.true(
    (await readFile(fresh, 'utf8')) === (await readFile(committedTypes, 'utf8')),
    'the API changed: run `npm run client:types` and commit the types',
  );
});

test(
  'the example client deposits through the generated types: ' +
    'typed answers, a safe retry, the receipt at its Location',
  async (t) => {
    const { knex } = await createTestDatabase(t);
    const app = await startTestApp(t, { knex });
    const world = await createLoanWorld(app, knex, 'EXC');
    const account = await openSavingsAccount(world, await memberOf(world), '50000');
    const outcome = await depositWithRetry({
      baseUrl: app.baseUrl,
      username: 'cashier_exc',
      password: testPassword,
      account,
      amount: '25000',
      idempotencyKey: 'example-1',
    });
    t.is(outcome.balanceBefore, '50000');
    t.is(outcome.deposit.amount, '25000');
    t.deepEqual(outcome.retry, { replayed: true, sameOperation: true });
    t.is(outcome.balanceAfter, '75000', 'the retry moved nothing');
    t.deepEqual(outcome.receipt, outcome.deposit);
  },
);
