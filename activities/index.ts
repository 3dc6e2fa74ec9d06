import { ApplicationFailure } from '@temporalio/activity';
import type { Knex } from 'knex';
import { AppError } from '../domain/errors';
import { failureOfRefusal } from '../domain/refusal';
import type { MonthEndStepInput } from '../domain/enterprise/month-end';
import { stepSummary } from '../domain/enterprise/month-end-step';
import type { RequestDecision } from '../domain/approvals/request';
import { decideApprovalRequest, expireApprovalRequest } from './approvals/approval-request.activity';
import { markReportingPackFailed, openReportingPack, storeReportingPack } from './accounts/reporting-packs.activity';
import { describeDatabase } from './describe-database.activity';
import {
  awaitBranchDays,
  finishEndOfDayProvisioning,
  finishEndOfDayRun,
  markEndOfDayFailed,
  matureEndOfDayTermDeposits,
  moveEndOfDayBusinessDate,
  openEndOfDayMonthEnd,
  openEndOfDayProvisioning,
  openEndOfDayRun,
  type EndOfDayRequest,
} from './enterprise/end-of-day.activity';
import {
  finishMonthEndRun,
  markMonthEndFailed,
  openMonthEndRun,
  runMonthEndPeriodStep,
  runMonthEndStep,
  type MonthEndPeriodWork,
  type MonthEndRequest,
  type MonthEndStepWorkFunction,
} from './enterprise/month-end.activity';
import {
  carryForwardBalances,
  closeIncomeAndExpenses,
  markExerciceClosingFailed,
} from './enterprise/year-end-closing.activity';
import { markReplayFailed, replayEventBatch } from './events/event-replay.activity';
import { accrueLoanInterest, reverseLoanInterestAccrual } from './loans/interest-accrual.activity';
import { recognizeUnearnedInterest } from './loans/unearned-interest.activity';
import { accrueSavingsInterest, reverseSavingsInterestAccrual } from './members/savings-accrual.activity';
import { postSavingsInterest } from './members/savings-interest.activity';
import { matureDueTermDeposits, matureTermDeposits } from './members/term-deposits.activity';
import { expireLoanApplication, recordLoanDecision, type DecisionToRecord } from './loans/loan-approval.activity';
import { markProvisioningRunFailed, provisionBatch, startProvisioningRun } from './loans/provisioning.activity';
import { refusalAsOutcome } from './refusal-outcome';
import { depreciateFixedAssets } from './accounting/fixed-asset-depreciation.activity';
import { proposeDueRecurringEntries } from './accounting/recurring-entries.activity';
import { runStandingOrder } from './cash/standing-orders.activity';
import { applyImportBatch, importStatusOf, openImportBooks } from './imports/apply';
import { dryRunImport } from './imports/dry-run';
import { reconcileImport } from './imports/reconciliation';
import { tieOutImport } from './imports/tie-out';
import { markImportFailed, validateImport, type ImportValidationInput } from './imports/validation';
import { refundShareWithdrawal, type RefundInput } from './shares/share-refunds.activity';
import {
  cancelShareWithdrawal,
  extendShareRefund,
  flagShareRefund,
  makeShareWithdrawalEffective,
  type StepInput,
} from './shares/share-withdrawals.activity';

export interface ActivityDeps {
  knex: Knex;
  clock: () => Date;
}

/**
 * A business refusal (AppError) leaves the activity as a non-retryable ApplicationFailure whose type is the
 * error's code: the workflow passes it on, and the API answers with that code (409) instead of a retry.
 */
async function refusalsAsFailures<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) throw ApplicationFailure.create(failureOfRefusal(error));
    throw error;
  }
}

/** Every activity with its business refusals as non-retryable failures: the one way they cross to a workflow. */
function refusingActivities<T extends Record<string, (input: never) => Promise<unknown>>>(activities: T): T {
  const wrapped = Object.entries(activities).map(([name, activity]) => [
    name,
    (input: never) => refusalsAsFailures(() => activity(input)),
  ]);
  return Object.fromEntries(wrapped) as T;
}

