import { setImmediate } from 'node:timers/promises';
import test from 'ava';
import { createEnterprise } from '../../activities/enterprise/enterprises.activity';
import { recordBusinessEvent, type BusinessEvent } from '../../activities/events/record-business-event';
import { onCommittedWork, type CommittedWork } from '../../activities/metrics-channel';
import { inTransaction } from '../../db/transaction';
import { Money } from '../../domain/money';
import { testActivityContext } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { testClock } from '../helpers/clock';

test(
  'a posting is reported once its transaction commits: never for a rollback, a savepoint whose ' +
    'transaction rolls back, or a replayed key',
  async (t) => {
    const { knex } = await createTestDatabase(t);
    const [{ id: userId }] = await knex('users')
      .insert({ username: 'root', password_hash: '!', full_name: 'Root' })
      .returning('id');
    const actor = {
      userId,
      grants: [{ role: 'admin' as const, enterpriseId: null, branchId: null }],
      requestId: 'test',
    };
    const enterprise = await createEnterprise(testActivityContext(knex), actor, {
      code: 'MC',
      name: 'Coop MC',
      legalForm: 'C',
      country: 'CM',
      timeZone: 'Africa/Douala',
      headOffice: { code: 'HQ', name: 'HQ', address: '', city: '' },
    });
    const reported: CommittedWork[] = [];
    t.teardown(onCommittedWork((work) => reported.push(work)));
    const deposit = (idempotencyKey: string): BusinessEvent => ({
      enterpriseId: enterprise.id,
      branchId: null,
      kind: 'deposit',
      amount: new Money('1000'),
      payload: {},
      idempotencyKey,
      actorId: userId,
    });
    const refusedLater = new Error('refused after the posting');

    await inTransaction(knex, (trx) => recordBusinessEvent(trx, testClock(), deposit('committed')));
    await inTransaction(knex, (trx) => recordBusinessEvent(trx, testClock(), deposit('committed')));
    await t.throwsAsync(
      inTransaction(knex, async (trx) => {
        await recordBusinessEvent(trx, testClock(), deposit('rolled back'));
        throw refusedLater;
      }),
      { is: refusedLater },
    );
    await t.throwsAsync(
      inTransaction(knex, async (trx) => {
        await trx.transaction((savepoint) =>
          recordBusinessEvent(savepoint, testClock(), deposit('released savepoint')),
        );
        throw refusedLater;
      }),
      { is: refusedLater },
    );
    await setImmediate(); // reports follow the commit, after the caller has its answer
    t.deepEqual(reported, [{ work: 'posting', labels: { kind: 'deposit' } }]);
  },
);
