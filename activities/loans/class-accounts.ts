import type { ClassAccounts, LoanClass } from '../../domain/loans/classification';
import { defaultRoleAccounts } from '../events/default-rules';

/** Where a performing or overdue loan's principal sits: its product's portfolio account, then 3312. */
export const classAccounts = (portfolioAccountCode: string): ClassAccounts => ({
  performing: portfolioAccountCode,
  overdue: defaultRoleAccounts.overdue_receivables,
});

/**
 * The account holding a loan's principal now: a doubtful loan's own (by its cover, set by the provisioning run),
 * otherwise its class's.
 */
export function principalAccountOf(
  loan: { classification: LoanClass; doubtfulAccountCode: string | null },
  portfolioAccountCode: string,
): string {
  if (loan.classification !== 'doubtful') return classAccounts(portfolioAccountCode)[loan.classification];
  if (loan.doubtfulAccountCode === null) throw new Error('a doubtful loan keeps the account of its principal');
  return loan.doubtfulAccountCode;
}
