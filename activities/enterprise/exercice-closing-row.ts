/** A row of exercice_closings: the year-end closing of an accounting year (its steps, result and status). */
export interface ExerciceClosingRow {
  id: string;
  enterprise_id: string;
  exercice_id: string;
  next_exercice_id: string;
  status: 'running' | 'closed' | 'failed' | 'reopened';
  step: 'requested' | 'income_closed' | 'carried_forward';
  result: string | null;
  result_account: string | null;
  requested_by: string | null;
  failure: string | null;
  created_at: Date;
  finished_at: Date | null;
}
