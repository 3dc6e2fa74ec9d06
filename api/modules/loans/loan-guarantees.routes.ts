import * as yup from 'yup';
import {
  addGuarantee,
  bringGuaranteeInForce,
  confirmationPending,
  endGuarantee,
  refusePendingGuarantee,
  revalueGuarantee,
} from '../../../activities/loans/loan-guarantees.activity';
import { businessDateOf } from '../../../activities/enterprise/configuration.activity';
import { guaranteeCheckers, needsConfirmation } from '../../../domain/loans/guarantee-confirmation';
import { guaranteeById, guarantees, type GuaranteeRow } from '../../../activities/loans/loan-guarantees.queries';
import { countableValue, coverOf, guaranteeKinds } from '../../../domain/loans/provisioning';
import { formatAmount, Money } from '../../../domain/money';
import type { ApiDeps } from '../../deps';
import { AppError } from '../../../domain/errors';
import { requireRole } from '../../auth/access';
import { listQuerySchema, pageSchema, paginateRows } from '../../pagination';
import { defineRoute } from '../../route';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { amount, moneyResponse } from '../money.schemas';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { loanLoaders } from './loans.queries';

type Deps = Pick<ApiDeps, 'knex' | 'clock'>;

const recorders = ['cashier', 'branch_head', 'credit_committee', 'direction'] as const;
const loanGuaranteeSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    branch: yup.string().uuid().required().meta({ description: "Its loan's or application's branch." }),
    application: nullableId('The application it was attached to, if any (it passes to the loan at final approval).'),
    loan: nullableId(),
    kind: yup.string().oneOf(guaranteeKinds).required(),
    value: moneyResponse(),
    start_date: dateResponse(),
    end_date: dateResponse().nullable().meta({ description: 'Released or expired on; null while it runs.' }),
    description: yup.string().defined(),
    account: nullableId(
      "A pledged deposit: the member account its value is held on; a guarantor's " +
        "guarantee: the guarantor's account held up to the amount guaranteed, if any.",
    ),
    guarantor: nullableId('A personal guarantee: the guarantor member (null: one named in the description only).'),
    valuation_date: dateResponse().meta({ description: 'When the value was last assessed.' }),
    document_reference: yup
      .string()
      .defined()
      .meta({ description: 'The deed, certificate or contract that proves it.' }),
    cover: yup
      .string()
      .oneOf(['cash', 'eligible', 'none'] as const)
      .required()
      .meta({ description: 'What provisioning counts it as (COBAC R-2017/07 Arts. 17-18, docs/domain.md §4).' }),
    countable_value: moneyResponse().meta({
      description:
        'What provisioning may count of it at the business date: all of a cash ' +
        "cover, an eligible cover less the regulatory minimum of its loan's years " +
        'doubtful, nothing of another kind, nor of one not in force on a running loan.',
    }),
    status: yup
      .string()
      .oneOf(['pending', 'in_force', 'refused'] as const)
      .required()
      .meta({
        description:
          'A covering guarantee is pending until a second person ' +
          'confirms it; only one in force counts for provisioning.',
      }),
    pending_change: yup
      .object({
        change: yup
          .string()
          .oneOf(['add', 'end', 'revalue'] as const)
          .required(),
        end_date: dateResponse().nullable(),
        value: moneyResponse().nullable().meta({ description: 'A revaluation: the new value.' }),
        valuation_date: dateResponse().nullable().meta({ description: 'A revaluation: its date.' }),
        requested_by: yup.string().uuid().required(),
      })
      .nullable()
      .defined()
      .meta({
        description:
          'The change awaiting its confirmation (by another branch head, the direction or an administrator), if any.',
      }),
    created_by: yup.string().uuid().required(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'LoanGuarantee' });

/**
 * What provisioning may count of the guarantee at `date` (docs/domain.md §14.4): nothing unless in force then on a
 * running loan.
 */
function countableAt(row: GuaranteeRow, date: string): string {
  const counts =
    row.status === 'in_force' &&
    (row.loan_status === 'active' || row.loan_status === 'awaiting_disbursement') &&
    row.start_date <= date &&
    (row.end_date === null || row.end_date >= date);
  return counts
    ? formatAmount(countableValue(row.kind, new Money(row.value), { doubtfulSince: row.doubtful_since }, date))
    : '0';
}

