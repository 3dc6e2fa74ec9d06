import test from 'ava';
import { migrateToLatest } from '../../db/knex';
import { down, up } from '../../db/migrations/20261205500000_loan_officers';
import { startTestApp } from '../helpers/app';
import { createTestDatabase, keysIncludeEnterprise } from '../helpers/database';
import { approvedLoan, createLoanWorld, memberOf } from '../helpers/loans';
import { newTaskQueue } from '../helpers/worker';

test('the applications and loans made before loan officers get their submitter as their officer', async (t) => {
  const { knex } = await createTestDatabase(t, { migratedBefore: keysIncludeEnterprise });
  const app = await startTestApp(t, { knex, taskQueue: newTaskQueue() });
  const world = await createLoanWorld(app, knex, 'MLO');
  const loanId = await approvedLoan(world, await memberOf(world), {}, 'teller');
  // Another officer than the submitter, so that the backfill is seen to choose the submitter.
  await knex('loans').where({ id: loanId }).update({ loan_officer_id: world.users.branch_head!.id });

  await knex.transaction(async (trx) => {
    await down(trx);
    await up(trx);
  });
  const loan = await knex('loans').where({ id: loanId }).first('loan_officer_id', 'application_id');
  t.is(loan.loan_officer_id, world.users.teller!.id);
  t.is(
    (await knex('loan_applications').where({ id: loan.application_id }).first('loan_officer_id')).loan_officer_id,
    world.users.teller!.id,
  );
  t.is(
    Number((await knex('loan_officer_assignments').count({ n: '*' }))[0]!.n),
    0,
    'no reassignment before there were officers',
  );
  t.true((await migrateToLatest(knex)).includes(`${keysIncludeEnterprise}.ts`), 'the keys widened over these rows');
});
