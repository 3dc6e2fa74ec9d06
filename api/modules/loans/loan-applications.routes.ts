import * as yup from 'yup';
import { operationKey } from '../../../activities/idempotency';
import { submitLoanApplication } from '../../../activities/loans/loan-applications.activity';
import { approvalSteps, decisions } from '../../../domain/loans/approval';
import type { CreditCapCode } from '../../../domain/loans/credit-caps';
import { AppError } from '../../../domain/errors';
import { LoanApplication } from '../../../db/models/loan-application.model';
import {
  readApplication,
  withHistory,
  type ApplicationHistory,
  type ApplicationRow,
} from '../../../activities/loans/loan-applications.queries';
import { requireRole } from '../../auth/access';
import { listQuerySchema, pageSchema, paginate } from '../../pagination';
import { defineRoute } from '../../route';
import { requestOrigin } from '../../context';
import { enterpriseFilter, idParams, timestampResponse } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { decideOnApplication, startLoanApproval, withdrawApplication } from './loan-approval.temporal';
import { memberLoaders } from '../members/members.queries';
import { loanLoaders } from './loans.queries';
import { amount, moneyResponse } from '../money.schemas';
import { memberRecordFields } from '../members/member-records.schemas';

const statuses = ['in_review', 'approved', 'rejected', 'expired', 'withdrawn', 'failed'] as const;
const submitters = ['cashier', 'branch_head'] as const;
const creditCapCodes = ['cap_share_capital', 'cap_related_party'] as const satisfies readonly CreditCapCode[];

const decisionSchema = yup
  .object({
    step: yup.string().oneOf(approvalSteps).required(),
    decision: yup
      .string()
      .oneOf([...decisions, 'withdraw'] as const)
      .required()
      .meta({ description: "withdraw: the submitter's withdrawal." }),
    comment: yup.string().defined(),
    decided_by: yup.string().uuid().required(),
    decided_at: timestampResponse(),
  })
  .meta({ component: 'LoanApplicationDecision' });

const loanApplicationSchema = yup
  .object({
    ...memberRecordFields,
    product: yup.string().uuid().required(),
    number: yup.string().required(),
    amount: moneyResponse(),
    term_periods: yup.number().integer().required(),
    grace_periods: yup.number().integer().required(),
    purpose: yup.string().defined(),
    fees: moneyResponse(),
    insurance_premium: moneyResponse().meta({
      description: 'Credit insurance premium quoted at submission (docs/domain.md §14.6).',
    }),
    teg: yup
      .string()
      .required()
      .meta({ description: 'TEG at submission, percent with two decimals.', example: '21.47' }),
    cap_breaches: yup
      .array(
        yup
          .object({
            code: yup.string().oneOf(creditCapCodes).required(),
            limit: moneyResponse(),
            total: moneyResponse(),
          })
          .meta({ component: 'CreditCapBreach' }),
      )
      .required()
      .meta({
        description: 'COBAC credit caps the request exceeds (reported when the configuration does not enforce them).',
      }),
    status: yup.string().oneOf(statuses).required(),
    current_step: yup
      .string()
      .oneOf(approvalSteps)
      .nullable()
      .defined()
      .meta({ description: 'The step waiting for a decision; null once the approval has ended.' }),
    final_step: yup
      .string()
      .oneOf(approvalSteps)
      .required()
      .meta({ description: 'The step whose approval grants the loan.' }),
    step_started_at: timestampResponse(),
    status_reason: yup.string().defined(),
    ended_at: timestampResponse().nullable(),
    submitted_by: yup.string().uuid().required(),
    loan_officer: yup
      .string()
      .uuid()
      .required()
      .meta({ description: 'The user who will follow the loan; the loan carries it from its approval.' }),
    submitted_at: timestampResponse(),
    workflow_id: yup.string().required(),
    loan: yup
      .object({ id: yup.string().uuid().required(), number: yup.string().required() })
      .nullable()
      .defined()
      .meta({ description: 'The loan granted by the final approval.' }),
    decisions: yup.array(decisionSchema).required(),
  })
  .meta({ component: 'LoanApplication' });