function serializeGuarantee(row: GuaranteeRow, businessDate: string) {
  return {
    id: row.id,
    enterprise: row.enterprise_id,
    branch: row.branch_id,
    application: row.application_id,
    loan: row.loan_id,
    kind: row.kind,
    value: row.value,
    start_date: row.start_date,
    end_date: row.end_date,
    description: row.description,
    account: row.compte_client_id,
    guarantor: row.guarantor_client_id,
    valuation_date: row.valuation_date,
    document_reference: row.document_reference,
    cover: coverOf(row.kind),
    countable_value: countableAt(row, businessDate),
    status: row.status,
    pending_change:
      row.pending_change === null
        ? null
        : {
            change: row.pending_change,
            end_date: row.pending_end_date,
            value: row.pending_value,
            valuation_date: row.pending_valuation_date,
            requested_by: row.requested_by!,
          },
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
  };
}

/** The guarantees with their enterprises' business dates, the date their countable values are at. */
async function serializeGuarantees(deps: Deps, rows: readonly GuaranteeRow[]) {
  const dates = new Map<string, string>();
  for (const enterprise of new Set(rows.map((row) => row.enterprise_id)))
    dates.set(enterprise, await businessDateOf(deps.knex, enterprise, deps.clock()));
  return rows.map((row) => serializeGuarantee(row, dates.get(row.enterprise_id)!));
}

/** A guarantee as it is after a change of the request's own. */
const readGuarantee = async (deps: Deps, id: string) =>
  (await serializeGuarantees(deps, [(await guaranteeById(deps.knex, id))!]))[0]!;

/**
 * Guarantees on loans (pledged deposit, mortgage, bank or public guarantee, personal guarantor; never shares).
 * They never change the class; the provisioning run reads the covered part.
 */
