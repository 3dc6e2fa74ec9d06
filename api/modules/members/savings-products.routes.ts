import * as yup from 'yup';
import {
  createSavingsProduct,
  updateSavingsProduct,
  type InterestSettings,
  type ProductFields,
  type TermSettings,
} from '../../../activities/members/savings-products.activity';
import {
  dayCounts,
  interestBases,
  interestPayments,
  postingFrequencies,
  type DayCount,
  type InterestBasis,
  type PostingFrequency,
} from '../../../domain/members/savings-interest';
import { maturityInstructions, type MaturityInstruction } from '../../../domain/members/term-deposits';
import { productRates, savingsProductsQuery } from '../../../activities/members/savings-products.queries';
import { listQuerySchema, pageSchema, paginate } from '../../pagination';
import { defineRoute } from '../../route';
import {
  accountCodeSchema,
  codeSchema,
  dateResponse,
  enterpriseFilter,
  idParams,
  isoDate,
  rateSchema,
  timestampResponse,
} from '../common.schemas';
import { Money } from '../../../domain/money';
import { byCodeOrName, visibleRows } from '../list-rows';
import { amountOrZeroSchema } from '../money.schemas';
import { memberLoaders } from './members.queries';
import { accountChoiceRefusals } from '../refusal-lists';

import {
  earlyClosureRateText,
  kinds,
  maturityInstructionText,
  savingsProductSchema,
  serializeProduct,
} from './savings-products.schemas';

const writers = ['direction', 'admin'] as const;

/** The interest settings of docs/domain.md §9, as a POST gives them (defaults) or a PATCH changes them (optional). */
const interestFields = {
  interest_basis: yup.string().oneOf(interestBases),
  day_count: yup.string().oneOf(dayCounts),
  posting_frequency: yup.string().oneOf(postingFrequencies),
  withholding_tax_rate: rateSchema(),
  withholding_tax_account_code: accountCodeSchema(),
  interest_expense_account_code: accountCodeSchema(),
  accrued_interest_account_code: accountCodeSchema(),
  interest_payment: yup.string().oneOf(interestPayments),
  maturity_instruction: yup.string().oneOf(maturityInstructions),
  early_closure_rate: rateSchema(),
};
/** The interest settings and term of a body, in the activity's terms (absent ones left out: defaults or unchanged). */
function interestSettingsOf(body: InterestBody): Partial<InterestSettings & TermSettings> & { termMonths?: number } {
  return {
    interestBasis: body.interest_basis,
    dayCount: body.day_count,
    postingFrequency: body.posting_frequency,
    withholdingTaxRate: body.withholding_tax_rate,
    withholdingTaxAccountCode: body.withholding_tax_account_code,
    interestExpenseAccountCode: body.interest_expense_account_code,
    accruedInterestAccountCode: body.accrued_interest_account_code,
    interestPayment: body.interest_payment,
    termMonths: body.term_months,
    maturityInstruction: body.maturity_instruction,
    earlyClosureRate: body.early_closure_rate,
  };
}

interface InterestBody {
  interest_basis?: InterestBasis;
  day_count?: DayCount;
  posting_frequency?: PostingFrequency;
  withholding_tax_rate?: string;
  withholding_tax_account_code?: string;
  interest_expense_account_code?: string;
  accrued_interest_account_code?: string;
  interest_payment?: (typeof interestPayments)[number];
  term_months?: number;
  maturity_instruction?: MaturityInstruction;
  early_closure_rate?: string;
}

const termMonthsSchema = () => yup.number().strict(true).integer().min(1).max(120);

/** A setting of term deposits only: optional for them, refused on another kind. */
const termOnly = <S extends yup.StringSchema<string | undefined>>(schema: S, field: string): S =>
  schema.optional().when('kind', {
    is: 'term_deposit',
    then: (kept) => kept,
    otherwise: (kept) => kept.test('term-only', `${field} is only for a term deposit`, (value) => value === undefined),
  }) as S;

