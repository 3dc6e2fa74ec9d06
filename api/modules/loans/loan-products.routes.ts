import * as yup from 'yup';
import {
  createLoanProduct,
  updateLoanProduct,
  type LoanProductChanges,
} from '../../../activities/loans/loan-products.activity';
import { simulateForProduct } from '../../../activities/loans/loan-applications.activity';
import { insuranceCollections } from '../../../domain/loans/loan-product';
import { prepaymentStrategies } from '../../../domain/loans/prepayment';
import { formatAmount } from '../../../domain/money';
import { LoanProduct } from '../../../db/models/loan-product.model';
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
import { byCodeOrName, visibleRows } from '../list-rows';
import { amount, amountSchema, moneyResponse } from '../money.schemas';
import { loanLoaders } from './loans.queries';
import { accountChoiceRefusals } from '../refusal-lists';

const methods = ['constant_annuity', 'constant_principal'] as const;
const frequencies = ['monthly', 'quarterly', 'weekly'] as const;
const termCategories = ['cta', 'mlt'] as const;
const termPeriodsSchema = () => yup.number().strict(true).integer().min(1).max(600);
const wholeFrancs = () =>
  yup
    .string()
    .strict(true)
    .matches(/^\d{1,15}$/, '${path} must be a whole number of francs written as a string');
const rateResponse = (description: string) => yup.string().required().meta({ description, example: '0.180000' });

const loanProductSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    code: yup.string().required(),
    name: yup.string().required(),
    term_category: yup
      .string()
      .oneOf(termCategories)
      .required()
      .meta({ description: 'CTA: terms up to 24 months; MLT: beyond.' }),
    method: yup.string().oneOf(methods).required(),
    frequency: yup.string().oneOf(frequencies).required(),
    day_count: yup.string().oneOf(['30/360']).required(),
    annual_rate: rateResponse('Annual interest rate, a decimal ("0.18" = 18 %).'),
    min_amount: moneyResponse(),
    max_amount: moneyResponse(),
    min_term_periods: yup.number().integer().required(),
    max_term_periods: yup.number().integer().required(),
    max_grace_periods: yup.number().integer().required(),
    fee_rate: rateResponse('Fee withheld at disbursement, a decimal share of the principal.'),
    fee_fixed: moneyResponse(),
    penalty_rate: rateResponse('Annual rate on late amounts, actual/365.'),
    real_estate: yup.boolean().required(),
    portfolio_account_code: yup.string().required(),
    interest_income_account_code: yup.string().required(),
    fee_income_account_code: yup.string().required(),
    penalty_income_account_code: yup.string().required(),
    accrued_interest_account_code: yup
      .string()
      .required()
      .meta({
        description:
          'Interest earned and not yet due at a month end (créances ' +
          'rattachées): 3291 short term, 319 medium term by default.',
      }),
    insurance_rate: rateResponse('Credit insurance premium, a decimal share of the principal (docs/domain.md §14.6).'),
    insurance_fixed: moneyResponse(),
    insurance_collection: yup
      .string()
      .oneOf(insuranceCollections)
      .required()
      .meta({ description: 'withheld at disbursement, or spread over the installments.' }),
    prepayment_strategy: yup.string().oneOf(prepaymentStrategies).required().meta({
      description:
        'What a partial prepayment does unless the request says: shorten the term or lower the installments.',
    }),
    prepayment_fee_rate: rateResponse('Early-repayment fee, a decimal share of the principal prepaid.'),
    prepayment_fee_minimum: moneyResponse().meta({
      description: 'The least early-repayment fee, when any principal is prepaid.',
    }),
    is_active: yup.boolean().required(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'LoanProduct' });

const simulatedInstallmentSchema = yup
  .object({
    number: yup.number().integer().required(),
    due_date: dateResponse(),
    principal: moneyResponse(),
    interest: moneyResponse(),
    insurance: moneyResponse().meta({ description: "The installment's part of a spread insurance premium." }),
    total: moneyResponse(),
    outstanding_after: moneyResponse(),
  })
  .meta({ component: 'SimulatedInstallment' });