/** The month end's activities: its run opened and finished, and one activity per step. */
function monthEndActivities(deps: ActivityDeps) {
  // A month-end step's activity: its work run by runMonthEndStep (one transaction, done once; docs/domain.md §8).
  // Each answers the workflow its step's summary: the lines stay in the run's document (too many for a payload).
  const monthEndStep = (work: MonthEndStepWorkFunction) => async (input: MonthEndStepInput) =>
    stepSummary(await runMonthEndStep(deps.knex, deps.clock(), input, work));
  const monthEndPeriodStep = (work: MonthEndPeriodWork) => async (input: MonthEndStepInput) =>
    stepSummary(await runMonthEndPeriodStep(deps.knex, deps.clock(), input, work));
  return {
    openMonthEndRun: (input: MonthEndRequest) => openMonthEndRun(deps.knex, deps.clock(), input),
    // The steps of domain/enterprise/month-end.ts monthEndSteps, one activity each.
    reverseLoanInterestAccrual: monthEndStep(reverseLoanInterestAccrual),
    accrueLoanInterest: monthEndStep(accrueLoanInterest),
    recognizeUnearnedInterest: monthEndStep(recognizeUnearnedInterest),
    matureTermDeposits: monthEndPeriodStep((period) => matureTermDeposits(deps, period)),
    postSavingsInterest: monthEndPeriodStep((period) => postSavingsInterest(deps, period)),
    matureDueTermDeposits: (input: { enterpriseId: string }) => matureDueTermDeposits(deps, input),
    reverseSavingsInterestAccrual: monthEndStep(reverseSavingsInterestAccrual),
    accrueSavingsInterest: monthEndStep(accrueSavingsInterest),
    depreciateFixedAssets: monthEndStep(depreciateFixedAssets),
    finishMonthEndRun: (input: { runId: string }) => finishMonthEndRun(deps.knex, deps.clock(), input),
    markMonthEndFailed: (input: { runId: string; failure: string }) =>
      markMonthEndFailed(deps.knex, deps.clock(), input),
  };
}

/** Issue 29, the end of day (domain/enterprise/end-of-day.ts endOfDaySteps), one activity per step. */
function endOfDayActivities(deps: ActivityDeps) {
  return {
    openEndOfDayRun: (input: EndOfDayRequest) => openEndOfDayRun(deps.knex, deps.clock(), input),
    awaitBranchDays: (input: { runId: string }) => awaitBranchDays(deps.knex, deps.clock(), input),
    openEndOfDayProvisioning: (input: { runId: string }) => openEndOfDayProvisioning(deps.knex, deps.clock(), input),
    finishEndOfDayProvisioning: (input: { runId: string }) =>
      finishEndOfDayProvisioning(deps.knex, deps.clock(), input),
    matureEndOfDayTermDeposits: (input: { runId: string }) => matureEndOfDayTermDeposits(deps, input),
    moveEndOfDayBusinessDate: (input: { runId: string }) => moveEndOfDayBusinessDate(deps.knex, deps.clock(), input),
    openEndOfDayMonthEnd: (input: { runId: string }) => openEndOfDayMonthEnd(deps.knex, deps.clock(), input),
    finishEndOfDayRun: (input: { runId: string }) => finishEndOfDayRun(deps.knex, deps.clock(), input),
    markEndOfDayFailed: (input: { runId: string; failure: string }) =>
      markEndOfDayFailed(deps.knex, deps.clock(), input),
  };
}

/** Issue 31, the go-live import's workflow (docs/domain.md §15.1), one activity per step, each one transaction. */
function importActivities(deps: ActivityDeps) {
  return {
    validateImport: (input: ImportValidationInput) => validateImport(deps, input),
    tieOutImport: (input: { importId: string }) => tieOutImport(deps, input.importId),
    dryRunImport: (input: { importId: string }) => dryRunImport(deps, input.importId),
    markImportFailed: (input: ImportValidationInput & { failure: string }) => markImportFailed(deps, input),
    importStatus: (input: { importId: string }) => importStatusOf(deps, input.importId),
    applyImportBatch: (input: { importId: string }) => applyImportBatch(deps, input),
    openImportBooks: (input: { importId: string }) => openImportBooks(deps, input.importId),
    reconcileImport: (input: { importId: string }) => reconcileImport(deps, input.importId),
  };
}

