import type { Knex } from 'knex';
import * as yup from 'yup';
import { addGuarantee, decideGuarantee, endGuarantee } from '../../../activities/loans/loan-guarantees.activity';
import { guaranteeCheckers, needsConfirmation } from '../../../domain/loans/guarantee-confirmation';
import { guaranteeKinds, type GuaranteeKind } from '../../../domain/loans/provisioning';
import { AppError, NotFoundError } from '../../../domain/errors';
import { requireRole, requireVisible } from '../../auth/access';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { amount, moneyResponse } from '../money.schemas';

const recorders = ['cashier', 'branch_head', 'credit_committee', 'direction'] as const;
const columns = ['g.id', 'g.enterprise_id', 'g.application_id', 'g.loan_id', 'g.kind', 'g.value', 'g.start_date', 'g.end_date', 'g.description', 'g.compte_client_id', 'g.status', 'g.created_by', 'g.created_at'];

interface GuaranteeRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  application_id: string | null;
  loan_id: string | null;
  kind: GuaranteeKind;
  value: string;
  start_date: string;
  end_date: string | null;
  description: string;
  compte_client_id: string | null;
  status: 'pending' | 'in_force' | 'refused';
  pending_change: 'add' | 'end' | null;
  pending_end_date: string | null;
  requested_by: string | null;
  created_by: string;
  created_at: Date;
}

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

/** Guarantees with the branch they belong to (their loan's or application's), for scoping, and their pending change. */
function guarantees(knex: Knex) {
  const rows = knex('loan_guarantees as g')
    .leftJoin('loans as l', 'l.id', 'g.loan_id')
    .leftJoin('loan_applications as a', 'a.id', 'g.application_id')
    .leftJoin('loan_guarantee_confirmations as c', (join) => join.on('c.guarantee_id', 'g.id').andOnVal('c.decision', 'pending'))
    .select([
      ...columns, knex.raw('COALESCE(l.branch_id, a.branch_id) AS branch_id'), 'c.change AS pending_change', knex.raw(`to_char(c.end_date, 'YYYY-MM-DD') AS pending_end_date`),
      'c.requested_by',
    ]);
  return knex.from(rows.as('x')).select('*');
}

async function guaranteeById(knex: Knex, id: string) {
  const row: GuaranteeRow | undefined = await guarantees(knex).where('x.id', id).first();
  if (row === undefined) throw new NotFoundError('The guarantee');
  return serializeGuarantee(row);
}

