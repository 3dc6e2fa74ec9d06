import type { Knex } from 'knex';
import { AppError } from '../../domain/errors';
import { Loan } from '../../db/models/loan.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';

/**
 * A loan officer is an active user with a role granted in the loan's branch, or over its whole enterprise
 * (docs/domain.md §14.5): someone of the branch follows the credit. A platform administrator is not one.
 */
export async function loanOfficerFor(
  trx: Knex.Transaction,
  scope: { enterpriseId: string; branchId: string },
  userId: string,
  field = 'loan_officer',
): Promise<string> {
  const grant = await trx('role_grants as g')
    .join('users as u', 'u.id', 'g.user_id')
    .where({ 'g.user_id': userId, 'g.enterprise_id': scope.enterpriseId, 'u.is_active': true })
    .whereNull('g.revoked_at')
    .whereNot('g.role', 'admin')
    .where((branch) => branch.where('g.branch_id', scope.branchId).orWhereNull('g.branch_id'))
    .first('g.id');
  if (grant === undefined) {
    throw new AppError(
      'unprocessable',
      'loan_officer_not_in_branch',
      "The loan officer must be an active user with a role in the loan's branch.",
      [{ field, message: 'must be an active user with a role in the branch' }],
    );
  }
  return userId;
}

export interface OfficerReassignment {
  loanId: string;
  officerId: string;
  reason: string;
}

/**
 * Hands a loan to another officer from the business date on (branch head, direction): the loan names the new
 * one, and the reassignment is kept, append-only, with the officer before, who decided it and why; audited.
 */
export async function reassignLoanOfficer(
  context: DataContext,
  actor: Actor,
  input: OfficerReassignment,
): Promise<Loan> {
  return inTransaction(context.knex, async (trx) => {
    const loan = await Loan.query(trx).findById(input.loanId).forUpdate().throwIfNotFound();
    if (loan.status === 'closed' || loan.status === 'written_off')
      throw new AppError(
        'conflict',
        'loan_officer_loan_ended',
        `Loan ${loan.number} is ${loan.status}: its officer stays as it was.`,
      );
    if (loan.loanOfficerId === input.officerId)
      throw new AppError('conflict', 'loan_officer_unchanged', `Loan ${loan.number} already has this loan officer.`);
    await loanOfficerFor(trx, { enterpriseId: loan.enterpriseId, branchId: loan.branchId }, input.officerId, 'officer');
    const assignedOn = await businessDateOf(trx, loan.enterpriseId, context.clock());
    await trx('loan_officer_assignments').insert({
      loan_id: loan.id,
      enterprise_id: loan.enterpriseId,
      branch_id: loan.branchId,
      from_officer_id: loan.loanOfficerId,
      to_officer_id: input.officerId,
      assigned_on: assignedOn,
      assigned_by: actor.userId,
      reason: input.reason,
    });
    const updated = await Loan.query(trx).patchAndFetchById(loan.id, { loanOfficerId: input.officerId });
    await recordAudit(trx, actor, {
      action: 'loan.officer_reassign',
      entityType: 'loan',
      entityId: loan.id,
      enterpriseId: loan.enterpriseId,
      details: {
        number: loan.number,
        from: loan.loanOfficerId,
        to: input.officerId,
        assigned_on: assignedOn,
        reason: input.reason,
      },
    });
    return updated;
  });
}

export interface OfficerAssignmentRow {
  id: string;
  loan_id: string;
  loan_number: string;
  enterprise_id: string;
  branch_id: string;
  from_officer_id: string;
  to_officer_id: string;
  assigned_on: string;
  assigned_by: string;
  reason: string;
  created_at: Date;
}

/** The reassignments, with their loan's number: the caller narrows and orders them. */
export const officerAssignmentsQuery = (knex: Knex): Knex.QueryBuilder<OfficerAssignmentRow> =>
  knex('loan_officer_assignments as a')
    .join('loans as l', 'l.id', 'a.loan_id')
    .select(
      'a.id',
      'a.loan_id',
      'l.number as loan_number',
      'a.enterprise_id',
      'a.branch_id',
      'a.from_officer_id',
      'a.to_officer_id',
      knex.raw(`to_char(a.assigned_on, 'YYYY-MM-DD') AS assigned_on`),
      'a.assigned_by',
      'a.reason',
      'a.created_at',
    );
