import { markShareWithdrawalFailed } from '../../../activities/shares/share-withdrawals.activity';
import { AppError } from '../../../domain/errors';
import type { ShareWithdrawal } from '../../../db/models/share-withdrawal.model';
import { cancelWithdrawalUpdate, extendRefundUpdate, refundUpdate } from '../../../workflows/definitions';
import type { RefundRequest, StepRequest } from '../../../workflows/definitions';
import type { shareWithdrawal, ShareWithdrawalInput } from '../../../workflows/share-withdrawal.workflow';
import type { RouteDeps } from '../../deps';
import type { AppContext } from '../../context';
import { startWorkflowOfRequest } from '../../workflow-start';
import { executeWorkflowUpdate } from '../../workflow-update';

/**
 * The API's side of the `shareWithdrawal` workflow: start it for a recorded request, then send it the
 * decisions (cancellation, refund, extension of the refund period) as Updates.
 */

export async function startShareWithdrawal(
  deps: RouteDeps,
  ctx: AppContext,
  withdrawal: ShareWithdrawal,
  refundReminderDays: number,
): Promise<void> {
  const input: ShareWithdrawalInput = {
    withdrawalId: withdrawal.id,
    enterpriseId: withdrawal.enterpriseId,
    branchId: withdrawal.branchId,
    withdrawalNumber: withdrawal.number,
    noticeDays: withdrawal.noticeDays,
    refundReminderDays,
    dayMs: deps.workflowDayMs,
  };
  await startWorkflowOfRequest<typeof shareWithdrawal>(deps, 'shareWithdrawal', withdrawal, [input], {
    what: 'the withdrawal',
    markFailed: () =>
      markShareWithdrawalFailed(
        deps.knex,
        withdrawal.id,
        'The withdrawal workflow could not be started (Temporal unreachable); request the withdrawal again.',
      ),
    log: ctx.state.log,
  });
}

const ended = (withdrawal: ShareWithdrawal) =>
  new AppError(
    'conflict',
    'withdrawal_closed',
    `Withdrawal ${withdrawal.number} is ${withdrawal.status}: its process has ended.`,
  );

/**
 * A decision with a reason, sent as `update`. `updateId`: from the client's Idempotency-Key (`operationKey`), so that
 * a retry joins the first Update.
 */
const sendDecision =
  (update: typeof cancelWithdrawalUpdate | typeof extendRefundUpdate) =>
  (deps: RouteDeps, withdrawal: ShareWithdrawal, request: StepRequest, updateId: string) =>
    executeWorkflowUpdate(deps, { workflowId: withdrawal.workflowId, updateId }, update, request, ended(withdrawal));

export const cancelWithdrawal = sendDecision(cancelWithdrawalUpdate);

/** The refund's own key (`request.idempotencyKey`) names its Update too. */
export const refundWithdrawal = (deps: RouteDeps, withdrawal: ShareWithdrawal, request: RefundRequest) =>
  executeWorkflowUpdate(
    deps,
    { workflowId: withdrawal.workflowId, updateId: request.idempotencyKey },
    refundUpdate,
    request,
    ended(withdrawal),
  );

export const extendWithdrawalRefund = sendDecision(extendRefundUpdate);