const loanSimulationSchema = yup
  .object({
    product: yup.string().uuid().required(),
    amount: moneyResponse(),
    term_periods: yup.number().integer().required(),
    grace_periods: yup.number().integer().required(),
    start_date: dateResponse().meta({ description: 'Disbursement date.' }),
    first_due_date: dateResponse(),
    fees: moneyResponse(),
    insurance_premium: moneyResponse(),
    insurance_collection: yup.string().oneOf(insuranceCollections).required(),
    teg: yup.string().required().meta({
      description: 'TEG (effective global rate, insurance included), percent with two decimals.',
      example: '21.47',
    }),
    total_interest: moneyResponse(),
    installments: yup.array(simulatedInstallmentSchema).required(),
  })
  .meta({ component: 'LoanSimulation' });

function serializeLoanProduct(product: LoanProduct) {
  return {
    id: product.id,
    enterprise: product.enterpriseId,
    code: product.code,
    name: product.name,
    term_category: product.termCategory,
    method: product.method,
    frequency: product.frequency,
    day_count: product.dayCount,
    annual_rate: product.annualRate,
    min_amount: product.minAmount,
    max_amount: product.maxAmount,
    min_term_periods: product.minTermPeriods,
    max_term_periods: product.maxTermPeriods,
    max_grace_periods: product.maxGracePeriods,
    fee_rate: product.feeRate,
    fee_fixed: product.feeFixed,
    penalty_rate: product.penaltyRate,
    real_estate: product.realEstate,
    portfolio_account_code: product.portfolioAccountCode,
    interest_income_account_code: product.interestIncomeAccountCode,
    fee_income_account_code: product.feeIncomeAccountCode,
    penalty_income_account_code: product.penaltyIncomeAccountCode,
    accrued_interest_account_code: product.accruedInterestAccountCode,
    insurance_rate: product.insuranceRate,
    insurance_fixed: product.insuranceFixed,
    insurance_collection: product.insuranceCollection,
    prepayment_strategy: product.prepaymentStrategy,
    prepayment_fee_rate: product.prepaymentFeeRate,
    prepayment_fee_minimum: product.prepaymentFeeMinimum,
    is_active: product.isActive,
    created_at: product.createdAt.toISOString(),
  };
}

const writers = ['direction', 'admin'] as const;

const changeableFields = {
  name: yup.string().trim().min(2).max(200),
  method: yup.string().oneOf(methods),
  frequency: yup.string().oneOf(frequencies),
  annual_rate: rateSchema(),
  min_amount: amountSchema(),
  max_amount: amountSchema(),
  min_term_periods: termPeriodsSchema(),
  max_term_periods: termPeriodsSchema(),
  max_grace_periods: yup.number().strict(true).integer().min(0).max(599),
  fee_rate: rateSchema(),
  fee_fixed: wholeFrancs(),
  penalty_rate: rateSchema().meta({ description: 'Annual rate on late amounts, actual/365.' }),
  real_estate: yup.boolean(),
  portfolio_account_code: accountCodeSchema(),
  interest_income_account_code: accountCodeSchema(),
  fee_income_account_code: accountCodeSchema(),
  penalty_income_account_code: accountCodeSchema(),
  accrued_interest_account_code: accountCodeSchema(),
  insurance_rate: rateSchema().meta({ description: 'Credit insurance premium, a decimal share of the principal.' }),
  insurance_fixed: wholeFrancs(),
  insurance_collection: yup.string().oneOf(insuranceCollections),
  prepayment_strategy: yup.string().oneOf(prepaymentStrategies),
  prepayment_fee_rate: rateSchema().meta({
    description: 'Early-repayment fee, a decimal share of the principal prepaid.',
  }),
  prepayment_fee_minimum: wholeFrancs().meta({ description: 'The least early-repayment fee.' }),
};

