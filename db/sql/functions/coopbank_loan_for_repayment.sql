-- What a repayment reads of its loan, in one round trip (20261124010000_loan_for_repayment; unearned interest
-- 20261129900000; doubtful account 20261130000000; spread insurance 20261205600000): the loan locked, then its product's accounts, the enterprise's
-- business date and time zone, its open installments, and the earlier repayment of the same idempotency key.
-- NULL when there is no such loan. Two statements on purpose: in a volatile function each statement reads a fresh
-- snapshot, so the read that follows the lock sees everything committed by the repayment this one waited for.
-- Amounts leave as text (a JSON number would lose digits in JavaScript).
CREATE OR REPLACE FUNCTION public.coopbank_loan_for_repayment(wanted_loan uuid, wanted_key text)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
    DECLARE
      found json;
    BEGIN
      PERFORM 1 FROM loans l WHERE l.id = wanted_loan FOR UPDATE;
      SELECT json_build_object(
        'id', l.id, 'enterprise_id', l.enterprise_id, 'branch_id', l.branch_id, 'client_id', l.client_id, 'number', l.number,
        'status', l.status, 'classification', l.classification, 'penalty_rate', l.penalty_rate::text, 'outstanding_principal', l.outstanding_principal::text,
        'doubtful_account_code', l.doubtful_account_code,
        'portfolio_account_code', p.portfolio_account_code, 'interest_income_account_code', p.interest_income_account_code,
        'penalty_income_account_code', p.penalty_income_account_code,
        'business_date', c.business_date, 'time_zone', c.time_zone,
        'earlier_repayment_id', (SELECT r.id FROM loan_repayments r WHERE r.enterprise_id = l.enterprise_id AND r.idempotency_key = wanted_key),
        'installments', COALESCE((
          SELECT json_agg(json_build_object(
            'number', i.number, 'due_date', i.due_date, 'principal_due', i.principal_due::text, 'interest_due', i.interest_due::text,
            'penalty_due', i.penalty_due::text, 'principal_paid', i.principal_paid::text, 'interest_paid', i.interest_paid::text,
            'penalty_paid', i.penalty_paid::text, 'penalty_through', i.penalty_through, 'period_start', i.period_start,
            'insurance_due', i.insurance_due::text, 'insurance_paid', i.insurance_paid::text) ORDER BY i.number)
          FROM (SELECT j.*, COALESCE(lag(j.due_date) OVER (ORDER BY j.number), l.disbursed_on) AS period_start
                  FROM loan_installments j WHERE j.loan_id = l.id) i
          WHERE i.paid_on IS NULL), '[]'))
      INTO found
      FROM loans l JOIN loan_products p ON p.id = l.product_id JOIN enterprise_configurations c ON c.enterprise_id = l.enterprise_id
      WHERE l.id = wanted_loan;
      RETURN found;
    END $function$
