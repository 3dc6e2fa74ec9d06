import type { Knex } from 'knex';

/**
 * The PCEMF accounts of doubtful loans and their provisions by cover (docs/domain.md §2, §4; PCEMF 2010 accounts
 * 333/334/335 and 391/392/393): each loan keeps where its doubtful principal sits (3332, 3342 or 3352) and where
 * its provision sits (39100, 3921–3924 or 3931–3933). Loans doubtful or provisioned before sit where every one
 * did, 3352 and 3931: the next provisioning run moves them. The rule that moves a provision from one account to
 * another (provision_transfer, in the PRV journal) for the enterprises created before (later ones get it from the
 * fixture), and the repayment's read of its loan gives the doubtful loan's account. Values are written out here,
 * not read from code, so this migration means the same forever.
 */
const rule = { kind: 'provision_transfer', legs: [{ debit: { role: 'provisions' }, credit: { role: 'provisions_destination' } }] };

/** The repayment's read of its loan (as in 20261129900000_unearned_interest), with the doubtful account when `withDoubtfulAccount`. */
const loanForRepayment = (withDoubtfulAccount: boolean) => `
    CREATE OR REPLACE FUNCTION coopbank_loan_for_repayment(wanted_loan uuid, wanted_key text) RETURNS json LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      found json;
    BEGIN
      PERFORM 1 FROM loans l WHERE l.id = wanted_loan FOR UPDATE;
      SELECT json_build_object(
        'id', l.id, 'enterprise_id', l.enterprise_id, 'branch_id', l.branch_id, 'client_id', l.client_id, 'number', l.number,
        'status', l.status, 'classification', l.classification, 'penalty_rate', l.penalty_rate::text, 'outstanding_principal', l.outstanding_principal::text,
        ${withDoubtfulAccount ? `'doubtful_account_code', l.doubtful_account_code,` : ''}
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
    END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE loans ADD COLUMN doubtful_account_code text, ADD COLUMN provision_account_code text;
    UPDATE loans SET doubtful_account_code = '3352' WHERE classification = 'doubtful';
    UPDATE loans SET provision_account_code = '3931' WHERE provision_amount > 0;
    ALTER TABLE loans ADD CONSTRAINT loans_doubtful_account CHECK ((classification = 'doubtful') = (doubtful_account_code IS NOT NULL)),
      ADD CONSTRAINT loans_provision_account CHECK (provision_amount = 0 OR provision_account_code IS NOT NULL);
    UPDATE journals SET event_kinds = array_append(event_kinds, 'provision_transfer') WHERE code = 'PRV' AND NOT 'provision_transfer' = ANY (event_kinds);
  `);
  await knex.raw(
    `INSERT INTO accounting_rule_configs (enterprise_id, kind, version, legs, is_active, reason)
     SELECT e.id, ?, 1, ?::jsonb, true, 'default rule (fixtures/accounting-rules.json)'
     FROM enterprises e
     WHERE NOT EXISTS (SELECT 1 FROM accounting_rule_configs r WHERE r.enterprise_id = e.id AND r.kind = ?)`,
    [rule.kind, JSON.stringify(rule.legs), rule.kind],
  );
  await knex.raw(loanForRepayment(true));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(loanForRepayment(false));
  // Rules are append-only; undoing this migration is the one legitimate removal.
  await knex.raw('ALTER TABLE accounting_rule_configs DISABLE TRIGGER accounting_rule_configs_append_only');
  await knex('accounting_rule_configs').where({ kind: rule.kind }).delete();
  await knex.raw('ALTER TABLE accounting_rule_configs ENABLE TRIGGER accounting_rule_configs_append_only');
  await knex.raw(`
    UPDATE journals SET event_kinds = array_remove(event_kinds, 'provision_transfer') WHERE code = 'PRV';
    ALTER TABLE loans DROP CONSTRAINT loans_doubtful_account, DROP CONSTRAINT loans_provision_account, DROP COLUMN doubtful_account_code, DROP COLUMN provision_account_code;
  `);
}
