import * as yup from 'yup';
import { addGuarantee, endGuarantee } from '../../activities/loans/portfolio-quality.activity';
import { guaranteeKinds } from '../../domain/loans/provisioning';
import { AppError, NotFoundError } from '../../domain/errors';
import { parseAmount } from '../../domain/money';
import { requireRole, signedIn } from '../auth/access';
import { listQuerySchema, paginateRows, whereFilters } from '../pagination';
import { defineRoute } from '../route';
import { enterpriseFilter, idParams, isoDate } from './common.schemas';
import { scopeToVisible } from './enterprise-scope';
import { amountSchema } from './money.schemas';

const recorders = ['cashier', 'branch_head', 'credit_committee', 'direction'] as const;
const columns = ['g.id', 'g.enterprise_id', 'g.application_id', 'g.loan_id', 'g.kind', 'g.value', 'g.start_date', 'g.end_date', 'g.description', 'g.created_by', 'g.created_at'];

/** Guarantees with the branch they belong to (their loan's or application's), for scoping. */
function guarantees(knex: import('knex').Knex) {
  const rows = knex('loan_guarantees as g')
    .leftJoin('loans as l', 'l.id', 'g.loan_id')
    .leftJoin('loan_applications as a', 'a.id', 'g.application_id')
    .select([...columns, knex.raw('COALESCE(l.branch_id, a.branch_id) AS branch_id')]);
  return knex.from(rows.as('x')).select('*');
}

async function scopeOf(knex: import('knex').Knex, target: { loan?: string; application?: string }) {
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
    errorStatuses: [401],
    handler: ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(guarantees(deps.knex), signedIn(principal), { enterprise: 'x.enterprise_id', branch: 'x.branch_id' }).orderBy([{ column: 'x.created_at', order: 'desc' }, { column: 'x.id' }]);
      whereFilters(rows, query, { enterprise: 'x.enterprise_id', loan: 'x.loan_id', application: 'x.application_id' });
      return paginateRows(rows, query, new URL(ctx.href));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/guarantees/',
    module: 'loans',
    operationId: 'addLoanGuarantee',
    summary: 'Attach a guarantee to an application in review or to a loan',
    access: recorders,
    status: 201,
    body: yup.object({
      loan: yup.string().uuid().optional(),
      application: yup.string().uuid().optional(),
      kind: yup.string().oneOf(guaranteeKinds).required(),
      value: amountSchema().required(),
      start_date: isoDate().required(),
      end_date: isoDate().optional().nullable().default(null),
      description: yup.string().trim().max(500).default(''),
    }),
    errorStatuses: [401, 403, 404, 409],
    handler: async ({ body, principal, deps }) => {
      const actor = signedIn(principal);
      if ((body.loan === undefined) === (body.application === undefined)) {
        throw new AppError('validation', 'invalid_request', 'Give either a loan or an application.', [{ field: 'loan', message: 'exactly one of loan and application is required' }]);
      }
      if (body.end_date !== null && body.end_date !== undefined && body.end_date < body.start_date) {
        throw new AppError('validation', 'invalid_request', 'The end date is before the start date.', [{ field: 'end_date', message: 'end_date must not be before start_date' }]);
      }
      requireRole(actor, recorders, await scopeOf(deps.knex, body), 'The loan');
      return addGuarantee(deps.activities, actor, {
        loanId: body.loan ?? null, applicationId: body.application ?? null, kind: body.kind, value: parseAmount(body.value)!, startDate: body.start_date, endDate: body.end_date ?? null, description: body.description,
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/guarantees/{id}/end/',
    module: 'loans',
    operationId: 'endLoanGuarantee',
    summary: 'Record the end of a guarantee (released or expired): it covers nothing after that date',
    access: recorders,
    status: 200,
    params: idParams,
    body: yup.object({ end_date: isoDate().required() }),
    errorStatuses: [401, 403, 404],
    handler: async ({ params, body, principal, deps }) => {
      const actor = signedIn(principal);
      const guarantee = await deps.knex('loan_guarantees').where({ id: params.id }).first('loan_id', 'application_id');
      if (guarantee === undefined) throw new NotFoundError('The guarantee');
      requireRole(actor, recorders, await scopeOf(deps.knex, guarantee.loan_id !== null ? { loan: guarantee.loan_id } : { application: guarantee.application_id }), 'The guarantee');
      return endGuarantee(deps.activities, actor, params.id, body.end_date);
    },
  }),
];
