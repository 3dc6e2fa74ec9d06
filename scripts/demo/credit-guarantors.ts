import type { Cooperative } from './cooperative';
import type { Members } from './members';

/** What the guarantors' part leaves behind, for the summary and the test. */
export interface GuarantorsOutcome {
  /** The personal guarantee Alain Mvondo gives for Awa Bello's loan. */
  guarantee: string;
  /** His current account, held for the amount guaranteed. */
  heldAccount: string;
  heldAmount: string;
  /** The guarantees of the collateral register at the date. */
  registerLines: number;
}

/**
 * Issue 30, guarantors and collateral (docs/domain.md §14.4): a member guarantees another's loan and his savings are
 * held up to the amount, blocked from withdrawal until the loan is repaid or the guarantee released; the collateral
 * register at the date lists it beside the pledged deposit of the story.
 */
export async function giveGuarantees(
  cooperative: Cooperative,
  members: Members,
  loan: string,
  date: string,
  log: (line: string) => void,
): Promise<GuarantorsOutcome> {
  const { bello, mvondo } = members;
  const heldAmount = '200000';
  const guarantee = await bello.teller.post<{ id: string }>(
    `${mvondo.name} guarantees ${bello.name}'s loan`,
    '/api/v1/loans/guarantees/',
    {
      loan,
      kind: 'personal_guarantor',
      value: heldAmount,
      guarantor: mvondo.id,
      account: mvondo.accountId,
      start_date: date,
      document_reference: 'CAUTION-2026-001',
      description: 'Caution solidaire',
    },
  );
  const register = await cooperative.staff.branchHead.session.get<{ lines: unknown[] }>(
    'read the collateral register',
    '/api/v1/loans/collateral-register/',
    { enterprise: cooperative.enterpriseId, date },
  );
  log(
    `${date}: ${mvondo.name} guarantees ${heldAmount} XAF of ${bello.name}'s loan, held on his account; the ` +
      `collateral register lists ${register.lines.length} guarantees`,
  );
  return { guarantee: guarantee.id, heldAccount: mvondo.accountId, heldAmount, registerLines: register.lines.length };
}
