import * as yup from 'yup';
import {
  officerAssignmentsQuery,
  reassignLoanOfficer,
  type OfficerAssignmentRow,
} from '../../../activities/loans/loan-officers.activity';
import { listQuerySchema, pageSchema, paginateRows } from '../../pagination';
import { defineRoute } from '../../route';
import { enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { loanSchema, serializeLoan } from './loans.routes';
import { loanLoaders } from './loans.queries';
import { officerAssignmentSchema, serializeAssignment } from './loan-officers.schemas';

/** Loan officers (docs/domain.md §14.5): a loan's reassignment to another officer, and the history of reassignments. */
export const loanOfficerRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/v1/loans/loans/{id}/officer/',
    module: 'loans',
    operationId: 'reassignLoanOfficer',
    summary:
      'Hand a loan to another loan officer from the business date, with ' +
      'a reason (branch head, direction); kept in its history, audited',
    description:
      "The new officer is an active user with a role in the loan's branch (or " +
      'over the whole enterprise). A closed or written-off loan keeps its officer.',
    access: ['branch_head', 'direction'],
    status: 200,
    load: loanLoaders.loan,
    params: idParams,
    body: yup.object({
      officer: yup.string().uuid().required(),
      reason: yup.string().trim().required().min(3).max(500),
    }),
    response: loanSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: ['loan_officer_loan_ended', 'loan_officer_not_in_branch', 'loan_officer_unchanged'],
    handler: async ({ resource: loan, body, principal: actor, deps }) =>
      serializeLoan(
        await reassignLoanOfficer(deps.activities, actor, {
          loanId: loan.id,
          officerId: body.officer,
          reason: body.reason,
        }),
      ),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/officer-assignments/',
    module: 'loans',
    operationId: 'listLoanOfficerAssignments',
    summary: 'List the reassignments of loans from one loan officer to another, newest first',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      loan: yup.string().uuid().optional(),
      officer: yup.string().uuid().optional().meta({ description: 'Reassignments to or from this user.' }),
      date_from: isoDate().optional(),
      date_to: isoDate().optional(),
    }),
    response: pageSchema(officerAssignmentSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleRows(officerAssignmentsQuery(deps.knex), principal, query, {
        enterprise: 'a.enterprise_id',
        branch: 'a.branch_id',
        loan: 'a.loan_id',
        date_from: ['a.assigned_on', '>='],
        date_to: ['a.assigned_on', '<='],
      });
      if (query.officer !== undefined)
        rows.where((officer) =>
          officer.where('a.from_officer_id', query.officer!).orWhere('a.to_officer_id', query.officer!),
        );
      const page = await paginateRows<OfficerAssignmentRow>(
        rows.orderBy([{ column: 'a.created_at', order: 'desc' }, { column: 'a.id' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializeAssignment) };
    },
  }),
];
