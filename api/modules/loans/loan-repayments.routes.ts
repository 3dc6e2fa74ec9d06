import * as yup from 'yup';
import {
  recordRepayment,
  repaymentsQuery,
  type LoanRepaymentDetail,
} from '../../../activities/loans/loan-repayments.activity';
import { listQuerySchema, pageSchema, paginateRows } from '../../pagination';
import { defineRoute } from '../../route';
import { dateResponse, idParams, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { memberLoaders } from '../members/members.queries';
import { accountForChannel, amount, moneyResponse, tellers } from '../money.schemas';
import { loanMoneyFields, loanMoneyFilters, loanMoneyOf } from './loan-money.schemas';
import { loanLoaders, visibleLoanMoney } from './loans.queries';
import { postingRefusals } from '../refusal-lists';
import { paymentChannel, paymentReference } from '../members/member-payments.schemas';

const allocationSchema = yup
  .object({
    number: yup.number().integer().required().meta({ description: 'The installment.' }),
    due_date: dateResponse(),
    penalty: moneyResponse(),
    insurance: moneyResponse()
      .optional()
      .meta({ description: 'Its part of a spread insurance premium (docs/domain.md §14.6); only when it paid some.' }),
    interest: moneyResponse(),
    principal: moneyResponse(),
  })
  .meta({ component: 'RepaymentAllocation' });

export const loanRepaymentSchema = yup
  .object({
    ...loanMoneyFields,
    principal: moneyResponse(),
    interest: moneyResponse(),
    penalty: moneyResponse(),
    insurance: moneyResponse().meta({ description: 'Paid of spread insurance premiums, for the insurer.' }),
    channel: yup
      .string()
      .oneOf(['cash', 'account', 'share_refund'] as const)
      .required()
      .meta({ description: 'share_refund: taken from a share refund owed to the member.' }),
    account: nullableId(),
    reference: yup.string().defined(),
    business_date: dateResponse(),
    allocations: yup
      .array(allocationSchema)
      .required()
      .meta({ description: 'Oldest installment first: penalties, insurance, interest, principal.' }),
    outstanding_after: moneyResponse(),
    recorded_by: yup.string().uuid().required(),
    recorded_at: timestampResponse(),
  })
  .meta({ component: 'LoanRepayment' });

export function serializeRepayment(row: LoanRepaymentDetail) {
  return {
    ...loanMoneyOf(row),
    principal: row.principal,
    interest: row.interest,
    penalty: row.penalty,
    insurance: row.insurance,
    channel: row.channel,
    account: row.account_id,
    reference: row.reference,
    business_date: row.business_date,
    allocations: row.allocations.map((allocation) => ({
      number: allocation.number,
      due_date: allocation.due_date,
      penalty: allocation.penalty,
      ...(allocation.insurance === undefined ? {} : { insurance: allocation.insurance }),
      interest: allocation.interest,
      principal: allocation.principal,
    })),
    outstanding_after: row.outstanding_after,
    recorded_by: row.recorded_by,
    recorded_at: row.created_at.toISOString(),
  };
}

/** Loan repayments: allocated oldest installment first, posted by component, idempotent by header. */
export const loanRepaymentRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/repayments/',
    module: 'loans',
    operationId: 'listLoanRepayments',
    summary: 'List repayments, newest first',
    access: 'authenticated',
    query: listQuerySchema([], loanMoneyFilters),
    response: pageSchema(loanRepaymentSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleLoanMoney(repaymentsQuery(deps.knex), principal, query);
      const page = await paginateRows<LoanRepaymentDetail>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serializeRepayment) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/repayments/',
    module: 'loans',
    operationId: 'recordLoanRepayment',
    summary: "Record a repayment in cash or by debit of the member's account (cashier, branch head)",
    description:
      'Allocated oldest installment first: penalties, interest, principal. At most the installments ' +
      'due and the next one. Send an Idempotency-Key header: a retry answers the first result.',
    access: tellers,
    idempotent: true,
    status: 201,
    location: '/api/v1/loans/repayments/{id}/',
    body: yup.object({
      loan: yup.string().uuid().required(),
      amount: amount().required(),
      channel: paymentChannel(),
      account: accountForChannel(),
      date: isoDate().optional().meta({ description: 'Must be the business date when given.' }),
      reference: paymentReference(),
    }),
    response: loanRepaymentSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      ...postingRefusals,
      'date_not_business_date',
      'exceeds_total_due',
      'idempotency_key_reused',
      'insufficient_funds',
      'loan_closed',
      'loan_not_disbursed',
      'loan_written_off',
    ],
    handler: async ({ body, principal: actor, deps, ctx, idempotencyKey, load }) => {
      if (body.account !== undefined) await load(memberLoaders.tellerAccount, body.account);
      await load(loanLoaders.loanScope, body.loan);
      const { repayment, replayed } = await recordRepayment(deps.activities, actor, {
        loanId: body.loan,
        amount: body.amount,
        channel: body.channel,
        accountId: body.account ?? null,
        date: body.date ?? null,
        reference: body.reference,
        idempotencyKey,
      });
      if (replayed) ctx.set('Idempotent-Replayed', 'true');
      return serializeRepayment(repayment);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/repayments/{id}/',
    module: 'loans',
    operationId: 'getLoanRepayment',
    summary: 'Repayment detail, with its allocation to installments',
    access: 'authenticated',
    load: loanLoaders.repayment,
    params: idParams,
    response: loanRepaymentSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeRepayment(resource),
  }),
];
