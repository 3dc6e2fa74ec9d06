import * as yup from 'yup';
import { enterpriseFilter, isoDate } from '../common.schemas';
import { accountForChannel, amount, moneyResponse } from '../money.schemas';
import { paymentChannel, paymentReference } from '../members/member-payments.schemas';

/** What a record on a loan shows first (a repayment, a prepayment, a restructuring): where, and which loan. */
export const loanRecordFields = {
  id: yup.string().uuid().required(),
  enterprise: yup.string().uuid().required(),
  branch: yup.string().uuid().required(),
  loan: yup.string().uuid().required(),
  loan_number: yup.string().required(),
};

/** What a repayment and a recovery show first: money paid on a loan, where and how much. */
export const loanMoneyFields = { ...loanRecordFields, amount: moneyResponse() };

/** The filters of their lists (visibleLoanMoney in loans.queries.ts applies them). */
export const loanMoneyFilters = {
  enterprise: enterpriseFilter,
  branch: yup.string().uuid().optional(),
  loan: yup.string().uuid().optional(),
  date_from: isoDate().optional(),
  date_to: isoDate().optional(),
};

/** Those fields of a row of one. */
export const loanRecordOf = (row: {
  id: string;
  enterprise_id: string;
  branch_id: string;
  loan_id: string;
  loan_number: string;
}) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  branch: row.branch_id,
  loan: row.loan_id,
  loan_number: row.loan_number,
});

/** Those fields of a row of either. */
export const loanMoneyOf = (row: Parameters<typeof loanRecordOf>[0] & { amount: string }) => ({
  ...loanRecordOf(row),
  amount: row.amount,
});

/** What a member pays on a loan at the counter (a recovery, a prepayment, a payoff): in cash or from an account. */
export const loanPaymentBody = {
  amount: amount().required(),
  channel: paymentChannel(),
  account: accountForChannel(),
  reference: paymentReference(),
};
