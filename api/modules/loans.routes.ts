import * as yup from 'yup';
import { disburseLoan } from '../../activities/loans/disbursement.activity';
import { readInstallments } from '../../activities/loans/installments';
import { positionOfLoan } from '../../activities/loans/loan-position.activity';
import { setLitigious, writeOffLoan } from '../../activities/loans/portfolio-quality.activity';
import { formatAmount } from '../../domain/money';
import { Loan } from '../../db/models/loan.model';
import { requireRole, signedIn } from '../auth/access';
import { listQuerySchema, paginate, whereFilters } from '../pagination';
import { defineRoute } from '../route';
import { tellerAccount } from './member-accounts.queries';
import { accountForChannel, tellers } from './money.schemas';
import { enterpriseFilter, idParams } from './common.schemas';
import { scopeToVisible } from './enterprise-scope';
import { visibleLoan } from './loans.queries';

const statuses = ['awaiting_disbursement', 'active', 'closed', 'written_off'] as const;
export const classifications = ['performing', 'overdue', 'doubtful'] as const;

function serializeLoan(loan: Loan) {
  return {
    id: loan.id,
    enterprise: loan.enterpriseId,
    branch: loan.branchId,
    client: loan.clientId,
    product: loan.productId,
    application: loan.applicationId,
    number: loan.number,
    principal: loan.principal,
    fees: loan.fees,
    annual_rate: loan.annualRate,
    penalty_rate: loan.penaltyRate,
    method: loan.method,
    frequency: loan.frequency,
    term_periods: loan.termPeriods,
    grace_periods: loan.gracePeriods,
    teg: loan.teg,
    status: loan.status,
    approved_on: loan.approvedOn,
    disbursed_on: loan.disbursedOn,
    disbursement_channel: loan.disbursementChannel,
    disbursement_account: loan.disbursementAccountId,
    outstanding_principal: loan.outstandingPrincipal,
    closed_on: loan.closedOn,
    classification: loan.classification,
    doubtful_since: loan.doubtfulSince,
    days_past_due: loan.daysPastDue,
    provision_amount: loan.provisionAmount,
    litigious: loan.litigious,
    written_off_on: loan.writtenOffOn,
    written_off_amount: loan.writtenOffAmount,
    write_off_approval: loan.writeOffApproval,
    created_at: loan.createdAt.toISOString(),
  };
}