function serializeApplication(application: LoanApplication, { decisionHistory, loan }: ApplicationHistory) {
  return {
    id: application.id,
    enterprise: application.enterpriseId,
    branch: application.branchId,
    client: application.clientId,
    product: application.productId,
    number: application.number,
    amount: application.amount,
    term_periods: application.termPeriods,
    grace_periods: application.gracePeriods,
    purpose: application.purpose,
    fees: application.fees,
    insurance_premium: application.insurancePremium,
    teg: application.teg,
    cap_breaches: application.capBreaches,
    status: application.status,
    current_step: application.currentStep,
    final_step: application.finalStep,
    step_started_at: application.stepStartedAt.toISOString(),
    status_reason: application.statusReason,
    ended_at: application.endedAt?.toISOString() ?? null,
    submitted_by: application.submittedBy,
    loan_officer: application.loanOfficerId,
    submitted_at: application.createdAt.toISOString(),
    workflow_id: application.workflowId,
    loan,
    decisions: decisionHistory.map((row) => ({ ...row, decided_at: new Date(row.decided_at).toISOString() })),
  };
}

const serializeRow = (row: ApplicationRow) => serializeApplication(row, row);

function assertInReview(application: LoanApplication): void {
  if (application.status !== 'in_review')
    throw new AppError(
      'conflict',
      'application_closed',
      `The application is ${application.status}: its approval has ended.`,
    );
}

const needsComment = (decision: string | undefined, comment: string | undefined) =>
  decision === 'approve' || (comment ?? '').trim() !== '';

/**
 * Loan applications and their approval: submission starts the `loanApproval` workflow; decisions and the
 * submitter's withdrawal are Updates of that workflow, after the role check at the application's branch.
 */
