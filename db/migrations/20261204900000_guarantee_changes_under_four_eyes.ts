import type { Knex } from 'knex';

/**
 * Issue 27: a covering guarantee's addition goes through the one four-eyes mechanism (`guarantee.change`), as its end
 * already did; `loan_guarantee_confirmations` is no longer written and stays as the history of the changes decided
 * under it. A change still pending there has no request to approve: an addition is refused (its pledged deposit's
 * hold freed) and an end dropped, the guarantee staying in force; the branch head asks them again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE loan_guarantees g SET status = 'refused'
                   WHERE g.status = 'pending'
                     AND EXISTS (SELECT 1 FROM loan_guarantee_confirmations c WHERE c.guarantee_id = g.id AND c.change = 'add' AND c.decision = 'pending')`);
  await knex('loan_guarantee_confirmations').where({ decision: 'pending' }).delete();
}

export async function down(): Promise<void> {
  // The pending changes dropped are not brought back: they would have no checker's route to be decided by.
}
