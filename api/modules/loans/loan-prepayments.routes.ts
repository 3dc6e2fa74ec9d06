import * as yup from 'yup';
import {
  prepaymentsQuery,
  quoteLoanPayoff,
  recordPayoff,
  recordPrepayment,
  withRepayments,
  type EarlyRepaymentInput,
  type LoanPrepaymentDetail,
  type LoanPrepaymentRow,
} from '../../../activities/loans/loan-prepayments.activity';
import type { ActivityContext, Actor } from '../../../activities/context';
import { scheduleVersionsOf } from '../../../activities/loans/schedule-versions';
import { prepaymentStrategies } from '../../../domain/loans/prepayment';
import { payoffQuoteDocument } from '../../../domain/loans/payoff-quote.document';
import { formatAmount, type Money } from '../../../domain/money';
import { reportHeading } from '../../../activities/accounts/statement-documents';
import { answerReport, formatParameter } from '../../report-download';
import { listQuerySchema, pageSchema, paginateRows } from '../../pagination';
import { defineRoute } from '../../route';
import { dateResponse, idParams, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { memberLoaders } from '../members/members.queries';
import { moneyResponse, tellers } from '../money.schemas';
import { loanLoaders, visibleLoanMoney } from './loans.queries';
import { loanMoneyFilters, loanPaymentBody, loanRecordFields, loanRecordOf } from './loan-money.schemas';
import { paymentOf } from '../members/member-payments.schemas';
import { loanRepaymentSchema, serializeRepayment } from './loan-repayments.routes';
import { postingRefusals } from '../refusal-lists';

const kinds = ['prepayment', 'payoff'] as const;

const loanPrepaymentSchema = yup
  .object({
    ...loanRecordFields,
    kind: yup.string().oneOf(kinds).required(),
    amount: moneyResponse().meta({ description: 'What the member paid: the repayment and the fee.' }),
    fee: moneyResponse().meta({ description: 'The early-repayment fee of the product, on the principal prepaid.' }),
    principal_prepaid: moneyResponse().meta({ description: 'The principal paid before its installments fell due.' }),
    business_date: dateResponse(),
    strategy: yup
      .string()
      .oneOf(prepaymentStrategies)
      .nullable()
      .defined()
      .meta({ description: "A prepayment's; null for a payoff." }),
    schedule_version: yup
      .number()
      .integer()
      .nullable()
      .defined()
      .meta({ description: 'The schedule version a prepayment put in force; null for a payoff.' }),
    teg: yup
      .string()
      .nullable()
      .defined()
      .meta({ description: 'TEG of the new schedule, percent with two decimals; null for a payoff.' }),
    repayment: loanRepaymentSchema.required().meta({
      description:
        'The repayment it made: principal, interest and penalties, ' +
        'allocated to installments; its channel and the outstanding after.',
    }),
  })
  .meta({ component: 'LoanPrepayment' });

function serializePrepayment(row: LoanPrepaymentDetail) {
  const { kind, amount, fee, strategy, teg } = row;
  return {
    ...loanRecordOf(row),
    kind,
    amount,
    fee,
    principal_prepaid: row.principal_prepaid,
    business_date: row.business_date,
    strategy,
    schedule_version: row.schedule_version,
    teg,
    repayment: serializeRepayment(row.repayment),
  };
}

const payoffQuoteSchema = yup
  .object({
    loan: yup.string().uuid().required(),
    loan_number: yup.string().required(),
    date: dateResponse(),
    principal: moneyResponse().meta({ description: 'All the principal still owed, overdue or not.' }),
    interest: moneyResponse().meta({
      description: 'Interest of the installments due, and of the current period to the date (30/360).',
    }),
    penalties: moneyResponse(),
    insurance: moneyResponse()
      .optional()
      .meta({
        description:
          'Spread insurance parts in arrears (only when some are owed); ' +
          'those not yet due are not owed: the cover ends with the loan.',
      }),
    fee: moneyResponse().meta({ description: "The product's early-repayment fee on the principal not yet due." }),
    total: moneyResponse().meta({ description: 'What the payoff at the date must be, to the franc.' }),
    valid_until: dateResponse().meta({
      description: "The quote's date: interest and penalties run by the day, so a later payoff needs a new quote.",
    }),
  })
  .meta({ component: 'PayoffQuote' });

const versionInstallmentSchema = yup
  .object({
    number: yup.number().integer().required(),
    due_date: dateResponse(),
    principal_due: moneyResponse(),
    interest_due: moneyResponse(),
  })
  .meta({ component: 'ScheduleVersionInstallment' });

const scheduleVersionSchema = yup
  .object({
    version: yup.number().integer().required(),
    reason: yup
      .string()
      .oneOf(['original', 'prepayment', 'restructuring'] as const)
      .required(),
    effective_on: dateResponse(),
    outstanding_principal: moneyResponse(),
    teg: yup.string().required().meta({ description: 'TEG of the version, percent with two decimals.' }),
    installments: yup
      .array(versionInstallmentSchema)
      .required()
      .meta({ description: 'Every installment of the version as made, those kept from the previous one included.' }),
    created_by: nullableId(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'ScheduleVersion' });

/** What a prepayment and a payoff share: tellers record them on a loan, once per Idempotency-Key. */
const earlyRepaymentRoute = {
  module: 'loans',
  access: tellers,
  idempotent: true,
  status: 201,
  location: '/api/v1/loans/prepayments/{id}/',
  load: loanLoaders.loan,
  params: idParams,
  response: loanPrepaymentSchema,
  errorStatuses: [401, 403, 404, 409, 422] as number[],
} as const;

const earlyRepaymentRefusals = [
  ...postingRefusals,
  'idempotency_key_reused',
  'insufficient_funds',
  'loan_closed',
  'loan_not_disbursed',
  'loan_written_off',
] as const;

interface EarlyRepaymentRequest<Body> {
  resource: { id: string };
  body: Body & { amount: Money; channel: 'cash' | 'account'; account?: string; reference: string };
  principal: Actor;
  deps: { activities: ActivityContext };
  ctx: { set: (name: string, value: string) => void };
  idempotencyKey: string | null;
  load: (loader: typeof memberLoaders.tellerAccount, id: string) => Promise<unknown>;
}

/** The handler of a prepayment or a payoff: the account is the teller's to use, a replay says so. */
type Recorder<Body> = (
  activities: ActivityContext,
  actor: Actor,
  input: EarlyRepaymentInput,
  body: Body,
) => Promise<{ prepayment: LoanPrepaymentDetail; replayed: boolean }>;

function earlyRepaymentHandler<Body>(record: Recorder<Body>) {
  return async ({
    resource: loan,
    body,
    principal: actor,
    deps,
    ctx,
    idempotencyKey,
    load,
  }: EarlyRepaymentRequest<Body>) => {
    if (body.account !== undefined) await load(memberLoaders.tellerAccount, body.account);
    const input = {
      loanId: loan.id,
      ...paymentOf(body),
      idempotencyKey,
    };
    const { prepayment, replayed } = await record(deps.activities, actor, input, body);
    if (replayed) ctx.set('Idempotent-Replayed', 'true');
    return serializePrepayment(prepayment);
  };
}

/**
 * Early repayment (docs/domain.md §14.1): partial prepayments, the payoff quote and the payoff, and the schedule's
 * versions.
 */
export const loanPrepaymentRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/prepayments/',
    module: 'loans',
    operationId: 'listLoanPrepayments',
    summary: 'List prepayments and payoffs, newest first',
    access: 'authenticated',
    query: listQuerySchema([], { ...loanMoneyFilters, kind: yup.string().oneOf(kinds).optional() }),
    response: pageSchema(loanPrepaymentSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleLoanMoney(prepaymentsQuery(deps.knex), principal, query, 'p');
      if (query.kind !== undefined) rows.where('p.kind', query.kind);
      const page = await paginateRows<LoanPrepaymentRow>(rows, query, new URL(ctx.href));
      return { ...page, results: (await withRepayments(deps.knex, page.results)).map(serializePrepayment) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/prepayments/{id}/',
    module: 'loans',
    operationId: 'getLoanPrepayment',
    summary: 'Prepayment or payoff detail',
    access: 'authenticated',
    load: loanLoaders.prepayment,
    params: idParams,
    response: loanPrepaymentSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializePrepayment(resource),
  }),
  defineRoute({
    ...earlyRepaymentRoute,
    method: 'post',
    path: '/api/v1/loans/loans/{id}/prepayments/',
    operationId: 'recordLoanPrepayment',
    summary:
      "Prepay part of a loan in cash or from the member's account " +
      '(cashier, branch head): the schedule not yet due is recomputed',
    description:
      "Dues first (arrears, penalties, the current period's interest to the day), then " +
      "the fee, the rest lowers the principal. `strategy` (default: the product's): " +
      'reduce_term keeps the installment and shortens the term, reduce_installment ' +
      'keeps the term and lowers the installment. A new schedule version, with its TEG. ' +
      'An amount that would settle the loan is refused: use the payoff. ' +
      'Send an Idempotency-Key header: a retry answers the first result.',
    body: yup.object({ ...loanPaymentBody, strategy: yup.string().oneOf(prepaymentStrategies).optional() }),
    refusals: [...earlyRepaymentRefusals, 'prepayment_below_dues', 'prepayment_settles_loan'],
    handler: earlyRepaymentHandler((activities, actor, input, body) =>
      recordPrepayment(activities, actor, { ...input, strategy: body.strategy ?? null }),
    ),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/loans/{id}/payoff-quote/',
    module: 'loans',
    operationId: 'getLoanPayoffQuote',
    summary:
      'What settles the loan at a date: principal, interest to the date, ' +
      'penalties, the early-repayment fee (JSON, or CSV / XLSX to print)',
    access: 'authenticated',
    load: loanLoaders.loan,
    params: idParams,
    query: yup.object({
      date: isoDate().optional().meta({ description: 'On or after the business date; default: the business date.' }),
      format: formatParameter,
    }),
    downloadable: true,
    response: payoffQuoteSchema,
    errorStatuses: [400, 401, 404, 409],
    refusals: ['loan_closed', 'loan_not_disbursed', 'loan_written_off'],
    handler: async ({ resource, query, deps, ctx }) => {
      const quote = await quoteLoanPayoff(deps.activities, resource.id, query.date ?? null);
      const line = {
        loan_number: quote.loan.number,
        date: quote.date,
        principal: formatAmount(quote.principal),
        interest: formatAmount(quote.interest),
        penalties: formatAmount(quote.penalties),
        ...(quote.insurance.isZero() ? {} : { insurance: formatAmount(quote.insurance) }),
        fee: formatAmount(quote.fee),
        total: formatAmount(quote.total),
        valid_until: quote.validUntil,
      };
      const scope = { enterpriseId: quote.loan.enterpriseId, branch: quote.loan.branchId };
      const document = async () => payoffQuoteDocument(await reportHeading(deps.knex, scope, deps.clock()), line);
      return answerReport(ctx, query.format, { loan: quote.loan.id, ...line }, { report: 'payoff-quote', document });
    },
  }),
  defineRoute({
    ...earlyRepaymentRoute,
    method: 'post',
    path: '/api/v1/loans/loans/{id}/payoff/',
    operationId: 'payOffLoan',
    summary:
      'Pay off a loan at the business date (cashier, branch head): ' +
      'the loan closes, its guarantees and holds are released',
    description:
      'The amount is the payoff quote at the business date, to the franc. ' +
      'Send an Idempotency-Key header: a retry answers the first result.',
    body: yup.object(loanPaymentBody),
    refusals: [...earlyRepaymentRefusals, 'payoff_amount_differs'],
    handler: earlyRepaymentHandler((activities, actor, input) => recordPayoff(activities, actor, input)),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/loans/{id}/schedule/versions/',
    module: 'loans',
    operationId: 'listLoanScheduleVersions',
    summary:
      "Every version of the loan's schedule, the first first: the original, then each prepayment's or restructuring's",
    access: 'authenticated',
    load: loanLoaders.loan,
    params: idParams,
    response: yup
      .object({
        loan: yup.string().uuid().required(),
        schedule_version: yup.number().integer().required(),
        versions: yup.array(scheduleVersionSchema).required(),
      })
      .meta({ component: 'LoanScheduleVersions' }),
    errorStatuses: [401, 404],
    handler: async ({ resource: loan, deps }) => {
      const versions = await scheduleVersionsOf(deps.knex, loan.id);
      return {
        loan: loan.id,
        schedule_version: loan.scheduleVersion,
        versions: versions.map((version) => ({
          version: version.version,
          reason: version.reason,
          effective_on: version.effectiveOn,
          outstanding_principal: formatAmount(version.outstandingPrincipal),
          teg: version.teg,
          installments: version.installments.map((row) => ({
            number: row.number,
            due_date: row.dueDate,
            principal_due: formatAmount(row.principalDue),
            interest_due: formatAmount(row.interestDue),
          })),
          created_by: version.createdBy,
          created_at: version.createdAt,
        })),
      };
    },
  }),
];