/** Loans: the portfolio, each loan's position and RepaymentSchedule, and disbursement. */
export const loanRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/loans/',
    module: 'loans',
    operationId: 'listLoans',
    summary: 'List loans (default: active ones; status filter for the others)',
    access: 'authenticated',
    query: listQuerySchema(['number', 'created_at', 'outstanding_principal'], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      client: yup.string().uuid().optional(),
      status: yup.string().oneOf(statuses).default('active'),
      classification: yup.string().oneOf(classifications).optional(),
    }),
    errorStatuses: [401],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = scopeToVisible(Loan.query(deps.knex), signedIn(principal), { enterprise: 'enterprise_id', branch: 'branch_id' }).where('status', query.status);
      whereFilters(builder, query, { enterprise: 'enterprise_id', branch: 'branch_id', client: 'client_id', classification: 'classification' });
      const page = await paginate(builder, { query, url: new URL(ctx.href), orderingColumns: { number: 'number', created_at: 'created_at', outstanding_principal: 'outstanding_principal' }, defaultOrdering: 'number' });
      return { ...page, results: page.results.map(serializeLoan) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/loans/{id}/',
    module: 'loans',
    operationId: 'getLoan',
    summary: 'Loan detail with its position at the business date: outstanding principal, overdue interest, penalties, days past due',
    description: 'The position is null unless the loan is active (before disbursement its schedule is provisional; closed and written-off loans owe nothing more here).',
    access: 'authenticated',
    params: idParams,
    errorStatuses: [401, 404],
    handler: async ({ params, principal, deps }) => {
      const loan = await visibleLoan(deps.knex, signedIn(principal), params.id);
      if (loan.status !== 'active') return { ...serializeLoan(loan), position: null };
      const position = await positionOfLoan(deps.activities, loan);
      return {
        ...serializeLoan(loan),
        position: {
          as_of: position.asOf,
          outstanding_principal: formatAmount(position.outstandingPrincipal),
          overdue_principal: formatAmount(position.overduePrincipal),
          overdue_interest: formatAmount(position.overdueInterest),
          penalties: formatAmount(position.penalties),
          days_past_due: position.daysPastDue,
          payable: formatAmount(position.payable),
        },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/loans/{id}/schedule/',
    module: 'loans',
    operationId: 'getLoanSchedule',
    summary: "The loan's RepaymentSchedule: every installment, what was due and what was paid",
    access: 'authenticated',
    params: idParams,
    errorStatuses: [401, 404],
    handler: async ({ params, principal, deps }) => {
      const loan = await visibleLoan(deps.knex, signedIn(principal), params.id);
      const installments = await readInstallments(deps.knex, loan.id);
      return {
        loan: loan.id,
        installments: installments.map((installment) => ({
          number: installment.number,
          due_date: installment.dueDate,
          principal_due: formatAmount(installment.principalDue),
          interest_due: formatAmount(installment.interestDue),
          penalty_due: formatAmount(installment.penaltyDue),
          principal_paid: formatAmount(installment.principalPaid),
          interest_paid: formatAmount(installment.interestPaid),
          penalty_paid: formatAmount(installment.penaltyPaid),
        })),
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/loans/{id}/disbursement/',
    module: 'loans',
    operationId: 'disburseLoan',
    summary: "Disburse an approved loan to the member's account or in cash (cashier, branch head)",
    description: 'The schedule starts from the business date; the fees are withheld. Posts the disbursement and fee entries.',
    access: tellers,
    status: 200,
    params: idParams,
    body: yup.object({
      channel: yup.string().oneOf(['account', 'cash'] as const).required(),
      account: accountForChannel(),
    }),
    errorStatuses: [401, 403, 404, 409, 422],
    handler: async ({ params, body, principal, deps }) => {
      const actor = signedIn(principal);
      const loan = await visibleLoan(deps.knex, actor, params.id);
      requireRole(actor, tellers, { enterpriseId: loan.enterpriseId, branchId: loan.branchId }, 'The loan');
      if (body.account !== undefined) await tellerAccount(deps.knex, actor, body.account);
      return serializeLoan(await disburseLoan(deps.activities, actor, { loanId: loan.id, channel: body.channel, accountId: body.account ?? null }));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/loans/{id}/litigation/',
    module: 'loans',
    operationId: 'setLoanLitigation',
    summary: 'Flag a loan as litigious, or clear the flag, with a reason (branch head, direction)',
    description: 'A litigious loan is doubtful at the next provisioning run, and so are all the loans of its borrower.',
    access: ['branch_head', 'direction'],
    status: 200,
    params: idParams,
    body: yup.object({ litigious: yup.boolean().required(), reason: yup.string().trim().required().min(3).max(500) }),
    errorStatuses: [401, 403, 404, 409],
    handler: async ({ params, body, principal, deps }) => {
      const actor = signedIn(principal);
      const loan = await visibleLoan(deps.knex, actor, params.id);
      requireRole(actor, ['branch_head', 'direction'], { enterpriseId: loan.enterpriseId, branchId: loan.branchId }, 'The loan');
      return serializeLoan(await setLitigious(deps.activities, actor, loan.id, body.litigious, body.reason));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/loans/{id}/write-off/',
    module: 'loans',
    operationId: 'writeOffLoan',
    summary: 'Write off a doubtful loan (direction): loss on 6921/6922, provisions reversed; the loan stays readable',
    description: "A related party's loan needs `approval` (the reference and date of the recorded approval, COBAC R-2017/07 Art. 26).",
    access: ['direction'],
    status: 200,
    params: idParams,
    body: yup.object({ approval: yup.string().trim().max(500).default('') }),
    errorStatuses: [401, 403, 404, 409, 422],
    handler: async ({ params, body, principal, deps }) => {
      const actor = signedIn(principal);
      const loan = await visibleLoan(deps.knex, actor, params.id);
      requireRole(actor, ['direction'], { enterpriseId: loan.enterpriseId }, 'The loan');
      return serializeLoan(await writeOffLoan(deps.activities, actor, { loanId: loan.id, approval: body.approval }));
    },
  }),
];