/**
 * The activities the worker registers, bound to their dependencies. Workflows import only the *type* of
 * this factory's result, so no database code enters the workflow sandbox. Each takes one object argument.
 */
export function createActivities(deps: ActivityDeps) {
  return refusingActivities({
    describeDatabase: () => describeDatabase(deps.knex),
    replayEventBatch: (input: { requestId: string; batchSize: number }) =>
      replayEventBatch(deps.knex, deps.clock(), input),
    markReplayFailed: (input: { requestId: string; failure: string }) =>
      markReplayFailed(deps.knex, deps.clock(), input),
    recordLoanDecision: (input: DecisionToRecord) => recordLoanDecision(deps.knex, deps.clock(), input),
    expireLoanApplication: (input: Parameters<typeof expireLoanApplication>[2]) =>
      expireLoanApplication(deps.knex, deps.clock(), input),
    startProvisioningRun: (input: Parameters<typeof startProvisioningRun>[2]) =>
      startProvisioningRun(deps.knex, deps.clock(), input),
    provisionBatch: (input: { runId: string; batchSize: number }) => provisionBatch(deps.knex, deps.clock(), input),
    markProvisioningRunFailed: (input: { runId: string; failure: string }) =>
      markProvisioningRunFailed(deps.knex, deps.clock(), input),
    makeShareWithdrawalEffective: (input: { withdrawalId: string }) =>
      makeShareWithdrawalEffective(deps.knex, deps.clock(), input),
    cancelShareWithdrawal: (input: StepInput) =>
      refusalAsOutcome(() => cancelShareWithdrawal(deps.knex, deps.clock(), input)),
    extendShareRefund: (input: StepInput) => refusalAsOutcome(() => extendShareRefund(deps.knex, deps.clock(), input)),
    refundShareWithdrawal: (input: RefundInput) =>
      refusalAsOutcome(() => refundShareWithdrawal(deps.knex, deps.clock(), input)),
    flagShareRefund: (input: { withdrawalId: string; flag: 'reminder' | 'overdue' }) =>
      flagShareRefund(deps.knex, deps.clock(), input),
    closeIncomeAndExpenses: (input: { closingId: string }) => closeIncomeAndExpenses(deps.knex, deps.clock(), input),
    carryForwardBalances: (input: { closingId: string }) => carryForwardBalances(deps.knex, deps.clock(), input),
    markExerciceClosingFailed: (input: { closingId: string; failure: string }) =>
      markExerciceClosingFailed(deps.knex, deps.clock(), input),
    openReportingPack: (input: { enterpriseId: string; period: string }) => openReportingPack(deps.knex, input),
    storeReportingPack: (input: { packId: string }) => storeReportingPack(deps.knex, deps.clock(), input),
    markReportingPackFailed: (input: { packId: string; failure: string }) => markReportingPackFailed(deps.knex, input),
    ...monthEndActivities(deps),
    decideApprovalRequest: (input: { requestId: string; decision: RequestDecision }) =>
      decideApprovalRequest(deps.knex, deps.clock(), input),
    expireApprovalRequest: (input: { requestId: string }) => expireApprovalRequest(deps.knex, deps.clock(), input),
    proposeDueRecurringEntries: (input: { enterpriseId: string }) => proposeDueRecurringEntries(deps, input),
    ...endOfDayActivities(deps),
    // Issue 29: a standing order's daily pass.
    runStandingOrder: (input: { standingOrderId: string }) => runStandingOrder(deps, input),
    ...importActivities(deps),
  });
}

export type Activities = ReturnType<typeof createActivities>;
