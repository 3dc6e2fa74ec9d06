import * as yup from 'yup';
import type { OfficerAssignmentRow } from '../../../activities/loans/loan-officers.activity';
import { dateResponse, timestampResponse } from '../common.schemas';

export const officerAssignmentSchema = yup
  .object({
    id: yup.string().uuid().required(),
    loan: yup.string().uuid().required(),
    loan_number: yup.string().required(),
    branch: yup.string().uuid().required(),
    from_officer: yup.string().uuid().required(),
    to_officer: yup.string().uuid().required(),
    assigned_on: dateResponse().meta({ description: 'The business date from which the new officer follows the loan.' }),
    assigned_by: yup.string().uuid().required(),
    reason: yup.string().required(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'LoanOfficerAssignment' });

export const serializeAssignment = (row: OfficerAssignmentRow) => ({
  id: row.id,
  loan: row.loan_id,
  loan_number: row.loan_number,
  branch: row.branch_id,
  from_officer: row.from_officer_id,
  to_officer: row.to_officer_id,
  assigned_on: row.assigned_on,
  assigned_by: row.assigned_by,
  reason: row.reason,
  created_at: new Date(row.created_at).toISOString(),
});
