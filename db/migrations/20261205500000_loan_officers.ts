import type { Knex } from 'knex';

/**
 * Issue 30, loan officers: each application names the officer who follows the credit (default: its submitter), and
 * the loan carries it from its approval. Existing applications and loans get their submitter. Reassignments are kept
 * in `loan_officer_assignments`, append-only: who followed the loan before, who follows it now, from which
 * business date, who decided it and why.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE loan_applications ADD COLUMN loan_officer_id uuid REFERENCES users (id)');
  await knex.raw('UPDATE loan_applications SET loan_officer_id = submitted_by');
  await knex.raw('ALTER TABLE loan_applications ALTER COLUMN loan_officer_id SET NOT NULL');
  await knex.raw('ALTER TABLE loans ADD COLUMN loan_officer_id uuid REFERENCES users (id)');
  await knex.raw('UPDATE loans l SET loan_officer_id = a.submitted_by FROM loan_applications a WHERE a.id = l.application_id');
  await knex.raw('ALTER TABLE loans ALTER COLUMN loan_officer_id SET NOT NULL');
  // The officers' portfolio groups the loans by officer within a branch.
  await knex.raw('CREATE INDEX loans_officer ON loans (loan_officer_id, branch_id)');
  await knex.schema.createTable('loan_officer_assignments', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('loan_id').notNullable().references('loans.id');
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('from_officer_id').notNullable().references('users.id');
    table.uuid('to_officer_id').notNullable().references('users.id');
    table.date('assigned_on').notNullable();
    table.uuid('assigned_by').notNullable().references('users.id');
    table.string('reason', 500).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['loan_id', 'created_at'], 'loan_officer_assignments_by_loan');
    table.index(['enterprise_id', 'assigned_on'], 'loan_officer_assignments_by_date');
    table.check('from_officer_id <> to_officer_id', [], 'loan_officer_assignments_changes_officer');
  });
  await knex.raw('CREATE TRIGGER loan_officer_assignments_append_only BEFORE UPDATE OR DELETE ON loan_officer_assignments FOR EACH ROW EXECUTE FUNCTION coopbank_refuse_change()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('loan_officer_assignments');
  await knex.raw('ALTER TABLE loans DROP COLUMN loan_officer_id');
  await knex.raw('ALTER TABLE loan_applications DROP COLUMN loan_officer_id');
}
