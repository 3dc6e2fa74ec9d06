import type { Knex } from 'knex';
import * as yup from 'yup';
import { operationKey } from '../../../activities/idempotency';
import {
  applyRestructuring,
  closeRestructuring,
  openRestructuring,
} from '../../../activities/loans/loan-restructurings.activity';
import { restructuringsQuery, type RestructuringRow } from '../../../activities/loans/loan-restructurings.queries';
import { restructuredRegister } from '../../../activities/loans/restructured-register';
import { reportHeading } from '../../../activities/accounts/statement-documents';
import { restructuredRegisterDocument } from '../../../domain/loans/restructured-register.document';
import { roles } from '../../../domain/access';
import { AppError } from '../../../domain/errors';
import { capitalisedArrearsParts } from '../../../domain/loans/restructuring';
import { Money } from '../../../domain/money';
import { requestOrigin } from '../../context';
import { answerReport } from '../../report-download';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import type { RequestRow } from '../../../activities/approvals/approval-requests.queries';
import { decideRequest, fourEyesRefusals, fourEyesRoute, rolesAt, runOrRequest } from '../approvals/four-eyes';
import { dateResponse, enterpriseFilter, idParams, rateSchema, timestampResponse, nullableId } from '../common.schemas';
import { branchesOf, registerQuery } from './arrears-statement.routes';
import { visibleRows } from '../list-rows';
import { moneyResponse } from '../money.schemas';
import { loanLoaders } from './loans.queries';
import { loanRecordFields, loanRecordOf } from './loan-money.schemas';

const statuses = ['pending', 'approved', 'rejected', 'expired', 'failed'] as const;
const classes = ['performing', 'overdue', 'doubtful'] as const;
const askers = ['branch_head', 'credit_committee', 'direction'] as const;

const capitalisedArrearsDescription =
  'With capitalise_arrears: `all` (default) capitalises the arrears whole; `interest` only their interest, ' +
  'penalties and insurance parts, the principal in arrears kept due on its installments.';

/** The request's one-line summary of what the arrears become. */
const capitalisedSummary = (body: { capitalise_arrears: boolean; capitalised_arrears: string }) => {
  if (!body.capitalise_arrears) return '';
  return body.capitalised_arrears === 'interest' ? ', interest arrears capitalised' : ', arrears capitalised';
};

const restructuringSchema = yup
  .object({
    ...loanRecordFields,
    status: yup.string().oneOf(statuses).required(),
    term_periods: yup.number().integer().required(),
    annual_rate: yup.string().required(),
    grace_periods: yup.number().integer().required(),
    capitalise_arrears: yup.boolean().required(),
    capitalised_arrears: yup
      .string()
      .oneOf(capitalisedArrearsParts)
      .required()
      .meta({ description: capitalisedArrearsDescription }),
    reason: yup.string().required(),
    requested_by: yup.string().uuid().required(),
    requested_at: timestampResponse(),
    approval_request: nullableId('Its four-eyes request (`loan.restructure`).'),
    approver_roles: yup.array(yup.string().oneOf(roles).required()).required().meta({
      description: 'R-2017/07 Art. 13: the steps above the one that granted the loan (direction stays direction).',
    }),
    decided_by: nullableId(),
    decision_reason: yup.string().nullable().defined(),
    number: yup
      .number()
      .integer()
      .nullable()
      .defined()
      .meta({ description: "The loan's 1st, 2nd… restructuring, once applied." }),
    effective_on: dateResponse().nullable(),
    class_before: yup.string().oneOf(classes).nullable().defined(),
    outstanding_before: moneyResponse().nullable(),
    principal_capitalised: moneyResponse().nullable(),
    interest_capitalised: moneyResponse().nullable().meta({
      description:
        'Interest and penalties in arrears capitalised: interest of the new installments, income when collected.',
    }),
    insurance_carried: moneyResponse()
      .nullable()
      .meta({
        description:
          'The spread insurance premium not yet paid (parts replaced, and those in ' +
          "arrears when capitalised): spread over the new installments, the insurer's.",
      }),
    restructured_amount: moneyResponse().nullable(),
    required_payment: moneyResponse()
      .nullable()
      .meta({ description: 'Art. 14: what the borrower must pay to return to performing before the transition ends.' }),
    first_due_date: dateResponse().nullable(),
    schedule_version: yup.number().integer().nullable().defined(),
    teg: yup.string().nullable().defined(),
  })
  .meta({ component: 'LoanRestructuring' });

