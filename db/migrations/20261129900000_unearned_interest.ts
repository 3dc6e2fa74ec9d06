import type { Knex } from 'knex';
import { up as previousLoanForRepayment } from './20261124010000_loan_for_repayment';

/**
 * Interest paid before it is earned is income received in advance (docs/domain.md §3, §8): a repayment credits
 * the part of an installment's interest not yet earned at its date to produits perçus d'avance (PCEMF 47220), and
 * each month end moves what has been earned since to interest income. Each installment keeps what of its paid
 * interest is still unearned (`interest_unearned`, the installment's share of 47220); the repayment's read gives
 * each open installment the day its period began (the previous due date, or the disbursement); the rules of the two
 * new kinds for the enterprises created before (later ones get them from the fixture), and the journal of the
 * month end's recognition. Values are written out here, not read from code, so this migration means the same forever.
 */
const role = (name: string) => ({ role: name });
const newRules = [
  { kind: 'repayment_interest_unearned', legs: [{ debit: role('cash'), credit: role('unearned_interest') }] },
  { kind: 'unearned_interest_recognition', legs: [{ debit: role('unearned_interest'), credit: role('interest_income') }] },
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE loan_installments ADD COLUMN interest_unearned numeric(20, 0) NOT NULL DEFAULT 0,
      ADD CONSTRAINT loan_installments_interest_unearned_range CHECK (interest_unearned >= 0 AND interest_unearned <= interest_paid);
    CREATE INDEX loan_installments_unearned ON loan_installments (loan_id) WHERE interest_unearned > 0;
    UPDATE journals SET event_kinds = array_append(event_kinds, 'unearned_interest_recognition') WHERE code = 'INT';
  `);
  for (const rule of newRules) {
    await knex.raw(
      `INSERT INTO accounting_rule_configs (enterprise_id, kind, version, legs, is_active, reason)
       SELECT e.id, ?, 1, ?::jsonb, true, 'default rule (fixtures/accounting-rules.json)'
       FROM enterprises e
       WHERE NOT EXISTS (SELECT 1 FROM accounting_rule_configs r WHERE r.enterprise_id = e.id AND r.kind = ?)`,
      [rule.kind, JSON.stringify(rule.legs), rule.kind],
    );
  }
  // As before (see 20261124010000_loan_for_repayment), with each open installment's period start.
  await knex.raw(`
    CREATE OR REPLACE FUNCTION coopbank_loan_for_repayment(wanted_loan uuid, wanted_key text) RETURNS json LANGUAGE plpgsql VOLATILE AS $$
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
            'penalty_paid', i.penalty_paid::text, 'penalty_through', i.penalty_through, 'period_start', i.period_start) ORDER BY i.number)
          FROM (SELECT j.*, COALESCE(lag(j.due_date) OVER (ORDER BY j.number), l.disbursed_on) AS period_start
                  FROM loan_installments j WHERE j.loan_id = l.id) i
          WHERE i.paid_on IS NULL), '[]'))
      INTO found
      FROM loans l JOIN loan_products p ON p.id = l.product_id JOIN enterprise_configurations c ON c.enterprise_id = l.enterprise_id
      WHERE l.id = wanted_loan;
      RETURN found;
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION coopbank_loan_for_repayment(uuid, text)');
  await previousLoanForRepayment(knex);
  // Rules are append-only; undoing this migration is the one legitimate removal.
  await knex.raw('ALTER TABLE accounting_rule_configs DISABLE TRIGGER accounting_rule_configs_append_only');
  await knex('accounting_rule_configs').whereIn('kind', newRules.map((rule) => rule.kind)).delete();
  await knex.raw('ALTER TABLE accounting_rule_configs ENABLE TRIGGER accounting_rule_configs_append_only');
  await knex.raw(`
    UPDATE journals SET event_kinds = array_remove(event_kinds, 'unearned_interest_recognition') WHERE code = 'INT';
    ALTER TABLE loan_installments DROP COLUMN interest_unearned;
  `);
}
