import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { dueForWriteOff } from '../../domain/loans/write-off';

/** The branches a report covers: every one of the enterprise, or those named. */
interface ReportScope {
  enterpriseId: string;
  branches: 'all' | readonly string[];
}

const memberName = `CASE WHEN c.kind = 'natural_person' THEN trim(c.first_name || ' ' || c.last_name) ELSE c.legal_name
  END`;

/** What both reports show of a loan: its number, its branch and its member. */
interface ReportedLoan {
  loan: string;
  number: string;
  branch: string;
  branch_code: string;
  member: string;
  member_number: string;
  member_name: string;
}

/** The loans of the scope, selecting what ReportedLoan holds, for both reports. */
function loansOf(knex: Knex, scope: ReportScope) {
  const query = knex('loans as l')
    .join('branches as b', 'b.id', 'l.branch_id')
    .join('client_profiles as c', 'c.id', 'l.client_id')
    .where('l.enterprise_id', scope.enterpriseId)
    .select(
      'l.id as loan',
      'l.number',
      'l.branch_id as branch',
      'b.code as branch_code',
      'l.client_id as member',
      'c.member_number',
      knex.raw(`${memberName} AS member_name`),
    );
  if (scope.branches !== 'all') query.whereIn('l.branch_id', [...scope.branches]);
  return query;
}

export interface WriteOffCandidate extends ReportedLoan {
  doubtful_since: string;
  litigious: boolean;
  outstanding_principal: string;
  provision_amount: string;
  provision_account: string | null;
}

/**
 * The doubtful loans due for write-off at `date` (docs/domain.md §14.3, R-2017/07 Art. 10): doubtful for three years
 * or more by then, as the last provisioning run classed them; oldest downgrade first.
 */
export async function writeOffCandidatesAt(
  knex: Knex,
  scope: ReportScope,
  date: IsoDate,
): Promise<WriteOffCandidate[]> {
  const rows: WriteOffCandidate[] = await loansOf(knex, scope)
    .where({ 'l.status': 'active', 'l.classification': 'doubtful' })
    .where('l.doubtful_since', '<=', date)
    .orderBy([{ column: 'l.doubtful_since' }, { column: 'l.number' }])
    .select(
      knex.raw(`to_char(l.doubtful_since, 'YYYY-MM-DD') AS doubtful_since`),
      'l.litigious',
      'l.outstanding_principal',
      'l.provision_amount',
      'l.provision_account_code as provision_account',
    );
  return rows.filter((row) => dueForWriteOff(row.doubtful_since, date));
}

export interface WrittenOffLoan extends ReportedLoan {
  written_off_on: string;
  written_off_amount: string;
  proposed_by: string | null;
  proposed_by_name: string | null;
  approved_by: string | null;
  approved_by_name: string | null;
  approval_request: string | null;
  related_party_approval: string;
  recovered: string;
}

/**
 * The loans written off from `from` to `to` (docs/domain.md §14.3): the amount, who proposed it (the write-off's
 * maker) and who approved it (the checker of its four-eyes request; none when the policy let one person do it), the
 * recoveries to this day. In the order of their write-off.
 */
export async function writtenOffBetween(
  knex: Knex,
  scope: ReportScope,
  period: { from: IsoDate; to: IsoDate },
): Promise<WrittenOffLoan[]> {
  return loansOf(knex, scope)
    .where('l.status', 'written_off')
    .whereBetween('l.written_off_on', [period.from, period.to])
    .leftJoin('approval_requests as a', (join) => {
      join
        .on('a.enterprise_id', 'l.enterprise_id')
        .andOnVal('a.operation', 'loan.write_off')
        .andOnVal('a.status', 'approved')
        .andOn(knex.raw(`a.payload->>'loanId' = l.id::text`));
    })
    .leftJoin('users as maker', 'maker.id', 'l.written_off_by')
    .leftJoin('users as checker', 'checker.id', 'a.decided_by')
    .orderBy([{ column: 'l.written_off_on' }, { column: 'l.number' }])
    .select(
      knex.raw(`to_char(l.written_off_on, 'YYYY-MM-DD') AS written_off_on`),
      'l.written_off_amount',
      'l.written_off_by as proposed_by',
      'maker.username as proposed_by_name',
      'a.decided_by as approved_by',
      'checker.username as approved_by_name',
      'a.id as approval_request',
      'l.write_off_approval as related_party_approval',
      knex.raw('(SELECT COALESCE(sum(r.amount), 0)::text FROM loan_recoveries r WHERE r.loan_id = l.id) AS recovered'),
    ) as Promise<WrittenOffLoan[]>;
}