export const loanGuaranteeRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/guarantees/',
    module: 'loans',
    operationId: 'listLoanGuarantees',
    summary: 'List guarantees',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      loan: yup.string().uuid().optional(),
      application: yup.string().uuid().optional(),
      guarantor: yup.string().uuid().optional().meta({ description: 'What this member guarantees for others.' }),
    }),
    response: pageSchema(loanGuaranteeSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleRows(guarantees(deps.knex), principal, query, {
        enterprise: 'x.enterprise_id',
        branch: 'x.branch_id',
        loan: 'x.loan_id',
        application: 'x.application_id',
        guarantor: 'x.guarantor_client_id',
      }).orderBy([{ column: 'x.created_at', order: 'desc' }, { column: 'x.id' }]);
      const page = await paginateRows<GuaranteeRow>(rows, query, new URL(ctx.href));
      return { ...page, results: await serializeGuarantees(deps, page.results) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/guarantees/{id}/',
    module: 'loans',
    operationId: 'getLoanGuarantee',
    summary: 'One guarantee',
    access: 'authenticated',
    load: loanLoaders.guarantee,
    params: idParams,
    response: loanGuaranteeSchema,
    errorStatuses: [401, 404],
    handler: async ({ resource, deps }) => (await serializeGuarantees(deps, [resource]))[0]!,
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/guarantees/',
    module: 'loans',
    operationId: 'addLoanGuarantee',
    summary: 'Attach a guarantee to an application in review or to a loan',
    description:
      'A personal guarantor is recorded by any recorder and is ' +
      'in force at once. A guarantee that can lower the provision ' +
      '(pledged deposit, mortgage, bank or public guarantee) is asked by ' +
      'a branch head or above and, under four eyes (`guarantee.change`, ' +
      'the approval policy), answers 202 with the request: the guarantee ' +
      'stays `pending` until another approves it, and is refused if the ' +
      'request is rejected or expires. A pledged deposit names the member `account` ' +
      "(the borrower's or a guarantor member's, of the same enterprise, " +
      'open) whose available balance holds its `value` from the ' +
      'request on: debits cannot take the account below it until ' +
      'the hold is released (…/end/, approved), refused, or the loan ' +
      'repaid or written off. Its cover for provisioning is what of ' +
      "the hold the account's balance still backs (docs/domain.md §4). " +
      'A personal guarantee may name its `guarantor` member and that ' +
      "member's `account`, held the same way up to the `value` guaranteed " +
      '(docs/domain.md §14.4); it covers nothing for provisioning.',
    access: recorders,
    status: 201,
    location: '/api/v1/loans/guarantees/{id}/',
    body: yup.object({
      loan: yup.string().uuid().optional(),
      application: yup.string().uuid().optional(),
      kind: yup.string().oneOf(guaranteeKinds).required(),
      value: amount().required(),
      account: yup
        .string()
        .uuid()
        .optional()
        .meta({
          description:
            'A pledged deposit (required then): the member account the value is held on; a personal ' +
            "guarantee naming its guarantor: the guarantor's account to hold up to the amount guaranteed.",
        }),
      guarantor: yup.string().uuid().optional().meta({
        description: 'A personal guarantee only: the guarantor, a member of the enterprise other than the borrower.',
      }),
      start_date: isoDate().required(),
      end_date: isoDate()
        .optional()
        .nullable()
        .default(null)
        .meta({ description: 'Not for a held account: it is held until released.' }),
      valuation_date: isoDate().optional().meta({ description: 'When the value was assessed; default: start_date.' }),
      document_reference: yup
        .string()
        .trim()
        .max(100)
        .default('')
        .meta({ description: 'The deed, certificate or contract that proves it.' }),
      description: yup.string().trim().max(500).default(''),
    }),
    response: loanGuaranteeSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409],
    refusals: [
      'account_closed',
      'account_frozen',
      'application_closed',
      'insufficient_funds',
      'loan_closed',
      'loan_written_off',
      'member_not_active',
      ...fourEyesRefusals,
    ],
    handler: async ({ body, principal: actor, deps, load, ctx }) => {
      if ((body.loan === undefined) === (body.application === undefined)) {
        throw new AppError('validation', 'invalid_request', 'Give either a loan or an application.', [
          { field: 'loan', message: 'exactly one of loan and application is required' },
        ]);
      }
      if (body.end_date !== null && body.end_date !== undefined && body.end_date < body.start_date) {
        throw new AppError('validation', 'invalid_request', 'The end date is before the start date.', [
          { field: 'end_date', message: 'end_date must not be before start_date' },
        ]);
      }
      const target =
        body.loan !== undefined
          ? await load(loanLoaders.loanScope, body.loan)
          : await load(loanLoaders.application, body.application!);
      const scope = { enterpriseId: target.enterpriseId, branchId: target.branchId };
      // A guarantee that lowers the provision is the maker's part of a four-eyes change: a branch head or above.
      if (needsConfirmation(body.kind)) requireRole(actor, guaranteeCheckers, scope, 'The loan');
      const added = await addGuarantee(deps.activities, actor, {
        loanId: body.loan ?? null,
        applicationId: body.application ?? null,
        kind: body.kind,
        value: body.value,
        startDate: body.start_date,
        endDate: body.end_date ?? null,
        description: body.description,
        accountId: body.account ?? null,
        guarantorId: body.guarantor ?? null,
        valuationDate: body.valuation_date ?? body.start_date,
        documentReference: body.document_reference,
      });
      const guaranteeId = added.id as string;
      if (added.status !== 'pending') return readGuarantee(deps, guaranteeId);
      const inForceNow = async () => {
        await bringGuaranteeInForce(deps.activities, actor, guaranteeId);
        return readGuarantee(deps, guaranteeId);
      };
      return runOrRequest(
        { deps, principal: actor, ctx },
        {
          operation: 'guarantee.change',
          payload: { guaranteeId, change: 'add' },
          scope,
          summary: `Add a ${body.kind.replace('_', ' ')} guarantee of ${added.value as string} XAF`,
        },
        inForceNow,
      ).catch(async (error: unknown) => {
        // Neither in force nor requested (the request could not be opened): refused, so no hold outlives it.
        await deps.knex.transaction((trx) => refusePendingGuarantee(trx, guaranteeId));
        throw error;
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/guarantees/{id}/end/',
    module: 'loans',
    operationId: 'endLoanGuarantee',
    summary: 'Record the end of a guarantee (released or expired): it covers nothing after that date',
    description:
      'A personal guarantor ends at once. Ending a covering ' +
      'guarantee (which raises the provision, and releases a pledged ' +
      "deposit's hold) is asked by a branch head or above and, under " +
      'four eyes (`guarantee.change`, the approval policy), answers 202 ' +
      'with the request: the end takes effect when another approves ' +
      'it; meanwhile the guarantee shows it in `pending_change`.',
    access: recorders,
    status: 200,
    load: loanLoaders.guarantee,
    params: idParams,
    body: yup.object({ end_date: isoDate().required() }),
    response: loanGuaranteeSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['confirmation_pending', 'guarantee_pending', 'guarantee_refused', ...fourEyesRefusals],
    handler: async ({ params, body, principal: actor, deps, resource, ctx }) => {
      const endNow = async () => {
        await endGuarantee(deps.activities, actor, params.id, body.end_date);
        return readGuarantee(deps, params.id);
      };
      if (!needsConfirmation(resource.kind)) return endNow();
      const scope = loanLoaders.guarantee.scope(resource);
      requireRole(actor, guaranteeCheckers, scope, 'The guarantee');
      // A pending end is refused here; a pending addition, by the activity (its guarantee_pending).
      if (resource.pending_change === 'end') throw confirmationPending;
      return runOrRequest(
        { deps, principal: actor, ctx },
        {
          operation: 'guarantee.change',
          payload: { guaranteeId: params.id, endDate: body.end_date },
          scope,
          summary: `End the ${resource.kind.replace('_', ' ')} guarantee of ${resource.value} XAF on ${body.end_date}`,
        },
        endNow,
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/guarantees/{id}/revaluation/',
    module: 'loans',
    operationId: 'revalueLoanGuarantee',
    summary: "Value a guarantee anew: its value and valuation date, and its loan's off-balance",
    description:
      'A guarantee that covers nothing for provisioning (personal, ' +
      'pledge of equipment) is revalued at once. A covering one ' +
      '(mortgage, bank or public guarantee), whose value moves the ' +
      'provision, is asked by a branch head or above and, under four eyes ' +
      '(`guarantee.change`, the approval policy), answers 202 with the ' +
      'request; meanwhile the guarantee shows it in `pending_change`. ' +
      "A guarantee holding an account (a pledged deposit, a guarantor's " +
      'savings) is ended and added again instead (409 `guarantee_held`).',
    access: recorders,
    status: 200,
    load: loanLoaders.guarantee,
    params: idParams,
    body: yup.object({ value: amount().required(), valuation_date: isoDate().required() }),
    response: loanGuaranteeSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['confirmation_pending', 'guarantee_held', 'guarantee_not_in_force', ...fourEyesRefusals],
    handler: async ({ params, body, principal: actor, deps, resource, ctx }) => {
      const revaluation = { value: body.value, valuationDate: body.valuation_date };
      const revalueNow = async () => {
        await revalueGuarantee(deps.activities, actor, params.id, revaluation);
        return readGuarantee(deps, params.id);
      };
      if (!needsConfirmation(resource.kind)) return revalueNow();
      const scope = loanLoaders.guarantee.scope(resource);
      requireRole(actor, guaranteeCheckers, scope, 'The guarantee');
      if (resource.pending_change !== null) throw confirmationPending;
      return runOrRequest(
        { deps, principal: actor, ctx },
        {
          operation: 'guarantee.change',
          payload: {
            guaranteeId: params.id,
            change: 'revalue',
            value: formatAmount(body.value),
            valuationDate: body.valuation_date,
          },
          scope,
          summary:
            `Value the ${resource.kind.replace('_', ' ')} guarantee at ${formatAmount(body.value)} ` +
            `XAF on ${body.valuation_date} (was ${resource.value} XAF)`,
        },
        revalueNow,
      );
    },
  }),
];
