import type { Cooperative } from './cooperative';
import { LoanDesk } from './loans';
import type { Member } from './members';
import { runProvisioning } from './provisioning';

/** What the write-off and recovery leave behind, for the summary and the test. */
export interface RecoveryOutcome {
  loan: string;
  recovery: string;
}

/**
 * Write-off and recovery (issue 30, docs/domain.md §14.3): a small loan to Mvondo goes to court at once (litigious),
 * so a provisioning run makes it doubtful; the head of Akwa proposes its write-off and direction, a second person,
 * approves it; later 100 000 XAF come back from Mvondo's account, a recovery booked as income on 792.
 */
export async function recoverAfterWriteOff(
  cooperative: Cooperative,
  member: Member,
  log: (line: string) => void,
): Promise<RecoveryOutcome> {
  const { branchHead, direction } = cooperative.staff;
  const desk = new LoanDesk(cooperative);
  const loan = await desk.grant(member, {
    product: 'shortTermCredit',
    amount: '300000',
    termPeriods: 6,
    purpose: 'Filets et moteur de pirogue',
  });
  await desk.disburse(loan, member);
  await branchHead.session.post(`take ${member.name}'s loan to court`, `/api/v1/loans/loans/${loan}/litigation/`, {
    litigious: true,
    reason: 'Matériel revendu: action en justice',
  });
  await runProvisioning(direction.session, cooperative.enterpriseId);
  const asked = await branchHead.session.post<{ id: string }>(
    `propose the write-off of ${member.name}'s loan`,
    `/api/v1/loans/loans/${loan}/write-off/`,
    {},
  );
  await direction.session.post(
    `approve the write-off of ${member.name}'s loan`,
    `/api/v1/approvals/requests/${asked.id}/approve/`,
    { reason: 'Créance irrécouvrable, provisionnée' },
  );
  const recovery = await member.teller.post<{ id: string }>(
    `record a recovery on ${member.name}'s written-off loan`,
    `/api/v1/loans/loans/${loan}/recoveries/`,
    { amount: '100000', channel: 'account', account: member.accountId, reference: 'Règlement amiable' },
    `${cooperative.code}:recovery:${member.key}`,
  );
  log(
    `a litigious loan of ${member.name} written off (branch head, then direction) and 100000 XAF recovered on it (792)`,
  );
  return { loan, recovery: recovery.id };
}
