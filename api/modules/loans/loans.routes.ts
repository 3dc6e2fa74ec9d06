import * as yup from 'yup';
import { disburseLoan } from '../../../activities/loans/disbursement.activity';
import { readInstallments } from '../../../activities/loans/installments';
import { positionOfLoan } from '../../../activities/loans/loan-position.activity';
import { setLitigious, writeOffLoan } from '../../../activities/loans/portfolio-quality.activity';
import { recoveredOn } from '../../../activities/loans/loan-recoveries.activity';
import { insuranceCollections } from '../../../domain/loans/loan-product';
import { formatAmount, Money } from '../../../domain/money';
import { Loan } from '../../../db/models/loan.model';
import { listQuerySchema, pageSchema, paginate } from '../../pagination';
import { defineRoute } from '../../route';
import { memberLoaders } from '../members/members.queries';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { accountForChannel, moneyResponse, tellers } from '../money.schemas';
import { dateResponse, enterpriseFilter, idParams, timestampResponse, nullableId } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { loanLoaders } from './loans.queries';
import { postingRefusals } from '../refusal-lists';
import { officerAssignmentsQuery } from '../../../activities/loans/loan-officers.activity';
import { officerAssignmentSchema, serializeAssignment } from './loan-officers.schemas';
import { memberRecordFields } from '../members/member-records.schemas';

const statuses = ['awaiting_disbursement', 'active', 'closed', 'written_off', 'cancelled'] as const;
export const classifications = ['performing', 'overdue', 'doubtful'] as const;

export const loanSchema = yup
  .object({
    ...memberRecordFields,
    product: yup.string().uuid().required(),
    application: nullableId('The application it was granted on; null for a loan brought in by a go-live import.'),
    import: nullableId('The go-live import that brought it in (docs/domain.md §15.2); null for a loan granted here.'),
    number: yup.string().required(),
    principal: moneyResponse(),
    fees: moneyResponse(),
    insurance_premium: moneyResponse().meta({
      description: 'Credit insurance premium owed to the insurer (docs/domain.md §14.6); 0 without insurance.',
    }),
    insurance_collection: yup
      .string()
      .oneOf(insuranceCollections)
      .required()
      .meta({ description: 'withheld at disbursement, or spread over the installments.' }),
    annual_rate: yup
      .string()
      .required()
      .meta({ description: 'Annual interest rate, a decimal ("0.18" = 18 %).', example: '0.180000' }),
    penalty_rate: yup
      .string()
      .required()
      .meta({ description: 'Annual rate on late amounts, a decimal.', example: '0.120000' }),
    method: yup
      .string()
      .oneOf(['constant_annuity', 'constant_principal'] as const)
      .required(),
    frequency: yup
      .string()
      .oneOf(['monthly', 'quarterly', 'weekly'] as const)
      .required(),
    term_periods: yup.number().integer().required(),
    grace_periods: yup.number().integer().required(),
    teg: yup
      .string()
      .required()
      .meta({ description: 'TEG of the schedule in force, percent with two decimals.', example: '21.47' }),
    schedule_version: yup.number().integer().required().meta({
      description:
        'The version of the schedule in force: 1 from the disbursement, one more at each prepayment or restructuring.',
    }),
    status: yup.string().oneOf(statuses).required(),
    approved_on: dateResponse(),
    disbursed_on: dateResponse().nullable(),
    disbursement_channel: yup
      .string()
      .oneOf(['account', 'cash'] as const)
      .nullable()
      .defined(),
    disbursement_account: nullableId(),
    outstanding_principal: moneyResponse(),
    closed_on: dateResponse().nullable(),
    classification: yup.string().oneOf(classifications).required(),
    doubtful_since: dateResponse().nullable(),
    days_past_due: yup.number().integer().required(),
    provision_amount: moneyResponse(),
    doubtful_account: yup
      .string()
      .nullable()
      .defined()
      .meta({
        description:
          'While doubtful, the account of its principal by cover: 3332 State-guaranteed, ' +
          '3342 sûretés réelles, 3352 the others (set by the provisioning run).',
      }),
    provision_account: yup
      .string()
      .nullable()
      .defined()
      .meta({
        description:
          'The account of its provision (39100, 3921–3924, 3931–3933: ' +
          'by cover and years doubtful); null without a provision.',
      }),
    litigious: yup.boolean().required(),
    written_off_on: dateResponse().nullable(),
    written_off_amount: moneyResponse().nullable(),
    write_off_approval: yup
      .string()
      .defined()
      .meta({ description: "Reference and date of the approval a related party's write-off needs; '' otherwise." }),
    loan_officer: yup
      .string()
      .uuid()
      .required()
      .meta({ description: "The user who follows the loan: the application's, then whoever it was reassigned to." }),
    created_at: timestampResponse(),
  })
  .meta({ component: 'Loan' });

