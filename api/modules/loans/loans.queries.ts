import { readApplication, type ApplicationRow } from '../../../activities/loans/loan-applications.queries';
import { guaranteeById, type GuaranteeRow } from '../../../activities/loans/loan-guarantees.queries';
import { runById } from '../../../activities/loans/provisioning.queries';
import { repaymentsQuery, type LoanRepaymentDetail } from '../../../activities/loans/loan-repayments.activity';
import { recoveriesQuery, type LoanRecoveryRow } from '../../../activities/loans/loan-recoveries.activity';
import { prepaymentById, type LoanPrepaymentDetail } from '../../../activities/loans/loan-prepayments.activity';
import type { Scope } from '../../../domain/access';
import { LoanProduct } from '../../../db/models/loan-product.model';
import { Loan } from '../../../db/models/loan.model';
import type { Knex } from 'knex';
import type { Principal } from '../../auth/principal';
import type { Loader } from '../../route';
import type { loanMoneyFilters } from './loan-money.schemas';
import { enterpriseRowLoader, fixedScopeLoader } from '../enterprise-scope';
import { visibleRows } from '../list-rows';

const loan = {
  name: 'The loan',
  load: async ({ knex }, id) => Loan.query(knex).findById(id),
  scope: (row): Scope => ({ enterpriseId: row.enterpriseId, branchId: row.branchId }),
} satisfies Loader<Loan>;

/** The resources of the loans module a route loads by id (the router checks access: api/router.ts). */
export const loanLoaders = {
  loan,
  /** Where a loan lies, remembered (a repayment locks and reads the loan itself). */
  loanScope: fixedScopeLoader('The loan', 'loans', 'loanScopes'),
  product: {
    name: 'The loan product',
    load: async ({ knex }, id) => LoanProduct.query(knex).findById(id),
    scope: (product) => ({ enterpriseId: product.enterpriseId }),
  } satisfies Loader<LoanProduct>,
  repayment: {
    name: 'The repayment',
    load: async ({ knex }, id) =>
      repaymentsQuery(knex).where('r.id', id).first() as Promise<LoanRepaymentDetail | undefined>,
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<LoanRepaymentDetail>,
  recovery: {
    name: 'The recovery',
    load: async ({ knex }, id) =>
      recoveriesQuery(knex).where('r.id', id).first() as Promise<LoanRecoveryRow | undefined>,
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<LoanRecoveryRow>,
  application: {
    name: 'The loan application',
    load: async ({ knex }, id) => readApplication(knex, id),
    scope: (row) => ({ enterpriseId: row.enterpriseId, branchId: row.branchId }),
  } satisfies Loader<ApplicationRow>,
  guarantee: {
    name: 'The guarantee',
    load: async ({ knex }, id) => guaranteeById(knex, id),
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<GuaranteeRow>,
  // The enterprise's figures: a user of some branches reads their loans' provisions at /loans/provisions/.
  provisioningRun: { ...enterpriseRowLoader('The provisioning run', runById), wholeEnterprise: () => true },
  prepayment: {
    name: 'The prepayment',
    load: async ({ knex }, id) => prepaymentById(knex, { 'p.id': id }),
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<LoanPrepaymentDetail>,
};

type LoanMoneyQuery = { [K in keyof typeof loanMoneyFilters]?: string };

/**
 * A list of money paid on loans (repayments, recoveries, prepayments; `alias` names its table) as the caller sees
 * it, newest first, filtered by loanMoneyFilters.
 */
export function visibleLoanMoney(
  rows: Knex.QueryBuilder,
  principal: Principal,
  query: LoanMoneyQuery,
  alias = 'r',
): Knex.QueryBuilder {
  const column = (name: string) => `${alias}.${name}`;
  visibleRows(rows, principal, query, {
    enterprise: column('enterprise_id'),
    branch: column('branch_id'),
    loan: column('loan_id'),
  }).orderBy([{ column: column('created_at'), order: 'desc' }, { column: column('id') }]);
  if (query.date_from !== undefined) rows.where(column('business_date'), '>=', query.date_from);
  if (query.date_to !== undefined) rows.where(column('business_date'), '<=', query.date_to);
  return rows;
}
