import type { ClassAccounts } from '../../domain/loans/classification';
import { defaultRoleAccounts } from '../events/default-rules';

/** Where a loan's principal sits in each class: its product's portfolio account, then 3312 (overdue) and 3352 (doubtful). */
export const classAccounts = (portfolioAccountCode: string): ClassAccounts => ({
  performing: portfolioAccountCode,
  overdue: defaultRoleAccounts.overdue_receivables,
  doubtful: defaultRoleAccounts.doubtful_receivables,
});