const loanPositionSchema = yup
  .object({
    as_of: dateResponse().meta({ description: 'The business date.' }),
    outstanding_principal: moneyResponse(),
    overdue_principal: moneyResponse(),
    overdue_interest: moneyResponse(),
    penalties: moneyResponse(),
    days_past_due: yup.number().integer().required(),
    payable: moneyResponse().meta({ description: 'What may be repaid now: the installments due and the next one.' }),
  })
  .meta({ component: 'LoanPosition' });

const loanDetailSchema = loanSchema
  .shape({
    position: loanPositionSchema.nullable().defined().meta({ description: 'null unless the loan is active.' }),
    recovered_total: moneyResponse().meta({
      description: 'Recovered since its write-off (`/api/v1/loans/recoveries/?loan=`); 0 for a loan not written off.',
    }),
    officer_assignments: yup
      .array(officerAssignmentSchema)
      .required()
      .meta({ description: 'Its reassignments from one loan officer to another, oldest first.' }),
  })
  .meta({ component: 'LoanDetail', description: 'A loan with its position at the business date.' });

const loanInstallmentSchema = yup
  .object({
    number: yup.number().integer().required(),
    due_date: dateResponse(),
    principal_due: moneyResponse(),
    interest_due: moneyResponse(),
    penalty_due: moneyResponse(),
    principal_paid: moneyResponse(),
    interest_paid: moneyResponse(),
    penalty_paid: moneyResponse(),
    insurance_due: moneyResponse().meta({
      description: 'Its part of a spread insurance premium (docs/domain.md §14.6).',
    }),
    insurance_paid: moneyResponse(),
  })
  .meta({ component: 'LoanInstallment' });

const loanScheduleSchema = yup
  .object({
    loan: yup.string().uuid().required(),
    installments: yup.array(loanInstallmentSchema).required(),
  })
  .meta({
    component: 'LoanSchedule',
    description: 'RepaymentSchedule: every installment, what was due and what was paid.',
  });

