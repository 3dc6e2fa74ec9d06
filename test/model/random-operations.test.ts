import test from 'ava';
import fc from 'fast-check';
import type { Knex } from 'knex';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { createLoanWorld } from '../helpers/loans';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue, withWorker } from '../helpers/worker';
import { Money } from '../../domain/money';
import { bearer, createUser } from '../helpers/users';
import {
  executed,
  grantLoan,
  openAccount,
  operations,
  withEarlyRepayments,
  withManualEntries,
  withTillsAcrossBranches,
  type Model,
  type Real,
} from './operations';

/**
 * Random sequences of operations through the HTTP API of the real stack (PostgreSQL, Temporal, a worker),
 * checked against a model after every step: the books tie out (books.ts) and the members' balances are the
 * model's. fast-check draws the sequences from a seed and, on a failure, shrinks it to a short one and prints
 * the seed and path that replay it. `npm test` runs a fixed seed and a short budget, one or three sequences per
 * property, to keep the suite's time; `npm run test:long` (MODEL_LONG=1) runs many more of every property, and
 * MODEL_SEED, MODEL_RUNS, MODEL_STEPS and each property's own variables override them.
 */
const file = fileTeardown(test);
const taskQueue = newTaskQueue();
const long = process.env.MODEL_LONG === '1';
/** A property's number of sequences: its variable, else the long or the short budget. */
const sequencesOf = (variable: string, short: number, longer: number) =>
  Number(process.env[variable] ?? (long ? longer : short));
const seed = Number(process.env.MODEL_SEED ?? 20261123);
const runs = sequencesOf('MODEL_RUNS', 3, 40);
const steps = Number(process.env.MODEL_STEPS ?? (long ? 200 : 100));
let app: TestApp;
let knex: Knex;
let worlds = 0;

test.before(async () => {
  ({ knex } = await createTestDatabase(file));
  app = await startTestApp(file, { knex, taskQueue });
});

/**
 * A cooperative of its own for each sequence, its business date in January 2026 so that time can pass, into 2027 too.
 */
async function setup(): Promise<{ model: Model; real: Real }> {
  worlds += 1;
  const world = await createLoanWorld(app, knex, `MB${worlds}`);
  const businessDate = '2026-01-15';
  await knex('enterprise_configurations')
    .where({ enterprise_id: world.enterpriseId })
    .update({ business_date: businessDate });
  const nextYear = await app.request('POST', '/api/v1/enterprise/exercices/', {
    headers: world.users.direction!.headers,
    json: { enterprise: world.enterpriseId, code: '2027', start_date: '2027-01-01', end_date: '2027-12-31' },
  });
  if (nextYear.status !== 201) throw new Error(nextYear.text);
  const model: Model = {
    accounts: [],
    balances: new Map(),
    applications: [],
    loans: [],
    businessDate,
    lastKeyed: null,
    keys: 0,
    manual: new Map(),
  };
  const real: Real = { world, posted: new Map() };
  // Two members with an account, one with a loan paid out, so that the first operations drawn have work to do.
  for (const initial of [50_000, 250_000]) await openAccount(model, real, initial);
  await grantLoan(model, real, model.accounts[0]!.client, new Money(1_200_000));
  return { model, real };
}

test.serial(`random operation sequences keep the books exact (seed ${seed}, ${runs} × ${steps} steps)`, async (t) => {
  t.timeout(runs * steps * 5000);
  let sequences = 0;
  await withWorker(
    knex,
    async () => {
      const property = fc.asyncProperty(
        fc.commands(operations, { maxCommands: steps, size: 'max' }),
        async (commands) => {
          sequences += 1;
          await fc.asyncModelRun(setup, commands);
        },
      );
      await fc.assert(property, {
        seed,
        numRuns: runs,
        endOnFailure: process.env.MODEL_SHRINK === '0',
        includeErrorInReport: true,
      });
    },
    taskQueue,
  );
  t.true(sequences >= runs, 'every sequence ran');
  t.log(Object.fromEntries(executed));
  // The budget reaches the whole circuit: money moved, loans granted and repaid, time passed, provisions run.
  for (const kind of ['Deposit', 'Withdrawal', 'Decide', 'Disburse', 'Repay', 'MoveBusinessDate', 'RunProvisioning'])
    t.true((executed.get(kind) ?? 0) > 0, `${kind} ran`);
});

/** The same cooperative with an accountant, who drafts the manual entries the sequence draws. */
async function setupWithAccountant(): Promise<{ model: Model; real: Real }> {
  const setUp = await setup();
  const name = `accountant_mb${worlds}`;
  await createUser(knex, name, [{ role: 'accountant', enterpriseId: setUp.real.world.enterpriseId, branchId: null }]);
  setUp.real.accountant = await bearer(app, name, `10.73.0.${worlds}`);
  return setUp;
}

// A property of its own, with its own seed: manual entries added to the first one's list would change its draws.
const manualSeed = Number(process.env.MODEL_MANUAL_SEED ?? 20261203);
const manualRuns = sequencesOf('MODEL_MANUAL_RUNS', 1, 10);

