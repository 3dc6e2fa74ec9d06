import type { Cooperative } from './cooperative';

export interface RestructuringOutcome {
  restructuring: string;
  loan: string;
  status: string;
  schedule_version: number | null;
}

/**
 * Issue 30, restructuring (docs/domain.md §14.2): the doubtful loan of the story gets a new schedule of 12 months,
 * its arrears capitalised. The head of Akwa asks; direction, above the step that granted it (R-2017/07 Art. 13), a
 * second person, approves. The loan then reads restructured, and stays doubtful until Art. 14's payment is made.
 */
export async function restructureDoubtfulLoan(
  cooperative: Cooperative,
  loan: string,
  log: (line: string) => void,
): Promise<RestructuringOutcome> {
  const { branchHead, direction } = cooperative.staff;
  const asked = await branchHead.session.post<{ payload: { restructuringId: string } }>(
    'ask to restructure the doubtful loan',
    `/api/v1/loans/loans/${loan}/restructurings/`,
    {
      term_periods: 12,
      annual_rate: '0.18',
      grace_periods: 1,
      capitalise_arrears: true,
      reason: 'Récolte perdue: échéancier allongé avec un mois de différé',
    },
  );
  const id = asked.payload.restructuringId;
  const decided = await direction.session.post<RestructuringOutcome & { id: string }>(
    'approve the restructuring',
    `/api/v1/loans/restructurings/${id}/decision/`,
    { decision: 'approve' },
  );
  log(
    `the doubtful loan restructured over 12 months (schedule version ${String(decided.schedule_version)}), asked ` +
      `by the head of Akwa, approved by direction`,
  );
  return { restructuring: id, loan, status: decided.status, schedule_version: decided.schedule_version };
}
