import * as yup from 'yup';
import { dayCounts, interestBases } from '../../../domain/members/savings-interest';
import { maturityInstructions } from '../../../domain/members/term-deposits';
import { dateResponse, timestampResponse } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

/** Representations of the savings interest posted and of the term deposits matured (rows answered as they are read). */

const uuid = () => yup.string().uuid().required();

/** A posting of savings interest as an accountant checks it: the days and terms, the gross, the tax and the net. */
export const interestPostingSchema = yup
  .object({
    id: uuid(),
    enterprise: uuid(),
    branch: uuid(),
    account: uuid(),
    period_end: dateResponse().meta({
      description: 'The month end that posted it, or the maturity day of a term deposit (the date of its entries).',
    }),
    occasion: yup
      .string()
      .oneOf(['periodic', 'maturity'] as const)
      .required(),
    interest_from: dateResponse(),
    interest_to: dateResponse(),
    interest_basis: yup.string().oneOf(interestBases).required(),
    day_count: yup.string().oneOf(dayCounts).required(),
    interest_rate: yup.string().required(),
    withholding_tax_rate: yup.string().required(),
    gross: moneyResponse(),
    tax: moneyResponse(),
    net: moneyResponse(),
    interest_expense_account_code: yup.string().required(),
    withholding_tax_account_code: yup.string().required(),
    deposit_account_code: yup.string().required(),
    interest_event: uuid(),
    tax_event: uuid().nullable(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'SavingsInterestPosting' });

/** A term deposit that matured: what went to which demand account, or was renewed, on which day, by which month end. */
export const maturitySchema = yup
  .object({
    id: uuid(),
    enterprise: uuid(),
    account: uuid(),
    payout_account: uuid()
      .nullable()
      .meta({ description: 'The demand account paid; null when nothing was (a renewal with its interest).' }),
    maturity_date: dateResponse(),
    period_end: dateResponse().meta({ description: 'The month end that matured it.' }),
    instruction: yup
      .string()
      .oneOf(maturityInstructions)
      .required()
      .meta({ description: "The product's maturity instruction applied: pay_out, renew or renew_with_interest." }),
    amount: moneyResponse().meta({
      description:
        'Moved to the payout account: capital and final interest net of tax (pay_out), the interest only ' +
        '(renew), nothing (renew_with_interest).',
    }),
    renewed_principal: moneyResponse().nullable().meta({
      description:
        'A renewal: the principal of the new term (with the interest for renew_with_interest); null when paid out.',
    }),
    renewed_until: dateResponse()
      .nullable()
      .meta({ description: "A renewal: the new term's maturity; null when paid out." }),
    maturity_event: uuid().nullable(),
    payout_event: uuid().nullable(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'TermDepositMaturity' });
