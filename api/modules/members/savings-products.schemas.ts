import * as yup from 'yup';
import {
  dayCounts,
  interestBases,
  interestPayments,
  postingFrequencies,
} from '../../../domain/members/savings-interest';
import { maturityInstructions } from '../../../domain/members/term-deposits';
import type { SavingsProduct } from '../../../db/models/savings-product.model';
import { timestampResponse } from '../common.schemas';
import { Money } from '../../../domain/money';
import { moneyResponse } from '../money.schemas';

export const kinds = ['demand_deposit', 'term_deposit', 'blocked_savings'] as const;

export const maturityInstructionText =
  "Term deposits (null for other kinds): at maturity, pay_out (capital and interest to the member's demand " +
  'account, the account closed), renew (the principal renewed for a new term of the same length from the ' +
  'maturity day, the interest paid out) or renew_with_interest (principal and interest renewed as the new ' +
  'principal; needs interest_payment at_maturity).';
export const earlyClosureRateText =
  'Term deposits (null for other kinds): the annual rate, a decimal string from 0 to interest_rate, a term ' +
  'closed before maturity earns from its first day instead of the contract rate; "0": no interest.';

/** A savings product as the API answers it. */
export const savingsProductSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    code: yup.string().required(),
    name: yup.string().required(),
    kind: yup.string().oneOf(kinds).required(),
    minimum_opening_balance: moneyResponse(),
    minimum_balance: moneyResponse(),
    withdrawals_allowed: yup.boolean().required(),
    interest_rate: yup.string().required().meta({ description: 'Annual rate as a decimal string ("0.035" = 3.5 %).' }),
    deposit_account_code: yup.string().required(),
    interest_basis: yup.string().oneOf(interestBases).required(),
    day_count: yup.string().oneOf(dayCounts).required(),
    posting_frequency: yup.string().oneOf(postingFrequencies).required(),
    withholding_tax_rate: yup
      .string()
      .required()
      .meta({ description: 'Share of the gross interest withheld for the State, a decimal string.' }),
    withholding_tax_account_code: yup.string().required(),
    interest_expense_account_code: yup.string().required(),
    interest_payment: yup
      .string()
      .oneOf(interestPayments)
      .required()
      .meta({
        description:
          'Where interest goes: to_account (the account itself), or for a term deposit at_maturity (accrued ' +
          "monthly, paid with the capital) or to_payout_account (each posting, to the member's demand " +
          'account): a term deposit never earns interest on its interest.',
      }),
    accrued_interest_account_code: yup
      .string()
      .required()
      .meta({
        description:
          'Interest owed and not yet paid at a month end (dettes rattachées): 36900 term, 35900 special ' +
          'savings, 37800 demand and books by default.',
      }),
    term_months: yup
      .number()
      .integer()
      .nullable()
      .defined()
      .meta({ description: 'Term deposits: months from opening to maturity; null for other kinds.' }),
    maturity_instruction: yup
      .string()
      .oneOf(maturityInstructions)
      .nullable()
      .defined()
      .meta({ description: maturityInstructionText }),
    early_closure_rate: yup.string().nullable().defined().meta({ description: earlyClosureRateText }),
    is_active: yup.boolean().required(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'SavingsProduct' });

export function serializeProduct(product: SavingsProduct) {
  return {
    id: product.id,
    enterprise: product.enterpriseId,
    code: product.code,
    name: product.name,
    kind: product.kind,
    minimum_opening_balance: product.minimumOpeningBalance,
    minimum_balance: product.minimumBalance,
    withdrawals_allowed: product.withdrawalsAllowed,
    interest_rate: product.interestRate,
    deposit_account_code: product.depositAccountCode,
    interest_basis: product.interestBasis,
    day_count: product.dayCount,
    posting_frequency: product.postingFrequency,
    withholding_tax_rate: product.withholdingTaxRate,
    withholding_tax_account_code: product.withholdingTaxAccountCode,
    interest_expense_account_code: product.interestExpenseAccountCode,
    accrued_interest_account_code: product.accruedInterestAccountCode,
    interest_payment: product.interestPayment,
    term_months: product.termMonths,
    maturity_instruction: product.maturityInstruction,
    early_closure_rate: product.earlyClosureRate === null ? null : new Money(product.earlyClosureRate).toString(),
    is_active: product.isActive,
    created_at: product.createdAt.toISOString(),
  };
}
