import type { Cooperative } from './cooperative';
import { LoanDesk } from './loans';
import type { Member } from './members';

/** What the prepayment leaves behind, for the summary and the test. */
export interface PrepaymentOutcome {
  loan: string;
  prepayment: string;
}

/**
 * Early repayment (issue 30, docs/domain.md §14.1): Moussa borrows 300 000 XAF over 6 months and, once paid out,
 * prepays 30 % of it from his account, asking to shorten the term: the loan's schedule gets its version 2.
 */
export async function prepayLoan(
  cooperative: Cooperative,
  member: Member,
  log: (line: string) => void,
): Promise<PrepaymentOutcome> {
  const desk = new LoanDesk(cooperative);
  const loan = await desk.grant(member, {
    product: 'shortTermCredit',
    amount: '300000',
    termPeriods: 6,
    purpose: 'Stock de pièces détachées',
  });
  await desk.disburse(loan, member);
  const prepayment = await member.teller.post<{ id: string }>(
    `prepay 30 % of ${member.name}'s loan`,
    `/api/v1/loans/loans/${loan}/prepayments/`,
    {
      amount: '90000',
      channel: 'account',
      account: member.accountId,
      strategy: 'reduce_term',
      reference: 'Remboursement anticipé partiel',
    },
    `${cooperative.code}:prepayment:${member.key}`,
  );
  log(`${member.name} prepaid 90000 XAF of a 300000 XAF loan, term shortened: its schedule is now in version 2`);
  return { loan, prepayment: prepayment.id };
}