function serializeRestructuring(row: RestructuringRow) {
  return {
    ...loanRecordOf(row),
    status: row.status,
    term_periods: row.term_periods,
    annual_rate: row.annual_rate,
    grace_periods: row.grace_periods,
    capitalise_arrears: row.capitalise_arrears,
    capitalised_arrears: row.capitalised_arrears,
    reason: row.reason,
    requested_by: row.requested_by,
    requested_at: row.requested_at.toISOString(),
    approval_request: row.approval_request_id,
    approver_roles: row.approver_roles ?? [],
    decided_by: row.decided_by,
    decision_reason: row.decision_reason ?? row.request_reason,
    number: row.number,
    effective_on: row.effective_on,
    class_before: row.class_before,
    outstanding_before: row.outstanding_before,
    principal_capitalised: row.principal_capitalised,
    interest_capitalised: row.interest_capitalised,
    insurance_carried: row.insurance_carried,
    restructured_amount: row.restructured_amount,
    required_payment: row.required_payment,
    first_due_date: row.first_due_date,
    schedule_version: row.schedule_version,
    teg: row.teg,
  };
}

const registerSchema = yup
  .object({
    enterprise: yup.string().uuid().required(),
    branch: nullableId(),
    date: dateResponse(),
    loans: yup
      .array(
        yup.object({
          loan: yup.string().uuid().required(),
          number: yup.string().required(),
          branch: yup.string().uuid().required(),
          member_number: yup.string().required(),
          member_name: yup.string().required(),
          restructuring_count: yup
            .number()
            .integer()
            .required()
            .meta({ description: 'Its restructurings applied by the date.' }),
          classification: yup
            .string()
            .oneOf(classes)
            .required()
            .meta({ description: 'Its class at the date (its provisioning position then).' }),
          outstanding: moneyResponse(),
          restructurings: yup
            .array(
              yup.object({
                number: yup.number().integer().required(),
                effective_on: dateResponse(),
                class_before: yup.string().oneOf(classes).required(),
                restructured_amount: moneyResponse(),
                required_payment: moneyResponse(),
                teg: yup.string().required(),
              }),
            )
            .required(),
        }),
      )
      .required(),
  })
  .meta({ component: 'RestructuredRegister' });

const readRestructuring = async (knex: Knex, id: string) =>
  serializeRestructuring((await restructuringsQuery(knex).where('r.id', id).first()) as RestructuringRow);

const restructuringLoader = {
  name: 'The restructuring',
  load: async ({ knex }, id) =>
    restructuringsQuery(knex).where('r.id', id).first() as Promise<RestructuringRow | undefined>,
  scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
} satisfies Loader<RestructuringRow>;

const listFilters = {
  enterprise: enterpriseFilter,
  status: yup.string().oneOf(statuses).optional(),
  loan: yup.string().uuid().optional(),
};

async function listPage(rows: Knex.QueryBuilder, query: Parameters<typeof paginateRows>[1], href: string) {
  const page = await paginateRows<RestructuringRow>(
    rows.orderBy([{ column: 'r.requested_at', order: 'desc' }, { column: 'r.id' }]),
    query,
    new URL(href),
  );
  return { ...page, results: page.results.map(serializeRestructuring) };
}

/**
 * Restructuring a loan (R-2017/07 Arts. 11–14, docs/domain.md §14.2): asked on the loan, decided under four eyes by a
 * step above the one that granted it, listed and read here. The request is the four-eyes mechanism's (its workflow,
 * its expiry); the decision route here sends it the decision as the approvals routes do.
 */
