import type { Knex } from 'knex';
import * as yup from 'yup';
import { addGuarantee, bringGuaranteeInForce, confirmationPending, endGuarantee, refusePendingGuarantee } from '../../../activities/loans/loan-guarantees.activity';
import { guaranteeCheckers, needsConfirmation } from '../../../domain/loans/guarantee-confirmation';
import { guaranteeById, guarantees, type GuaranteeRow } from '../../../activities/loans/loan-guarantees.queries';
import { guaranteeKinds } from '../../../domain/loans/provisioning';
import { AppError } from '../../../domain/errors';
import { requireRole } from '../../auth/access';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { amount, moneyResponse } from '../money.schemas';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { loanLoaders } from './loans.queries';

const recorders = ['cashier', 'branch_head', 'credit_committee', 'direction'] as const;
const loanGuaranteeSchema = yup.object({
  id: yup.string().uuid().required(),
  enterprise: yup.string().uuid().required(),
  branch: yup.string().uuid().required().meta({ description: 'Its loan\'s or application\'s branch.' }),
  application: yup.string().uuid().nullable().defined().meta({ description: 'The application it was attached to, if any (it passes to the loan at final approval).' }),
  loan: yup.string().uuid().nullable().defined(),
  kind: yup.string().oneOf(guaranteeKinds).required(),
  value: moneyResponse(),
  start_date: dateResponse(),
  end_date: dateResponse().nullable().meta({ description: 'Released or expired on; null while it runs.' }),
  description: yup.string().defined(),
  account: yup.string().uuid().nullable().defined().meta({ description: 'A pledged deposit: the member account its value is held on.' }),
  status: yup.string().oneOf(['pending', 'in_force', 'refused'] as const).required()
    .meta({ description: 'A covering guarantee is pending until a second person confirms it; only one in force counts for provisioning.' }),
  pending_change: yup.object({
    change: yup.string().oneOf(['add', 'end'] as const).required(),
    end_date: dateResponse().nullable(),
    requested_by: yup.string().uuid().required(),
  }).nullable().defined().meta({ description: 'The change awaiting its confirmation (by another branch head, the direction or an administrator), if any.' }),
  created_by: yup.string().uuid().required(),
  created_at: timestampResponse(),
}).meta({ component: 'LoanGuarantee' });

function serializeGuarantee(row: GuaranteeRow) {
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
    status: row.status,
    pending_change: row.pending_change === null ? null : { change: row.pending_change, end_date: row.pending_end_date, requested_by: row.requested_by! },
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
  };
}