export const loanApplicationRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/applications/',
    module: 'loans',
    operationId: 'listLoanApplications',
    summary: 'List loan applications, newest first',
    access: 'authenticated',
    query: listQuerySchema(['created_at', 'number', 'amount'], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      client: yup.string().uuid().optional(),
      status: yup.string().oneOf(statuses).optional(),
      current_step: yup
        .string()
        .oneOf(approvalSteps)
        .optional()
        .meta({ description: "Applications waiting at this step: an approver's queue." }),
    }),
    response: pageSchema(loanApplicationSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = visibleRows(withHistory(LoanApplication.query(deps.knex)), principal, query, {
        enterprise: 'enterprise_id',
        branch: 'branch_id',
        client: 'client_id',
        status: 'status',
        current_step: 'current_step',
      });
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { created_at: 'created_at', number: 'number', amount: 'amount' },
        defaultOrdering: '-created_at',
      });
      return { ...page, results: (page.results as ApplicationRow[]).map(serializeRow) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/applications/',
    module: 'loans',
    operationId: 'submitLoanApplication',
    summary: 'Submit a loan application for a member of the branch (cashier, branch head); starts its approval',
    description:
      'Checks the product bounds and the COBAC credit caps (enforced or reported, by ' +
      'configuration), then starts the workflow `loan-approval-{id}` at the cashier step.',
    access: submitters,
    status: 201,
    location: '/api/v1/loans/applications/{id}/',
    body: yup.object({
      client: yup.string().uuid().required(),
      product: yup.string().uuid().required(),
      amount: amount().required(),
      term_periods: yup.number().strict(true).integer().min(1).max(600).required(),
      grace_periods: yup.number().strict(true).integer().min(0).max(599).default(0),
      purpose: yup.string().trim().max(500).default(''),
      loan_officer: yup.string().uuid().optional().meta({
        description: "The user who will follow the loan, with a role in the member's branch; default: the submitter.",
      }),
    }),
    response: loanApplicationSchema,
    errorStatuses: [401, 403, 404, 409, 422, 503],
    refusals: [
      'amount_out_of_bounds',
      'cap_related_party',
      'cap_share_capital',
      'grace_periods_out_of_bounds',
      'loan_officer_not_in_branch',
      'member_not_active',
      'product_inactive',
      'teg_above_usury_rate',
      'term_periods_out_of_bounds',
      'workflow_unavailable',
    ],
    handler: async ({ body, principal: actor, deps, load }) => {
      const client = await load(memberLoaders.client, body.client);
      const { application, stepTimeLimitDays } = await submitLoanApplication(deps.activities, actor, {
        clientId: client.id,
        productId: body.product,
        amount: body.amount,
        termPeriods: body.term_periods,
        gracePeriods: body.grace_periods,
        purpose: body.purpose,
        ...(body.loan_officer === undefined ? {} : { loanOfficerId: body.loan_officer }),
      });
      await startLoanApproval(deps, application, stepTimeLimitDays);
      // Just created: no decision yet, no loan.
      return serializeApplication(application, { decisionHistory: [], loan: null });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/applications/{id}/',
    module: 'loans',
    operationId: 'getLoanApplication',
    summary: 'Loan application detail, with its approval state and decision history',
    access: 'authenticated',
    load: loanLoaders.application,
    params: idParams,
    response: loanApplicationSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeRow(resource),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/applications/{id}/decisions/',
    module: 'loans',
    operationId: 'decideOnLoanApplication',
    summary: "Decide the current step: approve, reject or send back (the step's role at the application's branch)",
    description:
      'Steps: cashier, branch_head, credit_committee, direction. One person may not decide two steps. ' +
      '409 with the reason when the workflow refuses (wrong step, closed, same person, credit cap at ' +
      'final approval). Send an Idempotency-Key header and the step: after a 503 (no answer in time) ' +
      'a retry of the same request with the same key joins the first decision and answers its outcome.',
    access: [...approvalSteps],
    idempotent: true,
    status: 200,
    load: loanLoaders.application,
    params: idParams,
    body: yup.object({
      decision: yup.string().oneOf(decisions).required(),
      comment: yup
        .string()
        .trim()
        .max(1000)
        .default('')
        .test('comment-needed', 'comment is required to reject or send back', function (comment) {
          return needsComment(this.parent.decision, comment);
        }),
      step: yup
        .string()
        .oneOf(approvalSteps)
        .optional()
        .meta({ description: 'The step decided, as the approver saw it; default: the current one.' }),
    }),
    response: loanApplicationSchema,
    errorStatuses: [401, 403, 404, 409, 503],
    refusals: [
      'application_closed',
      'wrong_step',
      'submitter_cannot_decide',
      'same_person_twice',
      'nothing_to_send_back',
      'comment_required',
      'decision_in_progress',
      'idempotency_key_reused',
      'workflow_unavailable',
      'cap_share_capital',
      'cap_related_party',
      'member_not_active',
    ],
    handler: async ({ resource: application, body, principal: actor, deps, ctx, idempotencyKey }) => {
      // After the route's roles at the application's branch (the router), before the step's own.
      assertInReview(application);
      const step = body.step ?? application.currentStep!;
      requireRole(
        actor,
        [step],
        { enterpriseId: application.enterpriseId, branchId: application.branchId },
        'The loan application',
      );
      const decision = {
        deciderId: actor.userId,
        step,
        decision: body.decision,
        comment: body.comment,
        ...requestOrigin(ctx),
      };
      await decideOnApplication(deps, application, decision, operationKey('loan-decision', actor, idempotencyKey));
      return serializeRow((await readApplication(deps.knex, application.id))!);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/applications/{id}/withdrawal/',
    module: 'loans',
    operationId: 'withdrawLoanApplication',
    summary: 'Withdraw an application in review (its submitter only)',
    access: 'authenticated',
    idempotent: true,
    status: 200,
    load: loanLoaders.application,
    params: idParams,
    body: yup.object({ comment: yup.string().trim().max(1000).default('') }),
    response: loanApplicationSchema,
    errorStatuses: [401, 403, 404, 409, 503],
    refusals: ['application_closed', 'decision_in_progress', 'not_submitter', 'workflow_unavailable'],
    handler: async ({ resource: application, body, principal: actor, deps, ctx, idempotencyKey }) => {
      if (application.submittedBy !== actor.userId)
        throw new AppError(
          'forbidden',
          'not_submitter',
          'Only the user who submitted the application may withdraw it.',
        );
      assertInReview(application);
      const withdrawal = { userId: actor.userId, comment: body.comment, ...requestOrigin(ctx) };
      await withdrawApplication(deps, application, withdrawal, operationKey('loan-withdrawal', actor, idempotencyKey));
      return serializeRow((await readApplication(deps.knex, application.id))!);
    },
  }),
];