type ChangeableBody = { [K in keyof typeof changeableFields]?: yup.InferType<(typeof changeableFields)[K]> };

function productChanges(body: ChangeableBody): Omit<LoanProductChanges, 'isActive'> {
  return {
    name: body.name,
    method: body.method,
    frequency: body.frequency,
    annualRate: body.annual_rate,
    minAmount: body.min_amount,
    maxAmount: body.max_amount,
    minTermPeriods: body.min_term_periods,
    maxTermPeriods: body.max_term_periods,
    maxGracePeriods: body.max_grace_periods,
    feeRate: body.fee_rate,
    feeFixed: body.fee_fixed,
    penaltyRate: body.penalty_rate,
    realEstate: body.real_estate,
    portfolioAccountCode: body.portfolio_account_code,
    interestIncomeAccountCode: body.interest_income_account_code,
    feeIncomeAccountCode: body.fee_income_account_code,
    penaltyIncomeAccountCode: body.penalty_income_account_code,
    accruedInterestAccountCode: body.accrued_interest_account_code,
    insuranceRate: body.insurance_rate,
    insuranceFixed: body.insurance_fixed,
    insuranceCollection: body.insurance_collection,
    prepaymentStrategy: body.prepayment_strategy,
    prepaymentFeeRate: body.prepayment_fee_rate,
    prepaymentFeeMinimum: body.prepayment_fee_minimum,
  };
}

