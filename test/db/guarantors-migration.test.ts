import test from 'ava';
import { migrateToLatest } from '../../db/knex';
import { down, up } from '../../db/migrations/20261205400000_guarantors_and_collateral';
import { startTestApp } from '../helpers/app';
import { createTestDatabase, keysIncludeEnterprise } from '../helpers/database';
import { approvedLoan, createLoanWorld, memberOf, openSavingsAccount } from '../helpers/loans';

test(
  'guarantees recorded before the collateral register were valued when they started; the holds view gains the ' +
    'kind; undone and done again',
  async (t) => {
    const { knex } = await createTestDatabase(t, { migratedBefore: keysIncludeEnterprise });
    const app = await startTestApp(t, { knex });
    const world = await createLoanWorld(app, knex, 'MGR');
    const loan = await approvedLoan(world, await memberOf(world));

    await knex.transaction((trx) => down(trx));
    const columns = async () => Object.keys(await knex('loan_guarantees').columnInfo());
    t.false((await columns()).includes('valuation_date'));
    // As recorded before: no valuation date, deed or guarantor.
    const [before] = await knex('loan_guarantees')
      .insert({
        enterprise_id: world.enterpriseId,
        loan_id: loan,
        kind: 'mortgage',
        value: '500000',
        start_date: '2026-01-10',
        created_by: world.rootId,
      })
      .returning('id');

    await knex.transaction((trx) => up(trx));
    t.like(
      await knex('loan_guarantees')
        .where({ id: before.id })
        .first(
          knex.raw(`to_char(valuation_date, 'YYYY-MM-DD') AS valuation_date`),
          'document_reference',
          'guarantor_client_id',
        ),
      {
        valuation_date: '2026-01-10',
        document_reference: '',
        guarantor_client_id: null,
      },
    );
    t.true(Object.keys(await knex('guarantee_holds').columnInfo()).includes('kind'));
    // A guarantor's account held without naming the guarantor is refused by the database too.
    const account = await openSavingsAccount(world, await memberOf(world));
    await t.throwsAsync(
      knex('loan_guarantees').insert({
        enterprise_id: world.enterpriseId,
        loan_id: loan,
        kind: 'personal_guarantor',
        value: '1000',
        start_date: '2026-01-10',
        created_by: world.rootId,
        compte_client_id: account,
      }),
      { message: /loan_guarantees_account_held/ },
    );
    t.true((await migrateToLatest(knex)).includes(`${keysIncludeEnterprise}.ts`), 'the keys widened over these rows');
  },
);
