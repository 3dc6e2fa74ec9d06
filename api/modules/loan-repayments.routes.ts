import * as yup from 'yup';
import { recordRepayment, repaymentsQuery, type LoanRepaymentRow } from '../../activities/loans/repayments.activity';
import { NotFoundError } from '../../domain/errors';
import { parseAmount } from '../../domain/money';
import { requireRole, requireVisible, signedIn } from '../auth/access';
import { listQuerySchema, paginateRows, whereFilters } from '../pagination';
import { defineRoute } from '../route';
import { enterpriseFilter, idParams, isoDate } from './common.schemas';
import { scopeToVisible } from './enterprise-scope';
import { visibleLoan } from './loans.queries';
import { tellerAccount } from './member-accounts.queries';
import { accountForChannel, amountSchema, tellers } from './money.schemas';


function serializeRepayment(row: LoanRepaymentRow & { loan_number: string }) {
  const { request: _request, enterprise_id, branch_id, loan_id, account_id, created_at, ...rest } = row;
  return { ...rest, enterprise: enterprise_id, branch: branch_id, loan: loan_id, account: account_id, recorded_at: created_at.toISOString() };
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
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      loan: yup.string().uuid().optional(),
      date_from: isoDate().optional(),
      date_to: isoDate().optional(),
    }),
    errorStatuses: [401],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(repaymentsQuery(deps.knex), signedIn(principal), { enterprise: 'r.enterprise_id', branch: 'r.branch_id' }).orderBy([{ column: 'r.created_at', order: 'desc' }, { column: 'r.id' }]);
      whereFilters(rows, query, { enterprise: 'r.enterprise_id', branch: 'r.branch_id', loan: 'r.loan_id' });
      if (query.date_from !== undefined) rows.where('r.business_date', '>=', query.date_from);
      if (query.date_to !== undefined) rows.where('r.business_date', '<=', query.date_to);
      const page = await paginateRows<LoanRepaymentRow & { loan_number: string }>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serializeRepayment) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/repayments/',
    module: 'loans',
    operationId: 'recordLoanRepayment',
    summary: 'Record a repayment in cash or by debit of the member\'s account (cashier, branch head)',
    description:
      'Allocated oldest installment first: penalties, interest, principal. At most the installments due and the next one. Send an Idempotency-Key header: a retry answers the first result.',
    access: tellers,
    idempotent: true,
    status: 201,
    body: yup.object({
      loan: yup.string().uuid().required(),
      amount: amountSchema().required(),
      channel: yup.string().oneOf(['cash', 'account'] as const).default('cash'),
      account: accountForChannel(),
      date: isoDate().optional().meta({ description: 'Must be the business date when given.' }),
      reference: yup.string().trim().max(100).default(''),
    }),
    errorStatuses: [401, 403, 404, 409, 422],
    handler: async ({ body, principal, deps, ctx, idempotencyKey }) => {
      const actor = signedIn(principal);
      const loan = await visibleLoan(deps.knex, actor, body.loan);
      requireRole(actor, tellers, { enterpriseId: loan.enterpriseId, branchId: loan.branchId }, 'The loan');
      if (body.account !== undefined) await tellerAccount(deps.knex, actor, body.account);
      const { repayment, replayed } = await recordRepayment(deps.activities, actor, {
        loanId: loan.id,
        amount: parseAmount(body.amount)!,
        channel: body.channel,
        accountId: body.account ?? null,
        date: body.date ?? null,
        reference: body.reference,
        idempotencyKey,
      });
      if (replayed) ctx.set('Idempotent-Replayed', 'true');
      return serializeRepayment({ ...repayment, loan_number: loan.number });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/repayments/{id}/',
    module: 'loans',
    operationId: 'getLoanRepayment',
    summary: 'Repayment detail, with its allocation to installments',
    access: 'authenticated',
    params: idParams,
    errorStatuses: [401, 404],
    handler: async ({ params, principal, deps }) => {
      const row: (LoanRepaymentRow & { loan_number: string }) | undefined = await repaymentsQuery(deps.knex).where('r.id', params.id).first();
      if (row === undefined) throw new NotFoundError('The repayment');
      requireVisible(signedIn(principal), { enterpriseId: row.enterprise_id, branchId: row.branch_id }, 'The repayment');
      return serializeRepayment(row);
    },
  }),
];
