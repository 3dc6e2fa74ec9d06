import * as yup from 'yup';

/** Who handles money at the counter: disbursements and repayments. */
export const tellers = ['cashier', 'branch_head'] as const;

/** The member's account, required for the `account` channel and refused for `cash`. */
export const accountForChannel = () =>
  yup.string().uuid().when('channel', {
    is: 'account',
    then: (schema) => schema.required('account is required for the account channel'),
    otherwise: (schema) => schema.oneOf([undefined], 'account is only for the account channel'),
  });
