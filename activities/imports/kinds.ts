import { importKinds, type ImportKind } from '../../domain/imports/templates';
import type { ImportKindSteps } from './import-steps';
import { memberAccountSteps, memberSteps } from './member-steps';
import { trialBalanceSteps } from './trial-balance-steps';

/**
 * Each kind's steps (activities/imports/import-steps.ts). A kind absent here is stored and reported but not yet
 * judged; the workflow runs the kinds in the order of `importKinds`.
 */
export const importKindSteps: Partial<Record<ImportKind, ImportKindSteps>> = {
  'members': memberSteps,
  'member-accounts': memberAccountSteps,
  'trial-balance': trialBalanceSteps,
};

/** The kinds judged so far, in the workflow's order. */
export const validatedKinds: readonly ImportKind[] = importKinds.filter((kind) => importKindSteps[kind] !== undefined);