async function scopeOf(knex: Knex, target: { loan?: string; application?: string }) {
  const row = target.loan !== undefined
    ? await knex('loans').where({ id: target.loan }).first('enterprise_id', 'branch_id')
    : await knex('loan_applications').where({ id: target.application }).first('enterprise_id', 'branch_id');
  if (row === undefined) throw new NotFoundError(target.loan !== undefined ? 'The loan' : 'The loan application');
  return { enterpriseId: row.enterprise_id as string, branchId: row.branch_id as string };
}

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
    params: idParams,
    response: loanGuaranteeSchema,
    errorStatuses: [401, 404],
    handler: async ({ params, principal, deps }) => {
      const guarantee = await guaranteeById(deps.knex, params.id);
      requireVisible(principal, { enterpriseId: guarantee.enterprise, branchId: guarantee.branch }, 'The guarantee');
      return guarantee;
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/guarantees/',
    module: 'loans',
    operationId: 'addLoanGuarantee',
    summary: 'Attach a guarantee to an application in review or to a loan',
    description: 'A personal guarantor is recorded by any recorder and is in force at once. A guarantee that can lower the provision '
      + '(pledged deposit, mortgage, bank or public guarantee) is asked by a branch head or above and stays `pending` until a different '
      + 'branch head, the direction or an administrator confirms it (…/confirmation/). A pledged deposit names the member `account` '
      + '(the borrower\'s or a guarantor member\'s, of the same enterprise, open) whose available balance holds its `value` from the '
      + 'request on: debits cannot take the account below it until the hold is released (…/end/, confirmed), refused, or the loan '
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
    errorStatuses: [401, 403, 404, 409],
    refusals: ['account_closed', 'account_frozen', 'application_closed', 'insufficient_funds', 'loan_closed', 'loan_written_off'],
    handler: async ({ body, principal: actor, deps, authorize }) => {
      if ((body.loan === undefined) === (body.application === undefined)) {
        throw new AppError('validation', 'invalid_request', 'Give either a loan or an application.', [{ field: 'loan', message: 'exactly one of loan and application is required' }]);
      }
      if (body.end_date !== null && body.end_date !== undefined && body.end_date < body.start_date) {
        throw new AppError('validation', 'invalid_request', 'The end date is before the start date.', [{ field: 'end_date', message: 'end_date must not be before start_date' }]);
      }
      const scope = await scopeOf(deps.knex, body);
      authorize(scope, 'The loan');
      // A guarantee that lowers the provision is the maker's part of a four-eyes change: a branch head or above.
      if (needsConfirmation(body.kind)) requireRole(actor, guaranteeCheckers, scope, 'The loan');
      const added = await addGuarantee(deps.activities, actor, {
        loanId: body.loan ?? null, applicationId: body.application ?? null, kind: body.kind, value: body.value,
        startDate: body.start_date, endDate: body.end_date ?? null, description: body.description, accountId: body.account ?? null,
      });
      return guaranteeById(deps.knex, added.id as string);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/guarantees/{id}/end/',
    module: 'loans',
    operationId: 'endLoanGuarantee',
    summary: 'Record the end of a guarantee (released or expired): it covers nothing after that date',
    description: 'A personal guarantor ends at once. Ending a covering guarantee (which raises the provision, and releases a pledged '
      + 'deposit\'s hold) is asked by a branch head or above and takes effect when another confirms it: the answer shows it in `pending_change`.',
    access: recorders,
    status: 200,
    params: idParams,
    body: yup.object({ end_date: isoDate().required() }),
    response: loanGuaranteeSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['confirmation_pending', 'guarantee_pending', 'guarantee_refused'],
    handler: async ({ params, body, principal: actor, deps, authorize }) => {
      const { scope, kind } = await guaranteeScope(deps.knex, params.id);
      authorize(scope, 'The guarantee');
      if (needsConfirmation(kind)) requireRole(actor, guaranteeCheckers, scope, 'The guarantee');
      await endGuarantee(deps.activities, actor, params.id, body.end_date);
      return guaranteeById(deps.knex, params.id);
    },
  }),
  ...(['confirmed', 'refused'] as const).map((decision) => defineRoute({
    method: 'post',
    path: `/api/v1/loans/guarantees/{id}/${decision === 'confirmed' ? 'confirmation' : 'refusal'}/`,
    module: 'loans',
    operationId: decision === 'confirmed' ? 'confirmLoanGuarantee' : 'refuseLoanGuarantee',
    summary: decision === 'confirmed'
      ? 'Confirm a guarantee\'s pending change (its addition or end): the second person, never the one who asked'
      : 'Refuse a guarantee\'s pending change: an addition is refused (its hold freed), an end dropped (the guarantee stays in force)',
    description: 'Four eyes (COBAC R-2017/06 Art. 5): a branch head, the direction or an administrator other than the one who asked the change. Audited with the reason.',
    access: guaranteeCheckers,
    status: 200,
    params: idParams,
    body: yup.object({ reason: yup.string().trim().max(500).default('') }),
    response: loanGuaranteeSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['application_closed', 'nothing_to_confirm', 'same_person'],
    handler: async ({ params, body, principal: actor, deps, authorize }) => {
      authorize((await guaranteeScope(deps.knex, params.id)).scope, 'The guarantee');
      await decideGuarantee(deps.activities, actor, params.id, decision, body.reason);
      return guaranteeById(deps.knex, params.id);
    },
  })),
];

/** Where a guarantee lies (its loan's or application's enterprise and branch) and its kind; 404 when there is none. */
async function guaranteeScope(knex: Knex, id: string) {
  const guarantee = await knex('loan_guarantees').where({ id }).first('loan_id', 'application_id', 'kind');
  if (guarantee === undefined) throw new NotFoundError('The guarantee');
  const scope = await scopeOf(knex, guarantee.loan_id !== null ? { loan: guarantee.loan_id } : { application: guarantee.application_id });
  return { scope, kind: guarantee.kind as GuaranteeKind };
}
