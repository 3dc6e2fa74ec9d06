import type { ConfigurationChanges } from '../enterprise/configuration.activity';
import { updateConfiguration } from '../enterprise/configuration.activity';
import { setExerciceStatus } from '../enterprise/exercices.activity';
import { writeOffLoan } from '../loans/portfolio-quality.activity';
import { endGuarantee } from '../loans/loan-guarantees.activity';
import { withdrawApproved, type ApprovedWithdrawal } from '../members/cash-operations.activity';
import type { Actor, DataContext } from '../context';
import type { PolicyRule } from '../../domain/approvals/policy';
import { setApprovalPolicy } from './approval-policy.activity';

/**
 * The one registry of what a request may carry (docs/architecture.md §7): each operation under four eyes, its
 * payload's type (what the route stored) and its executor, the very activity the route runs when no second
 * person is needed. The request records its scope, the resource's enterprise and branch, when it is made.
 * Adding an operation is a line here, its name in domain/approvals/policy.ts, and its route's call of
 * `runOrRequest` (api/modules/approvals/four-eyes.ts).
 */
export const approvalExecutors = {
  'business_date.move': (context: DataContext, maker: Actor, payload: { enterpriseId: string; changes: Pick<ConfigurationChanges, 'businessDate'> }) =>
    updateConfiguration(context, maker, payload.enterpriseId, payload.changes),
  'exercice.reopen': (context: DataContext, maker: Actor, payload: { exerciceId: string; reason: string }) => setExerciceStatus(context, maker, payload.exerciceId, 'open', payload.reason),
  'loan.write_off': (context: DataContext, maker: Actor, payload: { loanId: string; approval: string }) => writeOffLoan(context, maker, payload),
  'approval_policy.change': (context: DataContext, maker: Actor, payload: { enterpriseId: string; rules: PolicyRule[] }) => setApprovalPolicy(context, maker, payload),
  // Four eyes on money (issue 27): ending a covering guarantee, and a withdrawal from the policy's threshold.
  'guarantee.change': (context: DataContext, maker: Actor, payload: { guaranteeId: string; endDate: string }) => endGuarantee(context, maker, payload.guaranteeId, payload.endDate),
  'member_account.withdrawal': (context: DataContext, maker: Actor, payload: ApprovedWithdrawal) => withdrawApproved(context, maker, payload),
};

/** The operations a request can carry today. */
export type CoveredOperation = keyof typeof approvalExecutors;
export type PayloadOf<O extends CoveredOperation> = Parameters<(typeof approvalExecutors)[O]>[2];
