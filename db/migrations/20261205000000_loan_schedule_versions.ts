import type { Knex } from 'knex';

/**
 * Issue 30: a loan's schedule has versions. `loan_installments` stays the schedule in force, with what was paid on
 * each installment (every reader keeps reading it); `loan_schedule_versions` keeps each schedule as it was made, from
 * the disbursement's (version 1) to each prepayment's or restructuring's, append-only. `loans.schedule_version` names
 * the version in force. Loans disbursed before this migration get their version 1 from their installments.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE loans ADD COLUMN schedule_version integer NOT NULL DEFAULT 1 CONSTRAINT loans_schedule_version_positive CHECK (schedule_version >= 1)`);
  await knex.schema.createTable('loan_schedule_versions', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('loan_id').notNullable().references('loans.id');
    table.integer('version').notNullable();
    table.string('reason', 20).notNullable();
    // The day the version took effect: the disbursement, the prepayment or the restructuring.
    table.date('effective_on').notNullable();
    table.decimal('outstanding_principal', 20, 0).notNullable();
    table.decimal('teg', 9, 2).notNullable();
    // Every installment of the version as made: [{number, due_date, principal_due, interest_due}], those kept from the
    // previous version included.
    table.jsonb('installments').notNullable();
    table.uuid('created_by').references('users.id');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['loan_id', 'version'], { indexName: 'loan_schedule_versions_unique' });
    table.check(`reason IN ('original', 'prepayment', 'restructuring')`, [], 'loan_schedule_versions_reason_known');
    table.check(`version >= 1 AND (version = 1) = (reason = 'original') AND outstanding_principal >= 0`, [], 'loan_schedule_versions_consistent');
  });
  await knex.raw(`CREATE TRIGGER loan_schedule_versions_append_only BEFORE UPDATE OR DELETE ON loan_schedule_versions FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()`);
  await knex.raw(`
    INSERT INTO loan_schedule_versions (loan_id, version, reason, effective_on, outstanding_principal, teg, installments, created_by)
    SELECT l.id, 1, 'original', l.disbursed_on, l.principal, l.teg,
           (SELECT jsonb_agg(jsonb_build_object('number', i.number, 'due_date', i.due_date, 'principal_due', i.principal_due::text, 'interest_due', i.interest_due::text) ORDER BY i.number)
              FROM loan_installments i WHERE i.loan_id = l.id),
           l.disbursed_by
      FROM loans l WHERE l.disbursed_on IS NOT NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('loan_schedule_versions');
  await knex.raw('ALTER TABLE loans DROP COLUMN schedule_version');
}
