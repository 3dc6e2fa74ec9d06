import type { Knex } from 'knex';
import { addDefaultRules, applySqlSource, removeDefaultRules } from '../migration-helpers';

/**
 * Issue 30, credit insurance (docs/domain.md §14.6). A loan product may carry insurance: a premium (a rate of the
 * principal and a fixed amount) withheld at disbursement or spread over the installments. The application keeps the
 * premium quoted, the loan the premium and mode granted (a product changed later does not change it). The premium is
 * the insurer's: the new kinds post it to 461 Sociétés d'assurance et de capitalisation (role `insurance_payable`),
 * withheld at disbursement (`loan_insurance_premium`) or with each installment (`repayment_insurance`). A spread
 * premium's part rides on each installment (`insurance_due`, `insurance_paid`), which the repayment's read returns
 * (coopbank_loan_for_repayment applied again); a repayment keeps what it paid of it (`insurance`), in its parts' sum.
 */
const newRules = [
  { kind: 'loan_insurance_premium', legs: [{ debit: { role: 'cash' }, credit: { role: 'insurance_payable' } }] },
  { kind: 'repayment_insurance', legs: [{ debit: { role: 'cash' }, credit: { role: 'insurance_payable' } }] },
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE loan_products ADD COLUMN insurance_rate numeric(9, 6) NOT NULL DEFAULT 0,
      ADD COLUMN insurance_fixed numeric(20, 0) NOT NULL DEFAULT 0,
      ADD COLUMN insurance_collection varchar(10) NOT NULL DEFAULT 'withheld',
      ADD CONSTRAINT loan_products_insurance CHECK (insurance_rate >= 0 AND insurance_rate <= 1 AND insurance_fixed >= 0 AND insurance_collection IN ('withheld', 'spread'));
    ALTER TABLE loan_applications ADD COLUMN insurance_premium numeric(20, 0) NOT NULL DEFAULT 0 CONSTRAINT loan_applications_insurance_premium CHECK (insurance_premium >= 0);
    ALTER TABLE loans ADD COLUMN insurance_premium numeric(20, 0) NOT NULL DEFAULT 0,
      ADD COLUMN insurance_collection varchar(10) NOT NULL DEFAULT 'withheld',
      ADD CONSTRAINT loans_insurance CHECK (insurance_premium >= 0 AND insurance_collection IN ('withheld', 'spread'));
    ALTER TABLE loan_installments ADD COLUMN insurance_due numeric(20, 0) NOT NULL DEFAULT 0,
      ADD COLUMN insurance_paid numeric(20, 0) NOT NULL DEFAULT 0,
      ADD CONSTRAINT loan_installments_insurance_paid_within_due CHECK (insurance_paid >= 0 AND insurance_paid <= insurance_due);
    ALTER TABLE loan_repayments ADD COLUMN insurance numeric(20, 0) NOT NULL DEFAULT 0,
      DROP CONSTRAINT loan_repayments_parts_sum,
      ADD CONSTRAINT loan_repayments_parts_sum CHECK (amount > 0 AND amount = principal + interest + penalty + insurance AND principal >= 0 AND interest >= 0 AND penalty >= 0 AND insurance >= 0);
  `);
  await applySqlSource(knex, 'functions/coopbank_loan_for_repayment');
  await addDefaultRules(knex, newRules);
}

export async function down(knex: Knex): Promise<void> {
  await removeDefaultRules(knex, newRules);
  // The function's file reads the columns dropped below: it is the migrations' to restore, not this one's.
  await knex.raw(`
    ALTER TABLE loan_repayments DROP CONSTRAINT loan_repayments_parts_sum, DROP COLUMN insurance,
      ADD CONSTRAINT loan_repayments_parts_sum CHECK (amount > 0 AND amount = principal + interest + penalty AND principal >= 0 AND interest >= 0 AND penalty >= 0);
    ALTER TABLE loan_installments DROP COLUMN insurance_due, DROP COLUMN insurance_paid;
    ALTER TABLE loans DROP COLUMN insurance_premium, DROP COLUMN insurance_collection;
    ALTER TABLE loan_applications DROP COLUMN insurance_premium;
    ALTER TABLE loan_products DROP COLUMN insurance_rate, DROP COLUMN insurance_fixed, DROP COLUMN insurance_collection;
  `);
}
