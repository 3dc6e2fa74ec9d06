import type { Knex } from 'knex';
import { formatAmount, Money } from '../../domain/money';
import { ShareSubscription } from '../../db/models/share-subscription.model';
import { nextSequenceValue } from '../../db/sequences';
import { defaultRoleAccounts } from '../ledger/default-rules';
import { recordBusinessEvent } from '../ledger/record-business-event';
import { memberAccountLeg, moveAccountBalance, type MemberAccountLeg } from '../members/member-account-leg';

/** Where a payment or a refund is made: at the till, or on the member's own account. */
export type ShareFunding = { channel: 'cash' } | { channel: 'account'; leg: MemberAccountLeg };

export interface SharePaymentRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  client_id: string;
  subscription_id: string;
  number: string;
  amount: string;
  channel: 'cash' | 'account';
  account_id: string | null;
  reference: string;
  business_date: string;
  unpaid_after: string;
  event_id: string;
  request: Record<string, unknown>;
  recorded_by: string;
  created_at: Date;
}

/** The till, or the member's account locked and checked (open, theirs). */
export async function fundingOf(trx: Knex.Transaction, channel: 'cash' | 'account', accountId: string | null, clientId: string): Promise<ShareFunding> {
  return channel === 'account' ? { channel, leg: await memberAccountLeg(trx, accountId!, clientId) } : { channel };
}

/** The account the funding's side of an entry posts to (the `cash` role). */
export const fundingAccount = (funding: ShareFunding): string => (funding.channel === 'account' ? funding.leg.depositAccountCode : defaultRoleAccounts.cash);

export const unpaidOf = (subscription: ShareSubscription): Money => new Money(subscription.amount).minus(subscription.paidAmount).minus(subscription.withdrawnUnpaid);

export interface PaymentDraft {
  /** Locked by the caller (FOR UPDATE), its amount checked against what is unpaid. */
  subscription: ShareSubscription;
  amount: Money;
  funding: ShareFunding;
  reference: string;
  businessDate: string;
  key: string;
  request: Record<string, unknown>;
  actorId: string;
}

/**
 * A payment (libération) in the caller's transaction: numbered PAY-{year}-{n} from ShareSequence, posted through
 * the ledger (the till or the member's account to 4411, and the unpaid capital 1001 to paid capital 1000), the
 * member's account debited, the subscription's paid total moved.
 */
export async function recordSharePayment(trx: Knex.Transaction, now: Date, draft: PaymentDraft): Promise<SharePaymentRow> {
  const { subscription, funding } = draft;
  const unpaidAfter = unpaidOf(subscription).minus(draft.amount);
  if (funding.channel === 'account') await moveAccountBalance(trx, funding.leg, draft.amount.negated());
  const recorded = await recordBusinessEvent(trx, now, {
    enterpriseId: subscription.enterpriseId,
    branchId: subscription.branchId,
    kind: 'share_payment',
    amount: draft.amount,
    subjectId: funding.channel === 'account' ? funding.leg.account.id : subscription.id,
    payload: { subscription: subscription.id, subscription_number: subscription.number, channel: funding.channel },
    idempotencyKey: draft.key,
    actorId: draft.actorId,
    productAccounts: { cash: fundingAccount(funding) },
    description: `share payment ${subscription.number}`,
  });
  const year = Number(draft.businessDate.slice(0, 4));
  const sequence = await nextSequenceValue(trx, { name: 'share_payment', enterpriseId: subscription.enterpriseId, year });
  await ShareSubscription.query(trx).patch({ paidAmount: formatAmount(new Money(subscription.paidAmount).plus(draft.amount)) }).where('id', subscription.id);
  const [payment] = await trx('share_payments')
    .insert({
      enterprise_id: subscription.enterpriseId,
      branch_id: subscription.branchId,
      client_id: subscription.clientId,
      subscription_id: subscription.id,
      number: `PAY-${year}-${String(sequence).padStart(6, '0')}`,
      amount: formatAmount(draft.amount),
      channel: funding.channel,
      account_id: funding.channel === 'account' ? funding.leg.account.id : null,
      reference: draft.reference,
      business_date: draft.businessDate,
      unpaid_after: formatAmount(unpaidAfter),
      event_id: recorded.eventId,
      idempotency_key: draft.key,
      request: JSON.stringify(draft.request),
      recorded_by: draft.actorId,
    })
    .returning('*');
  return payment as SharePaymentRow;
}
