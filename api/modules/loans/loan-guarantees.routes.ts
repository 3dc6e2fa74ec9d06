import type { Knex } from 'knex';
import * as yup from 'yup';
import { addGuarantee, endGuarantee } from '../../../activities/loans/portfolio-quality.activity';
import { guaranteeKinds, type GuaranteeKind } from '../../../domain/loans/provisioning';
import { AppError, NotFoundError } from '../../../domain/errors';
import { parseAmount } from '../../../domain/money';
import { requireVisible } from '../../auth/access';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { amountSchema, moneyResponse } from '../money.schemas';

const recorders = ['cashier', 'branch_head', 'credit_committee', 'direction'] as const;
const columns = ['g.id', 'g.enterprise_id', 'g.application_id', 'g.loan_id', 'g.kind', 'g.value', 'g.start_date', 'g.end_date', 'g.description', 'g.created_by', 'g.created_at'];

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
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
  };
}

/** Guarantees with the branch they belong to (their loan's or application's), for scoping. */
function guarantees(knex: Knex) {
  const rows = knex('loan_guarantees as g')
    .leftJoin('loans as l', 'l.id', 'g.loan_id')
    .leftJoin('loan_applications as a', 'a.id', 'g.application_id')
    .select([...columns, knex.raw('COALESCE(l.branch_id, a.branch_id) AS branch_id')]);
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
    access: recorders,
    status: 201,
    location: '/api/v1/loans/guarantees/{id}/',
    body: yup.object({
      loan: yup.string().uuid().optional(),
      application: yup.string().uuid().optional(),
      kind: yup.string().oneOf(guaranteeKinds).required(),
      value: amountSchema().required(),
      start_date: isoDate().required(),
      end_date: isoDate().optional().nullable().default(null),
      description: yup.string().trim().max(500).default(''),
    }),
    response: loanGuaranteeSchema,
    errorStatuses: [401, 403, 404, 409],
    handler: async ({ body, principal: actor, deps, authorize }) => {
      if ((body.loan === undefined) === (body.application === undefined)) {
        throw new AppError('validation', 'invalid_request', 'Give either a loan or an application.', [{ field: 'loan', message: 'exactly one of loan and application is required' }]);
      }
      if (body.end_date !== null && body.end_date !== undefined && body.end_date < body.start_date) {
        throw new AppError('validation', 'invalid_request', 'The end date is before the start date.', [{ field: 'end_date', message: 'end_date must not be before start_date' }]);
      }
      authorize(await scopeOf(deps.knex, body), 'The loan');
      const added = await addGuarantee(deps.activities, actor, {
        loanId: body.loan ?? null, applicationId: body.application ?? null, kind: body.kind, value: parseAmount(body.value)!,
        startDate: body.start_date, endDate: body.end_date ?? null, description: body.description,
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
    access: recorders,
    status: 200,
    params: idParams,
    body: yup.object({ end_date: isoDate().required() }),
    response: loanGuaranteeSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ params, body, principal: actor, deps, authorize }) => {
      const guarantee = await deps.knex('loan_guarantees').where({ id: params.id }).first('loan_id', 'application_id');
      if (guarantee === undefined) throw new NotFoundError('The guarantee');
      authorize(await scopeOf(deps.knex, guarantee.loan_id !== null ? { loan: guarantee.loan_id } : { application: guarantee.application_id }), 'The guarantee');
      await endGuarantee(deps.activities, actor, params.id, body.end_date);
      return guaranteeById(deps.knex, params.id);
    },
  }),
];
