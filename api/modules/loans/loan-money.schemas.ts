import * as yup from 'yup';
import { enterpriseFilter, isoDate } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

/** What a repayment and a recovery show first: money paid on a loan, where and how much. */
export const loanMoneyFields = {
  id: yup.string().uuid().required(),
  enterprise: yup.string().uuid().required(),
  branch: yup.string().uuid().required(),
  loan: yup.string().uuid().required(),
  loan_number: yup.string().required(),
  amount: moneyResponse(),
};

/** The filters of their lists (visibleLoanMoney in loans.queries.ts applies them). */
export const loanMoneyFilters = {
  enterprise: enterpriseFilter,
  branch: yup.string().uuid().optional(),
  loan: yup.string().uuid().optional(),
  date_from: isoDate().optional(),
  date_to: isoDate().optional(),
};

/** Those fields of a row of either. */
export const loanMoneyOf = (row: {
  id: string;
  enterprise_id: string;
  branch_id: string;
  loan_id: string;
  loan_number: string;
  amount: string;
}) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  branch: row.branch_id,
  loan: row.loan_id,
  loan_number: row.loan_number,
  amount: row.amount,
});