export function serializeLoan(loan: Loan) {
  return {
    id: loan.id,
    enterprise: loan.enterpriseId,
    branch: loan.branchId,
    client: loan.clientId,
    product: loan.productId,
    application: loan.applicationId,
    import: loan.importId,
    number: loan.number,
    principal: loan.principal,
    fees: loan.fees,
    insurance_premium: loan.insurancePremium,
    insurance_collection: loan.insuranceCollection,
    annual_rate: loan.annualRate,
    penalty_rate: loan.penaltyRate,
    method: loan.method,
    frequency: loan.frequency,
    term_periods: loan.termPeriods,
    grace_periods: loan.gracePeriods,
    teg: loan.teg,
    schedule_version: loan.scheduleVersion,
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
    doubtful_account: loan.doubtfulAccountCode,
    provision_account: loan.provisionAccountCode,
    litigious: loan.litigious,
    written_off_on: loan.writtenOffOn,
    written_off_amount: loan.writtenOffAmount,
    write_off_approval: loan.writeOffApproval,
    loan_officer: loan.loanOfficerId,
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
      officer: yup
        .string()
        .uuid()
        .optional()
        .meta({ description: 'The loans this user follows now (their loan officer).' }),
    }),
    response: pageSchema(loanSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = visibleRows(Loan.query(deps.knex).where('status', query.status), principal, query, {
        enterprise: 'enterprise_id',
        branch: 'branch_id',
        client: 'client_id',
        classification: 'classification',
        officer: 'loan_officer_id',
      });
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { number: 'number', created_at: 'created_at', outstanding_principal: 'outstanding_principal' },
        defaultOrdering: 'number',
      });
      return { ...page, results: page.results.map(serializeLoan) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/loans/{id}/',
    module: 'loans',
    operationId: 'getLoan',
    summary:
      'Loan detail with its position at the business date: outstanding ' +
      'principal, overdue interest, penalties, days past due',
    description:
      'The position is null unless the loan is active (before disbursement its ' +
      'schedule is provisional; closed and written-off loans owe nothing more here).',
    access: 'authenticated',
    load: loanLoaders.loan,
    params: idParams,
    response: loanDetailSchema,
    errorStatuses: [401, 404],
    handler: async ({ resource: loan, deps }) => {
      const recovered = {
        recovered_total: formatAmount(
          loan.status === 'written_off' ? await recoveredOn(deps.knex, loan.id) : new Money(0),
        ),
      };
      const officerAssignments = (
        await officerAssignmentsQuery(deps.knex)
          .where('a.loan_id', loan.id)
          .orderBy([{ column: 'a.created_at' }, { column: 'a.id' }])
      ).map(serializeAssignment);
      const extras = { ...recovered, officer_assignments: officerAssignments };
      if (loan.status !== 'active') return { ...serializeLoan(loan), position: null, ...extras };
      const position = await positionOfLoan(deps.activities, loan);
      return {
        ...serializeLoan(loan),
        ...extras,
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
    load: loanLoaders.loan,
    params: idParams,
    response: loanScheduleSchema,
    errorStatuses: [401, 404],
    handler: async ({ resource: loan, deps }) => {
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
          insurance_due: formatAmount(installment.insuranceDue ?? new Money(0)),
          insurance_paid: formatAmount(installment.insurancePaid ?? new Money(0)),
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
    description:
      'The schedule starts from the business date; the fees are withheld. Posts the disbursement and fee entries.',
    access: tellers,
    status: 200,
    load: loanLoaders.loan,
    params: idParams,
    body: yup.object({
      channel: yup
        .string()
        .oneOf(['account', 'cash'] as const)
        .required(),
      account: accountForChannel(),
    }),
    response: loanSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      ...postingRefusals,
      'approver_cannot_disburse',
      'idempotency_key_reused',
      'insufficient_funds',
      'loan_not_awaiting_disbursement',
    ],
    handler: async ({ resource: loan, body, principal: actor, deps, load }) => {
      if (body.account !== undefined) await load(memberLoaders.tellerAccount, body.account);
      return serializeLoan(
        await disburseLoan(deps.activities, actor, {
          loanId: loan.id,
          channel: body.channel,
          accountId: body.account ?? null,
        }),
      );
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
    load: loanLoaders.loan,
    params: idParams,
    body: yup.object({ litigious: yup.boolean().required(), reason: yup.string().trim().required().min(3).max(500) }),
    response: loanSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['loan_not_active'],
    handler: async ({ resource: loan, body, principal: actor, deps }) => {
      return serializeLoan(await setLitigious(deps.activities, actor, loan.id, body.litigious, body.reason));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/loans/{id}/write-off/',
    module: 'loans',
    operationId: 'writeOffLoan',
    summary:
      'Propose the write-off of a doubtful loan (branch head of its branch, ' +
      'direction): loss on 6921/6922, provisions reversed once approved',
    description:
      "A four-eyes request (`loan.write_off`): proposed by the loan's branch " +
      'head or the direction, approved by the direction, never by the proposer ' +
      "(docs/domain.md §14.3). A related party's loan needs `approval` (the reference and " +
      'date of the recorded approval, COBAC R-2017/07 Art. 26). The loan stays readable.',
    access: ['branch_head', 'direction'],
    status: 200,
    load: loanLoaders.loan,
    params: idParams,
    body: yup.object({ approval: yup.string().trim().max(500).default('') }),
    response: loanSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      ...postingRefusals,
      'idempotency_key_reused',
      'loan_not_doubtful',
      'write_off_approval_required',
      ...fourEyesRefusals,
    ],
    handler: async ({ resource: loan, body, principal: actor, deps, ctx }) => {
      return runOrRequest(
        { deps, principal: actor, ctx },
        {
          operation: 'loan.write_off',
          payload: { loanId: loan.id, approval: body.approval },
          scope: { enterpriseId: loan.enterpriseId, branchId: loan.branchId },
          summary: `Write off loan ${loan.number} (${loan.outstandingPrincipal} XAF outstanding)`,
        },
        async () =>
          serializeLoan(await writeOffLoan(deps.activities, actor, { loanId: loan.id, approval: body.approval })),
      );
    },
  }),
];
