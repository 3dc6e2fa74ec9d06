import * as yup from 'yup';
import type { SchemaMeta } from '../json-schema';
import { amountMax, formatAmount, Money, parseAmount } from '../../domain/money';

const wholeFrancs = /^\d+$/;
const notWholeFrancs = '${path} must be a whole number of francs written as a string, e.g. "150000"';
const notPositive = '${path} must be more than zero';
const outOfBounds = `\${path} must be at most ${formatAmount(amountMax)}`;
const amountMeta = { description: 'Whole francs (XAF) as a string.', example: '150000' };

/**
 * An amount in whole francs, as a JSON string ("150000"): never a JSON number (floats have no place near
 * money), never decimals (XAF has no minor unit), positive and within bounds.
 */
export const amountSchema = () =>
  yup
    .string()
    .strict(true)
    .matches(wholeFrancs, notWholeFrancs)
    .test('positive', notPositive, (value) => value === undefined || !/^0+$/.test(value))
    .test(
      'bounded',
      outOfBounds,
      (value) =>
        value === undefined || !wholeFrancs.test(value) || /^0+$/.test(value) || parseAmount(value) !== undefined,
    )
    .meta(amountMeta);

/**
 * The same amount, handed to the handler as Money once valid (no `parseAmount(x)!` in handlers). A mixed schema
 * of type `string`, its pattern test named `matches`: its JSON Schema is amountSchema's, so the OpenAPI document
 * and the generated clients do not change. The text is converted while yup casts, before its tests, which
 * therefore check the request's own text (`originalValue`) where the Money no longer shows it (leading zeros).
 */
export const amount = () =>
  yup
    .mixed<Money>({ type: 'string', check: (value): value is Money => Money.isDecimal(value) })
    .transform((value: unknown) => (typeof value === 'string' && wholeFrancs.test(value) ? new Money(value) : value))
    .typeError(notWholeFrancs)
    .test({
      name: 'matches',
      params: { regex: wholeFrancs },
      message: notWholeFrancs,
      test: (value, context) => value === undefined || wholeFrancs.test(String(context.originalValue)),
    })
    .test('positive', notPositive, (value) => value === undefined || !value.isZero())
    .test(
      'bounded',
      outOfBounds,
      (value, context) =>
        value === undefined || value.isZero() || parseAmount(String(context.originalValue)) !== undefined,
    )
    .meta(amountMeta);

/** An amount as answered: whole francs as a string, negative for a debit balance (the `Money` component). */
export const moneyResponse = () =>
  yup
    .string()
    .required()
    .matches(/^-?\d+$/)
    .meta({
      component: 'Money',
      description: 'Whole francs (XAF) as a string; XAF has no minor unit.',
      example: '150000',
    } satisfies SchemaMeta);

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
  yup
    .string()
    .uuid()
    .when('channel', {
      is: 'account',
      then: (schema) => schema.required('account is required for the account channel'),
      otherwise: (schema) => schema.oneOf([undefined], 'account is only for the account channel'),
    });
