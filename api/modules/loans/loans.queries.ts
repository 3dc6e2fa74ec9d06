import { readApplication, type ApplicationRow } from '../../../activities/loans/loan-applications.queries';
import { guaranteeById, type GuaranteeRow } from '../../../activities/loans/loan-guarantees.queries';
import { runById } from '../../../activities/loans/provisioning.queries';
import { repaymentsQuery, type LoanRepaymentDetail } from '../../../activities/loans/loan-repayments.activity';
import { prepaymentById, type LoanPrepaymentDetail } from '../../../activities/loans/loan-prepayments.activity';
import type { Scope } from '../../../domain/access';
import { LoanProduct } from '../../../db/models/loan-product.model';
import { Loan } from '../../../db/models/loan.model';
import type { Loader } from '../../route';
import { enterpriseRowLoader, fixedScopeLoader } from '../enterprise-scope';

const loan = {
  name: 'The loan',
  load: async ({ knex }, id) => Loan.query(knex).findById(id),
  scope: (row): Scope => ({ enterpriseId: row.enterpriseId, branchId: row.branchId }),
} satisfies Loader<Loan>;

/** The resources of the loans module a route loads by id (the router checks access: api/router.ts). */
export const loanLoaders = {
  loan,
  /** A loan whose decision is the enterprise's (a write-off): seen by its branch, decided by the enterprise's roles. */
  loanOfEnterprise: { ...loan, changeScope: (row) => ({ enterpriseId: row.enterpriseId }) } satisfies Loader<Loan>,
  /** Where a loan lies, remembered (a repayment locks and reads the loan itself). */
  loanScope: fixedScopeLoader('The loan', 'loans', 'loanScopes'),
  product: {
    name: 'The loan product',
    load: async ({ knex }, id) => LoanProduct.query(knex).findById(id),
    scope: (product) => ({ enterpriseId: product.enterpriseId }),
  } satisfies Loader<LoanProduct>,
  repayment: {
    name: 'The repayment',
    load: async ({ knex }, id) => repaymentsQuery(knex).where('r.id', id).first() as Promise<LoanRepaymentDetail | undefined>,
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<LoanRepaymentDetail>,
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
  provisioningRun: enterpriseRowLoader('The provisioning run', runById),
  prepayment: {
    name: 'The prepayment',
    load: async ({ knex }, id) => prepaymentById(knex, { 'p.id': id }),
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<LoanPrepaymentDetail>,
};