/** A guarantee as it is after a change of the request's own. */
const readGuarantee = async (knex: Knex, id: string) => serializeGuarantee((await guaranteeById(knex, id))!);

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
    query: listQuerySchema([], { enterprise: enterpriseFilter, loan: yup.string().uuid().optional(), application: yup.string().uuid().optional() }),
    response: pageSchema(loanGuaranteeSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(guarantees(deps.knex), principal, { enterprise: 'x.enterprise_id', branch: 'x.branch_id' }).orderBy([{ column: 'x.created_at', order: 'desc' }, { column: 'x.id' }]);
      whereFilters(rows, query, { enterprise: 'x.enterprise_id', loan: 'x.loan_id', application: 'x.application_id' });
      const page = await paginateRows<GuaranteeRow>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serializeGuarantee) };
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
    handler: ({ resource }) => serializeGuarantee(resource),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/guarantees/',
    module: 'loans',
    operationId: 'addLoanGuarantee',
    summary: 'Attach a guarantee to an application in review or to a loan',
    description: 'A personal guarantor is recorded by any recorder and is in force at once. A guarantee that can lower the provision '
      + '(pledged deposit, mortgage, bank or public guarantee) is asked by a branch head or above and, under four eyes (`guarantee.change`, '
      + 'the approval policy), answers 202 with the request: the guarantee stays `pending` until another approves it, and is refused if the '
      + 'request is rejected or expires. A pledged deposit names the member `account` '
      + '(the borrower\'s or a guarantor member\'s, of the same enterprise, open) whose available balance holds its `value` from the '
      + 'request on: debits cannot take the account below it until the hold is released (…/end/, approved), refused, or the loan '
      + 'repaid or written off. Its cover for provisioning is what of the hold the account\'s balance still backs (docs/domain.md §4).',
    access: recorders,
    status: 201,
    location: '/api/v1/loans/guarantees/{id}/',
    body: yup.object({
      loan: yup.string().uuid().optional(),
      application: yup.string().uuid().optional(),
      kind: yup.string().oneOf(guaranteeKinds).required(),
      value: amount().required(),
      account: yup.string().uuid().optional().meta({ description: 'A pledged deposit only (required then): the member account the value is held on.' }),
      start_date: isoDate().required(),
      end_date: isoDate().optional().nullable().default(null).meta({ description: 'Not for a pledged deposit: it is held until released.' }),
      description: yup.string().trim().max(500).default(''),
    }),
    response: loanGuaranteeSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['account_closed', 'account_frozen', 'application_closed', 'insufficient_funds', 'loan_closed', 'loan_written_off', ...fourEyesRefusals],
    handler: async ({ body, principal: actor, deps, load, ctx }) => {
      if ((body.loan === undefined) === (body.application === undefined)) {
        throw new AppError('validation', 'invalid_request', 'Give either a loan or an application.', [{ field: 'loan', message: 'exactly one of loan and application is required' }]);
      }
      if (body.end_date !== null && body.end_date !== undefined && body.end_date < body.start_date) {
        throw new AppError('validation', 'invalid_request', 'The end date is before the start date.', [{ field: 'end_date', message: 'end_date must not be before start_date' }]);
      }
      const target = body.loan !== undefined ? await load(loanLoaders.loanScope, body.loan) : await load(loanLoaders.application, body.application!);
      const scope = { enterpriseId: target.enterpriseId, branchId: target.branchId };
      // A guarantee that lowers the provision is the maker's part of a four-eyes change: a branch head or above.
      if (needsConfirmation(body.kind)) requireRole(actor, guaranteeCheckers, scope, 'The loan');
      const added = await addGuarantee(deps.activities, actor, {
        loanId: body.loan ?? null, applicationId: body.application ?? null, kind: body.kind, value: body.value,
        startDate: body.start_date, endDate: body.end_date ?? null, description: body.description, accountId: body.account ?? null,
      });
      const guaranteeId = added.id as string;
      if (added.status !== 'pending') return readGuarantee(deps.knex, guaranteeId);
      const inForceNow = async () => {
        await bringGuaranteeInForce(deps.activities, actor, guaranteeId);
        return readGuarantee(deps.knex, guaranteeId);
      };
      return runOrRequest({ deps, principal: actor, ctx }, {
        operation: 'guarantee.change', payload: { guaranteeId, change: 'add' }, scope,
        summary: `Add a ${body.kind.replace('_', ' ')} guarantee of ${added.value as string} XAF`,
      }, inForceNow).catch(async (error: unknown) => {
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
    description: 'A personal guarantor ends at once. Ending a covering guarantee (which raises the provision, and releases a pledged '
      + 'deposit\'s hold) is asked by a branch head or above and, under four eyes (`guarantee.change`, the approval policy), answers 202 '
      + 'with the request: the end takes effect when another approves it; meanwhile the guarantee shows it in `pending_change`.',
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
        return readGuarantee(deps.knex, params.id);
      };
      if (!needsConfirmation(resource.kind)) return endNow();
      const scope = loanLoaders.guarantee.scope(resource);
      requireRole(actor, guaranteeCheckers, scope, 'The guarantee');
      if (resource.pending_change === 'end') throw confirmationPending; // a pending addition: the activity's guarantee_pending
      return runOrRequest({ deps, principal: actor, ctx }, {
        operation: 'guarantee.change', payload: { guaranteeId: params.id, endDate: body.end_date }, scope,
        summary: `End the ${resource.kind.replace('_', ' ')} guarantee of ${resource.value} XAF on ${body.end_date}`,
      }, endNow);
    },
  }),
];