/** Savings products: what a member's account is opened under, and which chart account holds its deposits. */
export const savingsProductRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/members/products/',
    module: 'members',
    operationId: 'listSavingsProducts',
    summary: 'List savings products',
    access: 'authenticated',
    query: listQuerySchema(['code', 'name'], {
      enterprise: enterpriseFilter,
      kind: yup.string().oneOf(kinds).optional(),
      is_active: yup.boolean().optional(),
    }),
    errorStatuses: [401],
    response: pageSchema(savingsProductSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = visibleRows(savingsProductsQuery(deps.knex), principal, query, {
        enterprise: 'enterprise_id',
        kind: 'kind',
        is_active: 'is_active',
      });
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        ...byCodeOrName,
      });
      return { ...page, results: page.results.map(serializeProduct) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/members/products/',
    module: 'members',
    operationId: 'createSavingsProduct',
    summary: 'Create a savings product (direction, administrators)',
    access: writers,
    status: 201,
    location: '/api/v1/members/products/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      code: codeSchema(20),
      name: yup.string().trim().required().min(2).max(200),
      kind: yup.string().oneOf(kinds).required(),
      minimum_opening_balance: amountOrZeroSchema().default('0'),
      minimum_balance: amountOrZeroSchema().default('0'),
      withdrawals_allowed: yup.boolean().default(true),
      interest_rate: rateSchema().default('0'),
      deposit_account_code: accountCodeSchema().required(),
      interest_basis: interestFields.interest_basis
        .optional()
        .meta({ description: 'Default minimum_monthly_balance.' }),
      day_count: interestFields.day_count.optional().meta({ description: 'Default 30_360.' }),
      posting_frequency: interestFields.posting_frequency.optional().meta({ description: 'Default monthly.' }),
      withholding_tax_rate: interestFields.withholding_tax_rate.optional().meta({ description: 'Default "0".' }),
      withholding_tax_account_code: interestFields.withholding_tax_account_code
        .optional()
        .meta({ description: 'Default 4302 (État, autres impôts et taxes).' }),
      interest_expense_account_code: interestFields.interest_expense_account_code.optional().meta({
        description: 'Default by the deposit account: 612 (36), 613 (373), 6115 (35), 614 (other 37), else 619.',
      }),
      accrued_interest_account_code: interestFields.accrued_interest_account_code
        .optional()
        .meta({ description: 'Default by the deposit account: 36900 (36), 35900 (35), else 37800.' }),
      interest_payment: interestFields.interest_payment
        .optional()
        .meta({ description: 'Default: at_maturity for a term deposit, to_account otherwise.' }),
      term_months: termMonthsSchema().when('kind', {
        is: 'term_deposit',
        then: (schema) => schema.required('term_months is required for a term deposit'),
        otherwise: (schema) => schema.oneOf([undefined], 'term_months is only for a term deposit'),
      }),
      maturity_instruction: termOnly(interestFields.maturity_instruction, 'maturity_instruction').meta({
        description: `${maturityInstructionText} Default pay_out.`,
      }),
      early_closure_rate: termOnly(interestFields.early_closure_rate, 'early_closure_rate').meta({
        description: `${earlyClosureRateText} Default "0".`,
      }),
    }),
    errorStatuses: [401, 403, 404, 409, 422],
    response: savingsProductSchema,
    refusals: [...accountChoiceRefusals, 'product_code_taken'],
    handler: async ({ body, principal: actor, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise }, 'The enterprise');
      const fields: ProductFields & Partial<InterestSettings> = {
        code: body.code,
        name: body.name,
        kind: body.kind,
        minimumOpeningBalance: body.minimum_opening_balance,
        minimumBalance: body.minimum_balance,
        withdrawalsAllowed: body.withdrawals_allowed,
        interestRate: body.interest_rate,
        depositAccountCode: body.deposit_account_code,
        ...interestSettingsOf(body),
      };
      return serializeProduct(await createSavingsProduct(deps.activities, actor, body.enterprise, fields));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/members/products/{id}/',
    module: 'members',
    operationId: 'getSavingsProduct',
    summary: 'Savings product detail',
    access: 'authenticated',
    load: memberLoaders.product,
    params: idParams,
    errorStatuses: [401, 404],
    response: savingsProductSchema,
    handler: ({ resource }) => serializeProduct(resource),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/members/products/{id}/',
    module: 'members',
    operationId: 'updateSavingsProduct',
    summary: 'Modify or deactivate a savings product (direction, administrators); code and kind never change',
    access: writers,
    load: memberLoaders.product,
    params: idParams,
    body: yup.object({
      name: yup.string().trim().min(2).max(200).optional(),
      minimum_opening_balance: amountOrZeroSchema().optional(),
      minimum_balance: amountOrZeroSchema().optional(),
      withdrawals_allowed: yup.boolean().optional(),
      interest_rate: rateSchema().optional(),
      interest_rate_from: isoDate()
        .optional()
        .meta({
          description:
            'The day a new interest_rate applies from (default: the business date); after the last day of ' +
            'interest already paid.',
        }),
      deposit_account_code: accountCodeSchema().optional(),
      interest_basis: interestFields.interest_basis.optional(),
      day_count: interestFields.day_count.optional(),
      posting_frequency: interestFields.posting_frequency.optional(),
      withholding_tax_rate: interestFields.withholding_tax_rate.optional(),
      withholding_tax_account_code: interestFields.withholding_tax_account_code.optional(),
      interest_expense_account_code: interestFields.interest_expense_account_code.optional(),
      accrued_interest_account_code: interestFields.accrued_interest_account_code.optional(),
      interest_payment: interestFields.interest_payment.optional(),
      term_months: termMonthsSchema()
        .optional()
        .meta({ description: 'Term deposits only; the accounts opened after take it.' }),
      maturity_instruction: interestFields.maturity_instruction
        .optional()
        .meta({ description: 'Term deposits only; applies from the next maturity of each account.' }),
      early_closure_rate: interestFields.early_closure_rate
        .optional()
        .meta({ description: 'Term deposits only; from 0 to interest_rate; applies to the closures after.' }),
      is_active: yup.boolean().optional(),
    }),
    errorStatuses: [401, 403, 404, 409, 422],
    response: savingsProductSchema,
    refusals: [
      ...accountChoiceRefusals,
      'product_has_accounts',
      'rate_change_in_paid_period',
      'rate_change_not_after_latest',
    ],
    handler: async ({ resource: product, body, principal: actor, deps }) => {
      const updated = await updateSavingsProduct(deps.activities, actor, product.id, {
        name: body.name,
        minimumOpeningBalance: body.minimum_opening_balance,
        minimumBalance: body.minimum_balance,
        withdrawalsAllowed: body.withdrawals_allowed,
        interestRate: body.interest_rate,
        interestRateFrom: body.interest_rate_from,
        depositAccountCode: body.deposit_account_code,
        ...interestSettingsOf(body),
        isActive: body.is_active,
      });
      return serializeProduct(updated);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/members/products/{id}/interest-rates/',
    module: 'members',
    operationId: 'listSavingsProductRates',
    summary: "The history of a savings product's interest rate: each rate and the day it applies from, oldest first",
    description:
      'Interest is computed day by day at the rate in force (docs/domain.md §9); the first rate holds from ' +
      'before any account.',
    access: 'authenticated',
    load: memberLoaders.product,
    params: idParams,
    errorStatuses: [401, 404],
    response: yup
      .object({
        product: yup.string().uuid().required(),
        rates: yup
          .array(
            yup
              .object({
                effective_from: dateResponse(),
                annual_rate: yup.string().required(),
                reason: yup.string().required(),
                created_at: timestampResponse(),
              })
              .meta({ component: 'SavingsProductRate' }),
          )
          .required(),
      })
      .meta({ component: 'SavingsProductRates' }),
    handler: async ({ resource: product, deps }) => {
      const rates = (await productRates(deps.knex, product.id)).map((row) => ({
        ...row,
        annual_rate: new Money(row.annual_rate).toString(),
        created_at: row.created_at.toISOString(),
      }));
      return { product: product.id, rates };
    },
  }),
];
