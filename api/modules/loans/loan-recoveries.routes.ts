import * as yup from 'yup';
import {
  recordRecovery,
  recoveriesQuery,
  type LoanRecoveryRow,
} from '../../../activities/loans/loan-recoveries.activity';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { dateResponse, idParams, timestampResponse, nullableId } from '../common.schemas';
import { memberLoaders } from '../members/members.queries';
import { tellers } from '../money.schemas';
import { postingRefusals } from '../refusal-lists';
import { loanMoneyFields, loanMoneyFilters, loanMoneyOf, loanPaymentBody } from './loan-money.schemas';
import { paymentOf } from '../members/member-payments.schemas';
import { loanLoaders, visibleLoanMoney } from './loans.queries';

const loanRecoverySchema = yup
  .object({
    ...loanMoneyFields,
    channel: yup
      .string()
      .oneOf(['cash', 'account'] as const)
      .required(),
    account: nullableId(),
    reference: yup.string().defined(),
    business_date: dateResponse(),
    event: yup
      .string()
      .uuid()
      .required()
      .meta({ description: 'The `loan_recovery` business event, whose entry credits 792.' }),
    recorded_by: yup.string().uuid().required(),
    recorded_at: timestampResponse(),
  })
  .meta({
    component: 'LoanRecovery',
    description: 'Money recovered on a written-off loan: income on 792 Récupération sur créances abandonnées.',
  });

const serializeRecovery = (row: LoanRecoveryRow) => ({
  ...loanMoneyOf(row),
  channel: row.channel,
  account: row.account_id,
  reference: row.reference,
  business_date: row.business_date,
  event: row.event_id,
  recorded_by: row.recorded_by,
  recorded_at: row.created_at.toISOString(),
});

/** Recoveries on written-off loans (issue 30, docs/domain.md §14.3): recorded at the counter, listed per loan. */
export const loanRecoveryRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/recoveries/',
    module: 'loans',
    operationId: 'listLoanRecoveries',
    summary: 'List recoveries on written-off loans, newest first',
    access: 'authenticated',
    query: listQuerySchema([], {
      ...loanMoneyFilters,
      channel: yup
        .string()
        .oneOf(['cash', 'account'] as const)
        .optional(),
    }),
    response: pageSchema(loanRecoverySchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleLoanMoney(recoveriesQuery(deps.knex), principal, query);
      whereFilters(rows, query, { channel: 'r.channel' });
      const page = await paginateRows<LoanRecoveryRow>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serializeRecovery) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/recoveries/{id}/',
    module: 'loans',
    operationId: 'getLoanRecovery',
    summary: 'Recovery detail',
    access: 'authenticated',
    load: loanLoaders.recovery,
    params: idParams,
    response: loanRecoverySchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeRecovery(resource),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/loans/{id}/recoveries/',
    module: 'loans',
    operationId: 'recordLoanRecovery',
    summary:
      "Record money recovered on a written-off loan, in cash or from the member's account (cashier, branch head)",
    description:
      'Income on 792 Récupération sur créances abandonnées; the loan stays ' +
      'written off. No second person: money comes in, as for a repayment. ' +
      'Send an Idempotency-Key header: a retry answers the first result.',
    access: tellers,
    idempotent: true,
    status: 201,
    location: '/api/v1/loans/recoveries/{id}/',
    load: loanLoaders.loan,
    params: idParams,
    body: yup.object(loanPaymentBody),
    response: loanRecoverySchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [...postingRefusals, 'idempotency_key_reused', 'insufficient_funds', 'loan_not_written_off'],
    handler: async ({ resource: loan, body, principal: actor, deps, ctx, idempotencyKey, load }) => {
      if (body.account !== undefined) await load(memberLoaders.tellerAccount, body.account);
      const { recovery: recorded, replayed } = await recordRecovery(deps.activities, actor, {
        loanId: loan.id,
        ...paymentOf(body),
        idempotencyKey,
      });
      if (replayed) ctx.set('Idempotent-Replayed', 'true');
      return serializeRecovery(recorded);
    },
  }),
];
