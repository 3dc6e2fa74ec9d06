import * as yup from 'yup';
import type { SchemaMeta } from '../json-schema';
import { amountMax, formatAmount, parseAmount } from '../../domain/money';

/**
 * An amount in whole francs, as a JSON string ("150000"): never a JSON number (floats have no place near
 * money), never decimals (XAF has no minor unit), positive and within bounds.
 */
export const amountSchema = () =>
  yup
    .string()
    .strict(true)
    .matches(/^\d+$/, '${path} must be a whole number of francs written as a string, e.g. "150000"')
    .test('positive', '${path} must be more than zero', (value) => value === undefined || !/^0+$/.test(value))
    .test('bounded', `\${path} must be at most ${formatAmount(amountMax)}`, (value) => value === undefined || !/^\d+$/.test(value) || /^0+$/.test(value) || parseAmount(value) !== undefined)
    .meta({ description: 'Whole francs (XAF) as a string.', example: '150000' });

/** An amount as answered: whole francs as a string, negative for a debit balance (the `Money` component). */
export const moneyResponse = () =>
  yup
    .string()
    .required()
    .matches(/^-?\d+$/)
    .meta({ component: 'Money', description: 'Whole francs (XAF) as a string; XAF has no minor unit.', example: '150000' } satisfies SchemaMeta);

/** A money amount that may be zero (minimums of a product). */
export const amountOrZeroSchema = () =>
  yup
    .string()
    .strict(true)
    .matches(/^\d{1,15}$/, '${path} must be a whole number of francs written as a string, at most 15 digits');

/** Who handles money at the counter: cash operations, disbursements, repayments, share payments and refunds. */
export const tellers = ['cashier', 'branch_head'] as const;

/** The member's account, required for the `account` channel and refused for `cash`. */
export const accountForChannel = () =>
  yup.string().uuid().when('channel', {
    is: 'account',
    then: (schema) => schema.required('account is required for the account channel'),
    otherwise: (schema) => schema.oneOf([undefined], 'account is only for the account channel'),
  });
