import type { Knex } from 'knex';

/**
 * Issue 30, restructuring (R-2017/07 Arts. 11–14, docs/domain.md §14.2). A request to restructure a loan waits for its
 * four-eyes decision (an `approval_requests` row of operation `loan.restructure`, its payload naming this row); approved, it records what it did: the
 * arrears capitalised, the amount restructured, the new schedule's version and TEG, the class before, and the payment
 * Art. 14 requires before the loan may return to performing. The loan carries its flag, count and last date; an
 * installment settled by capitalisation keeps the amounts capitalised (its `paid_on` is the restructuring's date, so
 * positions at earlier dates still see it unpaid).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('loan_restructurings', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable().references('branches.id');
    table.uuid('loan_id').notNullable().references('loans.id');
    table.string('status', 10).notNullable().defaultTo('pending');
    table.integer('term_periods').notNullable();
    table.decimal('annual_rate', 9, 6).notNullable();
    table.integer('grace_periods').notNullable();
    table.boolean('capitalise_arrears').notNullable();
    table.text('reason').notNullable();
    table.uuid('requested_by').notNullable().references('users.id');
    table.timestamp('requested_at', { useTz: true }).notNullable();
    // What the approval did; null while pending or when it never applied.
    table.integer('number');
    table.date('effective_on');
    // When it applied: the borrower's payments after it count towards Art. 14's.
    table.timestamp('applied_at', { useTz: true });
    table.string('class_before', 12);
    table.decimal('outstanding_before', 20, 0);
    table.decimal('principal_capitalised', 20, 0);
    table.decimal('interest_capitalised', 20, 0);
    table.decimal('restructured_amount', 20, 0);
    table.decimal('required_payment', 20, 0);
    table.date('first_due_date');
    table.integer('kept_through');
    table.integer('schedule_version');
    table.decimal('teg', 9, 2);
    table.text('decision_reason');
    table.index(['loan_id', 'status'], 'loan_restructurings_loan');
    table.unique(['loan_id', 'number'], { indexName: 'loan_restructurings_number_unique' });
    table.check(`status IN ('pending', 'approved', 'rejected', 'expired', 'failed')`, [], 'loan_restructurings_status_known');
    table.check(`(status = 'approved') = (number IS NOT NULL AND effective_on IS NOT NULL AND applied_at IS NOT NULL AND schedule_version IS NOT NULL)`, [], 'loan_restructurings_applied');
    table.check(`term_periods >= 1 AND grace_periods >= 0 AND grace_periods < term_periods AND annual_rate >= 0`, [], 'loan_restructurings_terms');
  });
  // One request waiting per loan: a second would restructure a schedule the first is about to replace.
  await knex.raw(`CREATE UNIQUE INDEX loan_restructurings_one_pending ON loan_restructurings (loan_id) WHERE status = 'pending'`);
  await knex.raw(`
    ALTER TABLE loans
      ADD COLUMN restructured boolean NOT NULL DEFAULT false,
      ADD COLUMN restructuring_count integer NOT NULL DEFAULT 0 CONSTRAINT loans_restructuring_count_range CHECK (restructuring_count >= 0),
      ADD COLUMN restructured_on date,
      ADD CONSTRAINT loans_restructured_flag CHECK (restructured = (restructuring_count > 0) AND restructured = (restructured_on IS NOT NULL))`);
  await knex.raw(`
    ALTER TABLE loan_installments
      ADD COLUMN capitalised_on date,
      ADD COLUMN principal_capitalised numeric(20, 0) NOT NULL DEFAULT 0,
      ADD COLUMN interest_capitalised numeric(20, 0) NOT NULL DEFAULT 0,
      ADD COLUMN penalty_capitalised numeric(20, 0) NOT NULL DEFAULT 0,
      ADD CONSTRAINT loan_installments_capitalised_within_paid CHECK (principal_capitalised <= principal_paid AND interest_capitalised <= interest_paid AND penalty_capitalised <= penalty_paid
        AND (capitalised_on IS NULL) = (principal_capitalised + interest_capitalised + penalty_capitalised = 0))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE loan_installments DROP CONSTRAINT loan_installments_capitalised_within_paid,
    DROP COLUMN capitalised_on, DROP COLUMN principal_capitalised, DROP COLUMN interest_capitalised, DROP COLUMN penalty_capitalised`);
  await knex.raw('ALTER TABLE loans DROP CONSTRAINT loans_restructured_flag, DROP COLUMN restructured, DROP COLUMN restructuring_count, DROP COLUMN restructured_on');
  await knex.schema.dropTable('loan_restructurings');
}
