import { importKinds, type ImportKind } from '../../domain/imports/templates';
import { branchUserSteps } from './branch-user-steps';
import type { ImportKindSteps } from './import-steps';
import { loanInstallmentSteps, loanSteps } from './loan-steps';
import { memberAccountSteps, memberSteps } from './member-steps';
import { shareSteps } from './share-steps';
import { trialBalanceSteps } from './trial-balance-steps';

/**
 * Each kind's steps (activities/imports/import-steps.ts). A kind absent here is stored and reported but not yet
 * judged; the workflow runs the kinds in the order of `importKinds`.
 */
export const importKindSteps: Partial<Record<ImportKind, ImportKindSteps>> = {
  'branches-users': branchUserSteps,
  members: memberSteps,
  'member-accounts': memberAccountSteps,
  shares: shareSteps,
  'loan-installments': loanInstallmentSteps,
  loans: loanSteps,
  'trial-balance': trialBalanceSteps,
};

/** The kinds judged so far, in the workflow's order. */
export const validatedKinds: readonly ImportKind[] = importKinds.filter((kind) => importKindSteps[kind] !== undefined);