/** Loan products: pricing, bounds, schedule method and accounts; and the schedule simulation. */
export const loanProductRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/products/',
    module: 'loans',
    operationId: 'listLoanProducts',
    summary: 'List loan products',
    access: 'authenticated',
    query: listQuerySchema(['code', 'name'], {
      enterprise: enterpriseFilter,
      term_category: yup.string().oneOf(termCategories).optional(),
      is_active: yup.boolean().optional(),
    }),
    response: pageSchema(loanProductSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = visibleRows(LoanProduct.query(deps.knex), principal, query, {
        enterprise: 'enterprise_id',
        term_category: 'term_category',
        is_active: 'is_active',
      });
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        ...byCodeOrName,
      });
      return { ...page, results: page.results.map(serializeLoanProduct) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/products/',
    module: 'loans',
    operationId: 'createLoanProduct',
    summary: 'Create a loan product (direction, administrators)',
    description:
      'Accounts default by term category to the PCEMF accounts of ' +
      'docs/domain.md §2 (CTA: 3221, 713, 7153, 719; MLT: 3130, 712, 7152, 719).',
    access: writers,
    status: 201,
    location: '/api/v1/loans/products/{id}/',
    body: yup.object({
      ...changeableFields,
      enterprise: yup.string().uuid().required(),
      code: codeSchema(20),
      name: changeableFields.name.required(),
      term_category: yup
        .string()
        .oneOf(termCategories)
        .required()
        .meta({ description: 'CTA: terms up to 24 months; MLT: beyond.' }),
      method: changeableFields.method.required(),
      frequency: changeableFields.frequency.default('monthly'),
      annual_rate: changeableFields.annual_rate.required(),
      min_amount: changeableFields.min_amount.required(),
      max_amount: changeableFields.max_amount.required(),
      min_term_periods: changeableFields.min_term_periods.required(),
      max_term_periods: changeableFields.max_term_periods.required(),
      max_grace_periods: changeableFields.max_grace_periods.default(0),
      fee_rate: changeableFields.fee_rate.default('0'),
      fee_fixed: changeableFields.fee_fixed.default('0'),
      penalty_rate: changeableFields.penalty_rate.default('0'),
      real_estate: changeableFields.real_estate.default(false),
      insurance_rate: changeableFields.insurance_rate.default('0'),
      insurance_fixed: changeableFields.insurance_fixed.default('0'),
      insurance_collection: changeableFields.insurance_collection.default('withheld'),
      prepayment_strategy: changeableFields.prepayment_strategy.default('reduce_installment'),
      prepayment_fee_rate: changeableFields.prepayment_fee_rate.default('0'),
      prepayment_fee_minimum: changeableFields.prepayment_fee_minimum.default('0'),
    }),
    response: loanProductSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [...accountChoiceRefusals, 'product_code_taken', 'teg_above_usury_rate'],
    handler: async ({ body, principal: actor, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise }, 'The enterprise');
      const changes = productChanges(body);
      const product = await createLoanProduct(deps.activities, actor, body.enterprise, {
        ...(changes as Required<typeof changes>),
        code: body.code,
        termCategory: body.term_category,
        portfolioAccountCode: body.portfolio_account_code,
        interestIncomeAccountCode: body.interest_income_account_code,
        feeIncomeAccountCode: body.fee_income_account_code,
        penaltyIncomeAccountCode: body.penalty_income_account_code,
        accruedInterestAccountCode: body.accrued_interest_account_code,
      });
      return serializeLoanProduct(product);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/products/{id}/',
    module: 'loans',
    operationId: 'getLoanProduct',
    summary: 'Loan product detail',
    access: 'authenticated',
    load: loanLoaders.product,
    params: idParams,
    response: loanProductSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeLoanProduct(resource),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/loans/products/{id}/',
    module: 'loans',
    operationId: 'updateLoanProduct',
    summary: 'Modify or deactivate a loan product (direction, administrators); code and term category never change',
    description: 'Changes apply to later applications; granted loans keep their terms.',
    access: writers,
    load: loanLoaders.product,
    params: idParams,
    body: yup.object({ ...changeableFields, is_active: yup.boolean() }),
    response: loanProductSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [...accountChoiceRefusals, 'teg_above_usury_rate'],
    handler: async ({ resource: product, body, principal: actor, deps }) => {
      return serializeLoanProduct(
        await updateLoanProduct(deps.activities, actor, product.id, {
          ...productChanges(body),
          isActive: body.is_active,
        }),
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/products/{id}/simulation/',
    module: 'loans',
    operationId: 'simulateLoan',
    summary: 'Simulate a loan of this product: schedule, fees and TEG; nothing is created',
    access: 'authenticated',
    status: 200,
    load: loanLoaders.product,
    params: idParams,
    body: yup.object({
      amount: amount().required(),
      term_periods: termPeriodsSchema().required(),
      grace_periods: yup.number().strict(true).integer().min(0).max(599).default(0),
      start_date: isoDate().optional().meta({ description: 'Disbursement date; default: the business date.' }),
    }),
    response: loanSimulationSchema,
    errorStatuses: [401, 404, 422],
    refusals: ['amount_out_of_bounds', 'grace_periods_out_of_bounds', 'term_periods_out_of_bounds'],
    handler: async ({ resource: product, body, deps }) => {
      const requested = { amount: body.amount, termPeriods: body.term_periods, gracePeriods: body.grace_periods };
      const simulation = await simulateForProduct(deps.activities, product, requested, body.start_date);
      return {
        product: product.id,
        amount: formatAmount(body.amount),
        term_periods: body.term_periods,
        grace_periods: body.grace_periods,
        start_date: simulation.startDate,
        first_due_date: simulation.firstDueDate,
        fees: formatAmount(simulation.fees),
        insurance_premium: formatAmount(simulation.insurance.premium),
        insurance_collection: simulation.insurance.collection,
        teg: simulation.teg,
        total_interest: formatAmount(simulation.schedule.totalInterest),
        installments: simulation.schedule.installments.map((installment, index) => ({
          number: installment.number,
          due_date: installment.dueDate,
          principal: formatAmount(installment.principal),
          interest: formatAmount(installment.interest),
          insurance: formatAmount(simulation.insuranceParts[index]!),
          total: formatAmount(installment.total.plus(simulation.insuranceParts[index]!)),
          outstanding_after: formatAmount(installment.outstandingAfter),
        })),
      };
    },
  }),
];
