import type { Knex } from 'knex';

/**
 * What a repayment reads of its loan, in one round trip: the loan locked, then its product's accounts, the
 * enterprise's business date and time zone, its open installments, and the earlier repayment of the same
 * idempotency key. NULL when there is no such loan.
 *
 * Two statements on purpose: in a volatile function each statement reads a fresh snapshot, so the read that
 * follows the lock sees everything committed by the repayment this one waited for. One statement would read
 * the installments as they were before the wait, and two queued repayments would pay the same dues.
 * Amounts leave as text (a JSON number would lose digits in JavaScript).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION coopbank_loan_for_repayment(wanted_loan uuid, wanted_key text) RETURNS json LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      found json;
    BEGIN
      PERFORM 1 FROM loans l WHERE l.id = wanted_loan FOR UPDATE;
      SELECT json_build_object(
        'id', l.id, 'enterprise_id', l.enterprise_id, 'branch_id', l.branch_id, 'client_id', l.client_id, 'number', l.number,
        'status', l.status, 'classification', l.classification, 'penalty_rate', l.penalty_rate::text, 'outstanding_principal', l.outstanding_principal::text,
        'portfolio_account_code', p.portfolio_account_code, 'interest_income_account_code', p.interest_income_account_code,
        'penalty_income_account_code', p.penalty_income_account_code,
        'business_date', c.business_date, 'time_zone', c.time_zone,
        'earlier_repayment_id', (SELECT r.id FROM loan_repayments r WHERE r.enterprise_id = l.enterprise_id AND r.idempotency_key = wanted_key),
        'installments', COALESCE((
          SELECT json_agg(json_build_object(
            'number', i.number, 'due_date', i.due_date, 'principal_due', i.principal_due::text, 'interest_due', i.interest_due::text,
            'penalty_due', i.penalty_due::text, 'principal_paid', i.principal_paid::text, 'interest_paid', i.interest_paid::text,
            'penalty_paid', i.penalty_paid::text, 'penalty_through', i.penalty_through) ORDER BY i.number)
          FROM loan_installments i WHERE i.loan_id = l.id AND i.paid_on IS NULL), '[]'))
      INTO found
      FROM loans l JOIN loan_products p ON p.id = l.product_id JOIN enterprise_configurations c ON c.enterprise_id = l.enterprise_id
      WHERE l.id = wanted_loan;
      RETURN found;
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION coopbank_loan_for_repayment(uuid, text)');
}
