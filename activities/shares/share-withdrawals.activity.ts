import type { Knex } from 'knex';
import { daysBetween } from '../../domain/calendar';
import { AppError, NotFoundError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import {
  cancellationSplit,
  plannedEffectiveDate,
  refundDueOn,
  withdrawalRefusal,
} from '../../domain/shares/withdrawal';
import { EnterpriseConfiguration } from '../../db/models/enterprise-configuration.model';
import { ShareSubscription } from '../../db/models/share-subscription.model';
import { ShareType } from '../../db/models/share-type.model';
import { ShareWithdrawal } from '../../db/models/share-withdrawal.model';
import { newYearlyRecord } from '../../db/sequences';
import { inTransaction } from '../../db/transaction';
import { shareWithdrawalWorkflowId } from '../../workflows/identities';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { recordBusinessEvent } from '../events/record-business-event';
import { unpaidOf } from './share-payments';
import { heldShares, lockMember, refusalError } from './share-subscriptions.activity';

/**
 * The life of a ShareWithdrawal, one transaction per step, each called by the API (the request) or by the
 * `shareWithdrawal` workflow (the others). Every step checks the status it starts from, so a retried activity
 * whose first attempt committed finds its own work done instead of doing it twice.
 */

/** Shares of the subscription, and of the member's type, asked for by withdrawals still in their notice period. */
async function sharesInNotice(
  trx: Knex.Transaction,
  subscription: ShareSubscription,
): Promise<{ subscription: number; type: number }> {
  const row = await trx('share_withdrawals as w')
    .join('share_subscriptions as s', 's.id', 'w.subscription_id')
    .where({ 'w.client_id': subscription.clientId, 's.share_type_id': subscription.shareTypeId, 'w.status': 'notice' })
    .first(
      trx.raw('COALESCE(SUM(w.shares), 0)::int AS type'),
      trx.raw('COALESCE(SUM(w.shares) FILTER (WHERE w.subscription_id = ?), 0)::int AS subscription', [
        subscription.id,
      ]),
    );
  return { subscription: row.subscription as number, type: row.type as number };
}

export interface WithdrawalRequestInput {
  subscriptionId: string;
  /** null: every share of the subscription that is not already in notice. */
  shares: number | null;
  leaving: boolean;
  reason: string;
}

async function auditWithdrawalRequest(
  trx: Knex.Transaction,
  actor: Actor,
  withdrawal: ShareWithdrawal,
  subscription: ShareSubscription,
): Promise<void> {
  await recordAudit(trx, actor, {
    action: 'share_withdrawal.request',
    entityType: 'share_withdrawal',
    entityId: withdrawal.id,
    enterpriseId: withdrawal.enterpriseId,
    details: {
      number: withdrawal.number,
      subscription: subscription.number,
      shares: withdrawal.shares,
      leaving: withdrawal.leaving,
      notice_days: withdrawal.noticeDays,
    },
  });
}

/**
 * Records a member's written notice to withdraw shares of a subscription: refused for shares that are not
 * withdrawable, founder shares before their seniority, or a holding left below the type's minimum by a member
 * who stays. Numbered WDR-{year}-{n}; the caller then starts its workflow.
 */
export async function requestShareWithdrawal(
  context: ActivityContext,
  actor: Actor,
  input: WithdrawalRequestInput,
): Promise<{ withdrawal: ShareWithdrawal; refundReminderDays: number }> {
  return inTransaction(context.knex, async (trx) => {
    const found = await ShareSubscription.query(trx).findById(input.subscriptionId);
    if (found === undefined) throw new NotFoundError('The subscription');
    const member = await lockMember(trx, found.clientId);
    if (member.status === 'left') throw new AppError('conflict', 'member_left', 'The member has left the cooperative.');
    const subscription = await ShareSubscription.query(trx).findById(found.id).forUpdate().throwIfNotFound();
    const type = await ShareType.query(trx).findById(subscription.shareTypeId).throwIfNotFound();
    const pending = await sharesInNotice(trx, subscription);
    const subscriptionHeld = subscription.shares - subscription.withdrawnShares;
    const shares = input.shares ?? subscriptionHeld - pending.subscription;
    if (shares <= 0)
      throw new AppError(
        'conflict',
        'not_enough_shares',
        'Every share of this subscription is withdrawn or already in notice.',
      );
    const now = context.clock();
    const businessDate = await businessDateOf(trx, subscription.enterpriseId, now);
    const refusal = withdrawalRefusal({
      terms: type,
      subscribedOn: subscription.subscribedOn,
      businessDate,
      shares,
      subscriptionHeld,
      subscriptionPending: pending.subscription,
      typeHeld: await heldShares(trx, member.id, type.id),
      typePending: pending.type,
      leaving: input.leaving,
    });
    if (refusal !== null) throw refusalError(refusal);
    const configuration = await EnterpriseConfiguration.query(trx)
      .findOne({ enterprise_id: subscription.enterpriseId })
      .throwIfNotFound();
    const noticeDays = type.noticeDays ?? configuration.shareWithdrawalNoticeDays;
    const { id, number } = await newYearlyRecord(
      trx,
      { name: 'share_withdrawal', enterpriseId: subscription.enterpriseId },
      businessDate,
      (year, sequence) => `WDR-${year}-${String(sequence).padStart(6, '0')}`,
    );
    const withdrawal = await ShareWithdrawal.query(trx).insertAndFetch({
      id,
      enterpriseId: subscription.enterpriseId,
      branchId: subscription.branchId,
      clientId: member.id,
      subscriptionId: subscription.id,
      number,
      shares,
      leaving: input.leaving,
      reason: input.reason,
      status: 'notice',
      requestedOn: businessDate,
      noticeDays,
      effectiveOnPlanned: plannedEffectiveDate(businessDate, noticeDays),
      requestedBy: actor.userId,
      workflowId: shareWithdrawalWorkflowId(id),
    });
    await auditWithdrawalRequest(trx, actor, withdrawal, subscription);
    return { withdrawal, refundReminderDays: configuration.shareRefundReminderDays };
  });
}

/** The workflow could not be started: the request ends, with the reason, instead of waiting forever. */
export async function markShareWithdrawalFailed(knex: Knex, withdrawalId: string, reason: string): Promise<void> {
  await knex('share_withdrawals')
    .where({ id: withdrawalId, status: 'notice' })
    .update({ status: 'failed', status_reason: reason });
}

/** The row locked, in the status a step starts from (or already past it: a retried step). */
async function lockedWithdrawal(trx: Knex.Transaction, withdrawalId: string): Promise<ShareWithdrawal> {
  return ShareWithdrawal.query(trx).findById(withdrawalId).forUpdate().throwIfNotFound();
}

export interface StepInput {
  withdrawalId: string;
  userId: string;
  reason: string;
  /** The API request that carried the decision and its client's address, for the audit trail. */
  requestId: string | null;
  address?: string;
}

/** Cancelled by the member or the board during the notice period: nothing was posted, nothing is. */
export async function cancelShareWithdrawal(knex: Knex, now: Date, input: StepInput): Promise<{ outcome: 'recorded' }> {
  return inTransaction(knex, async (trx) => {
    const withdrawal = await lockedWithdrawal(trx, input.withdrawalId);
    if (withdrawal.status === 'cancelled') return { outcome: 'recorded' as const };
    if (withdrawal.status !== 'notice')
      throw new AppError(
        'conflict',
        'withdrawal_not_in_notice',
        `Withdrawal ${withdrawal.number} is ${withdrawal.status}: ` +
          `only a withdrawal in its notice period can be cancelled.`,
      );
    await ShareWithdrawal.query(trx)
      .patch({ status: 'cancelled', cancelledAt: now, cancelledBy: input.userId, statusReason: input.reason })
      .where('id', withdrawal.id);
    await recordAudit(trx, input, {
      action: 'share_withdrawal.cancel',
      entityType: 'share_withdrawal',
      entityId: withdrawal.id,
      enterpriseId: withdrawal.enterpriseId,
      details: { number: withdrawal.number, reason: input.reason },
    });
    return { outcome: 'recorded' as const };
  });
}

export interface RefundDeadline {
  status: 'effective' | 'refunded';
  effectiveOn: string;
  refundDueOn: string;
  /** Days from the effective date to the refund due date: the workflow's timer. */
  refundDueDays: number;
}

const deadlineOf = (withdrawal: ShareWithdrawal): RefundDeadline => ({
  status: withdrawal.status as RefundDeadline['status'],
  effectiveOn: withdrawal.effectiveOn!,
  refundDueOn: withdrawal.refundDueOn!,
  refundDueDays: daysBetween(withdrawal.effectiveOn!, withdrawal.refundDueOn!),
});

/** Posts the cancelled shares: their unpaid part, then their paid part, each when not zero. */
async function postCancellation(
  trx: Knex.Transaction,
  now: Date,
  withdrawal: ShareWithdrawal,
  subscription: ShareSubscription,
  split: ReturnType<typeof cancellationSplit>,
): Promise<void> {
  for (const [kind, amount] of [
    ['share_unpaid_cancellation', split.unpaid],
    ['share_cancellation', split.paid],
  ] as const) {
    if (amount.isZero()) continue;
    await recordBusinessEvent(trx, now, {
      enterpriseId: withdrawal.enterpriseId,
      branchId: withdrawal.branchId,
      kind,
      amount,
      subjectId: subscription.id,
      payload: {
        withdrawal: withdrawal.id,
        withdrawal_number: withdrawal.number,
        subscription: subscription.id,
        shares: withdrawal.shares,
      },
      idempotencyKey: `${withdrawal.workflowId}:${kind}`,
      actorId: null,
      description: `${kind.replaceAll('_', ' ')} ${withdrawal.number} (${subscription.number})`,
    });
  }
}

/**
 * The notice is over: the shares are cancelled at the business date. Their unpaid part is no longer owed
 * (1001 back to 4411), their paid part is owed to the member (1000 to 4411), refundable within a year. With
 * nothing paid there is nothing to refund: the withdrawal ends here.
 */
export async function makeShareWithdrawalEffective(
  knex: Knex,
  now: Date,
  input: { withdrawalId: string },
): Promise<RefundDeadline> {
  return inTransaction(knex, async (trx) => {
    const found = await ShareWithdrawal.query(trx).findById(input.withdrawalId).throwIfNotFound();
    await lockMember(trx, found.clientId);
    const withdrawal = await lockedWithdrawal(trx, found.id);
    if (withdrawal.status === 'effective' || withdrawal.status === 'refunded') return deadlineOf(withdrawal);
    if (withdrawal.status !== 'notice')
      throw new AppError(
        'conflict',
        'withdrawal_not_in_notice',
        `Withdrawal ${withdrawal.number} is ${withdrawal.status}.`,
      );
    const subscription = await ShareSubscription.query(trx)
      .findById(withdrawal.subscriptionId)
      .forUpdate()
      .throwIfNotFound();
    const split = cancellationSplit({
      shares: withdrawal.shares,
      nominalValue: new Money(subscription.nominalValue),
      subscriptionUnpaid: unpaidOf(subscription),
    });
    const businessDate = await businessDateOf(trx, withdrawal.enterpriseId, now);
    await postCancellation(trx, now, withdrawal, subscription, split);
    await ShareSubscription.query(trx)
      .patch({
        withdrawnShares: subscription.withdrawnShares + withdrawal.shares,
        withdrawnPaid: formatAmount(new Money(subscription.withdrawnPaid).plus(split.paid)),
        withdrawnUnpaid: formatAmount(new Money(subscription.withdrawnUnpaid).plus(split.unpaid)),
      })
      .where('id', subscription.id);
    const nothingOwed = split.paid.isZero();
    const updated = await ShareWithdrawal.query(trx).patchAndFetchById(withdrawal.id, {
      status: nothingOwed ? 'refunded' : 'effective',
      effectiveOn: businessDate,
      cancelledPaid: formatAmount(split.paid),
      cancelledUnpaid: formatAmount(split.unpaid),
      refundDueOn: refundDueOn(businessDate, false),
      ...(nothingOwed ? { refundedOn: businessDate, offsetAmount: '0', netRefund: '0' } : {}),
    });
    await recordAudit(trx, null, {
      action: 'share_withdrawal.effective',
      entityType: 'share_withdrawal',
      entityId: withdrawal.id,
      enterpriseId: withdrawal.enterpriseId,
      details: {
        number: withdrawal.number,
        refund_owed: formatAmount(split.paid),
        unpaid_cancelled: formatAmount(split.unpaid),
        refund_due_on: updated.refundDueOn,
      },
    });
    return deadlineOf(updated);
  });
}

/** The board's recorded decision to defer the refund to two years after the effective date (once). */
export async function extendShareRefund(
  knex: Knex,
  now: Date,
  input: StepInput,
): Promise<RefundDeadline & { outcome: 'recorded' }> {
  return inTransaction(knex, async (trx) => {
    const withdrawal = await lockedWithdrawal(trx, input.withdrawalId);
    if (withdrawal.refundExtendedAt !== null) return { outcome: 'recorded' as const, ...deadlineOf(withdrawal) };
    if (withdrawal.status !== 'effective')
      throw new AppError(
        'conflict',
        'refund_not_owed',
        `Withdrawal ${withdrawal.number} is ${withdrawal.status}: no refund is waiting.`,
      );
    // A new deadline: the reminder and the overdue flag of the old one no longer hold.
    const updated = await ShareWithdrawal.query(trx).patchAndFetchById(withdrawal.id, {
      refundDueOn: refundDueOn(withdrawal.effectiveOn!, true),
      refundExtendedAt: now,
      refundExtendedBy: input.userId,
      refundExtensionReason: input.reason,
      refundRemindedAt: null,
      refundOverdueAt: null,
    });
    await recordAudit(trx, input, {
      action: 'share_withdrawal.extend_refund',
      entityType: 'share_withdrawal',
      entityId: withdrawal.id,
      enterpriseId: withdrawal.enterpriseId,
      details: { number: withdrawal.number, reason: input.reason, refund_due_on: updated.refundDueOn },
    });
    return { outcome: 'recorded' as const, ...deadlineOf(updated) };
  });
}

/** The workflow's timers: a reminder before the refund falls due, then the refund overdue. Audited for the board. */
export async function flagShareRefund(
  knex: Knex,
  now: Date,
  input: { withdrawalId: string; flag: 'reminder' | 'overdue' },
): Promise<void> {
  await inTransaction(knex, async (trx) => {
    const withdrawal = await lockedWithdrawal(trx, input.withdrawalId);
    const column = input.flag === 'reminder' ? 'refundRemindedAt' : 'refundOverdueAt';
    if (withdrawal.status !== 'effective' || withdrawal[column] !== null) return;
    await ShareWithdrawal.query(trx)
      .patch({ [column]: now })
      .where('id', withdrawal.id);
    await recordAudit(trx, null, {
      action: `share_withdrawal.refund_${input.flag}`,
      entityType: 'share_withdrawal',
      entityId: withdrawal.id,
      enterpriseId: withdrawal.enterpriseId,
      details: { number: withdrawal.number, refund_due_on: withdrawal.refundDueOn, owed: withdrawal.cancelledPaid },
    });
  });
}