test.serial(
  `with manual entries among them, the subledgers still equal the ledger ` +
    `(seed ${manualSeed}, ${manualRuns} × ${steps} steps)`,
  async (t) => {
    t.timeout(manualRuns * steps * 5000);
    const before = executed.get('PostManualEntry') ?? 0;
    let sequences = 0;
    await withWorker(
      knex,
      async () => {
        const property = fc.asyncProperty(
          fc.commands(withManualEntries, { maxCommands: steps, size: 'max' }),
          async (commands) => {
            sequences += 1;
            await fc.asyncModelRun(setupWithAccountant, commands);
          },
        );
        await fc.assert(property, {
          seed: manualSeed,
          numRuns: manualRuns,
          endOnFailure: process.env.MODEL_SHRINK === '0',
          includeErrorInReport: true,
        });
      },
      taskQueue,
    );
    t.true(sequences >= manualRuns, 'every sequence ran');
    // Each one checked after it: posted, the books tied out, its accounts' ledger the model's.
    const manualEntries = (executed.get('PostManualEntry') ?? 0) - before;
    t.log({ PostManualEntry: manualEntries });
    t.true(manualEntries > 0, 'manual entries ran');
  },
);

/**
 * The same cooperative with the other branch under till control (its cashier holds a till, no session open yet)
 * and the enterprise serving members across branches (issue 29).
 */
async function setupWithTill(): Promise<{ model: Model; real: Real }> {
  const setUp = await setup();
  const { world } = setUp.real;
  const till = await app.request('POST', '/api/v1/cash/tills/', {
    headers: world.users.other_head!.headers,
    json: {
      enterprise: world.enterpriseId,
      branch: world.otherBranch,
      code: 'G1',
      label: 'Guichet 1',
      cashier: world.users.other_cashier!.id,
    },
  });
  if (till.status !== 201) throw new Error(till.text);
  const allowed = await app.request('PATCH', `/api/v1/enterprise/enterprises/${world.enterpriseId}/configuration/`, {
    headers: world.users.direction!.headers,
    json: { inter_branch_service: true },
  });
  if (allowed.status !== 200) throw new Error(allowed.text);
  setUp.model.till = { account: till.body.account as string, book: new Money(0), session: null };
  return setUp;
}

// A property of its own, as the manual entries': its seed and draws leave the two above as they were.
const tillSeed = Number(process.env.MODEL_TILL_SEED ?? 20261204);
const tillRuns = sequencesOf('MODEL_TILL_RUNS', 1, 10);

test.serial(
  `with till sessions and members served across branches, 45200 nets to zero after every step ` +
    `(seed ${tillSeed}, ${tillRuns} × ${steps} steps)`,
  async (t) => {
    t.timeout(tillRuns * steps * 5000);
    const before = new Map(
      ['OpenTillSession', 'CloseTillSession', 'ServeAcrossBranches'].map((kind) => [kind, executed.get(kind) ?? 0]),
    );
    let sequences = 0;
    await withWorker(
      knex,
      async () => {
        const property = fc.asyncProperty(
          fc.commands(withTillsAcrossBranches, { maxCommands: steps, size: 'max' }),
          async (commands) => {
            sequences += 1;
            await fc.asyncModelRun(setupWithTill, commands);
          },
        );
        await fc.assert(property, {
          seed: tillSeed,
          numRuns: tillRuns,
          endOnFailure: process.env.MODEL_SHRINK === '0',
          includeErrorInReport: true,
        });
      },
      taskQueue,
    );
    t.true(sequences >= tillRuns, 'every sequence ran');
    // Each one checked after it: the books tied out, the till's book balance the model's, 45200 at zero consolidated.
    const ran = Object.fromEntries([...before].map(([kind, count]) => [kind, (executed.get(kind) ?? 0) - count]));
    t.log(ran);
    for (const [kind, count] of Object.entries(ran)) t.true(count > 0, `${kind} ran`);
    const made = await knex('inter_branch_operations').count({ n: '*' }).first();
    t.true(Number(made?.n) > 0, 'members were served across branches, not only refused');
  },
);

// Issue 30: a property of its own, as the manual entries', so that the draws of the others stay as they were.
const earlySeed = Number(process.env.MODEL_EARLY_SEED ?? 20261205);
const earlyRuns = sequencesOf('MODEL_EARLY_RUNS', 1, 10);

test.serial(
  `with prepayments and payoffs among them, the books still tie out (seed ${earlySeed}, ${earlyRuns} × ${steps} steps)`,
  async (t) => {
    t.timeout(earlyRuns * steps * 5000);
    const before = new Map(['Prepay', 'PayOff'].map((kind) => [kind, executed.get(kind) ?? 0]));
    let sequences = 0;
    await withWorker(
      knex,
      async () => {
        const property = fc.asyncProperty(
          fc.commands(withEarlyRepayments, { maxCommands: steps, size: 'max' }),
          async (commands) => {
            sequences += 1;
            await fc.asyncModelRun(setup, commands);
          },
        );
        await fc.assert(property, {
          seed: earlySeed,
          numRuns: earlyRuns,
          endOnFailure: process.env.MODEL_SHRINK === '0',
          includeErrorInReport: true,
        });
      },
      taskQueue,
    );
    t.true(sequences >= earlyRuns, 'every sequence ran');
    const ran = Object.fromEntries([...before].map(([kind, count]) => [kind, (executed.get(kind) ?? 0) - count]));
    t.log(ran);
    for (const [kind, count] of Object.entries(ran)) t.true(count > 0, `${kind} ran`);
  },
);
