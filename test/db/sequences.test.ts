import test from 'ava';
import { nextSequenceValue } from '../../db/sequences';
import { inTransaction } from '../../db/transaction';
import { SequenceCounter } from '../../db/models/sequence-counter.model';
import { createTestDatabase } from '../helpers/database';

const enterpriseId = '00000000-0000-4000-8000-000000000001';
const branchId = '00000000-0000-4000-8000-000000000002';

test('concurrent transactions take gap-free, duplicate-free numbers; rolled-back numbers are reused', async (t) => {
  const { knex } = await createTestDatabase(t);
  const scope = { name: 'loan', enterpriseId, year: 2026 };
  const attempts = 40;
  // Every third transaction fails after taking its number: its number must go to someone else.
  const outcomes = await Promise.allSettled(
    Array.from({ length: attempts }, (_, index) =>
      inTransaction(knex, async (trx) => {
        const value = await nextSequenceValue(trx, scope);
        await new Promise((resolve) => setTimeout(resolve, 2)); // hold the lock a moment, as real work would
        if (index % 3 === 0) throw new Error('business refusal after numbering');
        return value;
      }),
    ),
  );
  const committed = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const expectedCount = attempts - Math.ceil(attempts / 3);
  t.is(committed.length, expectedCount);
  t.deepEqual(
    [...committed].sort((a, b) => a - b),
    Array.from({ length: expectedCount }, (_, index) => index + 1),
  );

  const counter = await SequenceCounter.query(knex).findOne({ name: 'loan' });
  t.is(counter?.value, String(expectedCount));
});

test('each scope (name, enterprise, branch, year) counts on its own', async (t) => {
  const { knex } = await createTestDatabase(t);
  const take = (scope: Parameters<typeof nextSequenceValue>[1]) =>
    inTransaction(knex, (trx) => nextSequenceValue(trx, scope));

  t.is(await take({ name: 'member', enterpriseId, branchId }), 1);
  t.is(await take({ name: 'member', enterpriseId, branchId }), 2);
  t.is(await take({ name: 'member', enterpriseId }), 1, 'no branch is a scope of its own');
  t.is(await take({ name: 'share', enterpriseId, year: 2026 }), 1);
  t.is(await take({ name: 'share', enterpriseId, year: 2027 }), 1, 'a new year restarts the numbering');
  t.is(await take({ name: 'share', enterpriseId, year: 2026 }), 2);
  t.is(await SequenceCounter.query(knex).resultSize(), 4);
});
