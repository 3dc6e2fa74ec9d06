import type { Knex } from 'knex';
import { NotFoundError } from '../../../domain/errors';
import { Loan } from '../../../db/models/loan.model';
import { requireVisible } from '../../auth/access';
import type { Principal } from '../../auth/principal';

/** A loan the principal may see; 404 otherwise. */
export async function visibleLoan(knex: Knex, principal: Principal, id: string): Promise<Loan> {
  const loan = await Loan.query(knex).findById(id);
  if (loan === undefined) throw new NotFoundError('The loan');
  requireVisible(principal, { enterpriseId: loan.enterpriseId, branchId: loan.branchId }, 'The loan');
  return loan;
}