export const loanRestructuringRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/loans/{id}/restructurings/',
    module: 'loans',
    operationId: 'requestLoanRestructuring',
    summary:
      'Ask to restructure a loan: new term, rate and grace, arrears ' +
      'capitalised or not; decided above the level that granted it',
    description:
      'Answers 202 with the four-eyes request (`loan.restructure`): a ' +
      'user other than the maker, holding a role above the step that ' +
      'granted the loan (R-2017/07 Art. 13; a loan granted by the ' +
      'direction stays with the direction), approves or rejects it ' +
      "(…/restructurings/{id}/decision/), else it expires after the policy's " +
      'days. Approved, the installments not yet due are replaced by the ' +
      'new series from the business date, the arrears settled by ' +
      'capitalisation if asked, and the loan flagged restructured.',
    access: askers,
    load: loanLoaders.loan,
    params: idParams,
    body: yup.object({
      term_periods: yup
        .number()
        .strict(true)
        .integer()
        .min(1)
        .required()
        .meta({ description: "Installments of the new series, grace included (within the product's maximum)." }),
      annual_rate: rateSchema().required(),
      grace_periods: yup.number().strict(true).integer().min(0).default(0),
      capitalise_arrears: yup
        .boolean()
        .strict(true)
        .default(false)
        .meta({
          description:
            'Settle the installments due and unpaid by capitalisation: their principal ' +
            'joins the amount restructured, their interest and penalties the new interest.',
        }),
      capitalised_arrears: yup
        .string()
        .oneOf(capitalisedArrearsParts)
        .default('all')
        .meta({ description: capitalisedArrearsDescription })
        .test(
          'capitalised-arrears',
          'capitalised_arrears = interest needs capitalise_arrears',
          (value, context) => value === 'all' || context.parent.capitalise_arrears === true,
        ),
      reason: yup.string().trim().min(5).max(1000).required(),
    }),
    response: restructuringSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      'loan_not_active',
      'restructuring_pending',
      'nothing_to_restructure',
      'term_periods_out_of_bounds',
      'grace_periods_out_of_bounds',
      'annual_rate_out_of_bounds',
      ...fourEyesRefusals,
    ],
    handler: async ({ resource: loan, body, principal, deps, ctx }) => {
      const opened = await openRestructuring(deps.activities, principal, {
        loanId: loan.id,
        termPeriods: body.term_periods,
        annualRate: new Money(body.annual_rate),
        gracePeriods: body.grace_periods,
        capitaliseArrears: body.capitalise_arrears,
        capitalisedArrears: body.capitalised_arrears,
        reason: body.reason,
      });
      const payload = { restructuringId: opened.id };
      const applyNow = async () => {
        await applyRestructuring(deps.activities, principal, payload);
        return readRestructuring(deps.knex, opened.id);
      };
      return runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'loan.restructure',
          payload,
          scope: { enterpriseId: loan.enterpriseId, branchId: loan.branchId },
          approverRoles: opened.approverRoles,
          summary:
            `Restructure loan ${loan.number}: ${body.term_periods} ` +
            `installments at ${body.annual_rate}${capitalisedSummary(body)}`,
        },
        applyNow,
      ).catch(async (error: unknown) => {
        // Refused now (by the trial of the operation) or never requested: the restructuring ends failed, the loan free
        // again.
        const message = error instanceof Error ? error.message : String(error);
        await deps.knex.transaction((trx) =>
          closeRestructuring(trx, payload, { status: 'failed', reason: message.slice(0, 1000) }),
        );
        throw error;
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/loans/{id}/restructurings/',
    module: 'loans',
    operationId: 'listRestructuringsOfLoan',
    summary: 'The restructurings of a loan, newest first',
    access: 'authenticated',
    load: loanLoaders.loan,
    params: idParams,
    query: listQuerySchema([], { status: listFilters.status }),
    response: pageSchema(restructuringSchema),
    errorStatuses: [401, 404],
    refusals: ['page_not_found'],
    handler: async ({ resource: loan, query, deps, ctx }) => {
      const rows = restructuringsQuery(deps.knex).where('r.loan_id', loan.id);
      whereFilters(rows, query, { status: 'r.status' });
      return listPage(rows, query, ctx.href);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/restructurings/',
    module: 'loans',
    operationId: 'listLoanRestructurings',
    summary: 'Restructurings of the loans the user sees, newest first',
    access: 'authenticated',
    query: listQuerySchema([], listFilters),
    response: pageSchema(restructuringSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleRows(restructuringsQuery(deps.knex), principal, query, {
        enterprise: 'r.enterprise_id',
        branch: 'r.branch_id',
        status: 'r.status',
        loan: 'r.loan_id',
      });
      return listPage(rows, query, ctx.href);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/restructured-register/',
    module: 'loans',
    operationId: 'getRestructuredRegister',
    summary:
      'The restructured-loan register at a date: each loan restructured ' +
      'by then, its restructurings, its class and outstanding then',
    description:
      'The loans of the portfolio at the date with a restructuring ' +
      'applied by then (R-2017/07 Arts. 11–14), by loan number: each ' +
      "restructuring's date, class before, amount restructured, the payment " +
      "Art. 14 requires and the TEG; the loan's class and outstanding " +
      'principal at its provisioning position of the date.',
    access: 'authenticated',
    query: registerQuery,
    downloadable: true,
    errorStatuses: [401, 404],
    response: registerSchema,
    handler: async ({ query, principal, deps, ctx }) => {
      const branches = await branchesOf(deps.knex, principal, query.enterprise, query.branch);
      const loans = await restructuredRegister(deps.knex, {
        enterpriseId: query.enterprise,
        asOf: query.date,
        branches,
      });
      const answer = {
        enterprise: query.enterprise,
        branch: query.branch ?? null,
        date: query.date,
        loans: loans.map((loan) => ({
          loan: loan.loan,
          number: loan.number,
          branch: loan.branch,
          member_number: loan.memberNumber,
          member_name: loan.memberName,
          restructuring_count: loan.restructurings.length,
          classification: loan.classification,
          outstanding: loan.outstanding,
          restructurings: loan.restructurings.map((item) => ({
            number: item.number,
            effective_on: item.effectiveOn,
            class_before: item.classBefore,
            restructured_amount: item.restructuredAmount,
            required_payment: item.requiredPayment,
            teg: item.teg,
          })),
        })),
      };
      const heading = () =>
        reportHeading(deps.knex, { enterpriseId: query.enterprise, branch: query.branch ?? null }, deps.clock());
      const document = async () => restructuredRegisterDocument(await heading(), query.date, loans);
      return answerReport(ctx, query.format, answer, { report: 'restructured-register', document });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/restructurings/{id}/',
    module: 'loans',
    operationId: 'getLoanRestructuring',
    summary: 'One restructuring: its terms, its decision, and once applied what it did',
    access: 'authenticated',
    load: restructuringLoader,
    params: idParams,
    response: restructuringSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeRestructuring(resource),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/restructurings/{id}/decision/',
    module: 'loans',
    operationId: 'decideLoanRestructuring',
    summary:
      'Approve or reject a restructuring (another user than its maker, ' +
      'above the step that granted the loan); a rejection gives its reason',
    description:
      "Sent to its four-eyes request's workflow. Send an Idempotency-Key: " +
      'a retry with the same key joins the first decision.',
    // The roles that may decide some restructuring (above the granting step); the request's workflow checks the very
    // one.
    access: ['branch_head', 'credit_committee', 'direction'],
    load: restructuringLoader,
    idempotent: true,
    params: idParams,
    body: yup.object({
      decision: yup
        .string()
        .oneOf(['approve', 'reject'] as const)
        .required(),
      reason: yup
        .string()
        .trim()
        .max(500)
        .default('')
        .test('reason-needed', 'reason is required to reject (at least 5 characters)', function (reason) {
          return this.parent.decision !== 'reject' || (reason ?? '').length >= 5;
        }),
    }),
    response: restructuringSchema,
    errorStatuses: [401, 403, 404, 409, 503],
    refusals: [
      'approval_own_request',
      'approval_role_required',
      'approval_request_closed',
      'restructuring_closed',
      'decision_in_progress',
      'idempotency_key_reused',
      'workflow_unavailable',
    ],
    handler: async ({ resource: row, body, principal, deps, ctx, idempotencyKey }) => {
      const request = (await deps.knex('approval_requests').where({ id: row.approval_request_id }).first()) as
        RequestRow | undefined;
      if (request === undefined)
        throw new AppError(
          'conflict',
          'restructuring_closed',
          `The restructuring is ${row.status}: it has no request to decide.`,
        );
      const deciderRoles = rolesAt(principal, { enterpriseId: row.enterprise_id, branchId: row.branch_id });
      const sent = {
        decision: body.decision,
        deciderId: principal.userId,
        deciderRoles,
        reason: body.reason,
        ...requestOrigin(ctx),
      };
      await decideRequest(
        deps,
        request,
        sent,
        operationKey(`restructuring-${body.decision}`, principal, idempotencyKey),
      );
      return readRestructuring(deps.knex, row.id);
    },
  }),
];
