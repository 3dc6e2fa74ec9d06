import type { Knex } from 'knex';
import { formatAmount, Money } from '../../domain/money';
import { ShareSubscription } from '../../db/models/share-subscription.model';
import { nextSequenceValue } from '../../db/sequences';
import { defaultRoleAccounts } from '../events/default-rules';
import { recordBusinessEvent } from '../events/record-business-event';
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
export async function fundingOf(
  trx: Knex.Transaction,
  channel: 'cash' | 'account',
  accountId: string | null,
  clientId: string,
): Promise<ShareFunding> {
  return channel === 'account' ? { channel, leg: await memberAccountLeg(trx, accountId!, clientId) } : { channel };
}

/** The account the funding's side of an entry posts to (the `cash` role). */
export const fundingAccount = (funding: ShareFunding): string =>
  funding.channel === 'account' ? funding.leg.depositAccountCode : defaultRoleAccounts.cash;

export const unpaidOf = (subscription: ShareSubscription): Money =>
  new Money(subscription.amount).minus(subscription.paidAmount).minus(subscription.withdrawnUnpaid);

export interface PaymentDraft {
  /** Locked by the caller (FOR UPDATE), its amount checked against what is unpaid. */
  subscription: Pick<ShareSubscription, 'id' | 'enterpriseId' | 'branchId' | 'clientId'>;
  amount: Money;
  funding: ShareFunding;
  reference: string;
  businessDate: string;
  key: string;
  request: Record<string, unknown>;
  actorId: string;
  /** The entry's description. */
  description: string;
}

/**
 * The money side of a payment (libération), in the caller's transaction: the member's account debited when it
 * pays, and the entry posted through the ledger (the till or the member's account to 4411, the unpaid capital
 * 1001 to paid capital 1000). Returns the event's id.
 */
export async function postSharePayment(trx: Knex.Transaction, now: Date, draft: PaymentDraft): Promise<string> {
  const { subscription, funding } = draft;
  if (funding.channel === 'account') await moveAccountBalance(trx, funding.leg, draft.amount.negated());
  const recorded = await recordBusinessEvent(trx, now, {
    enterpriseId: subscription.enterpriseId,
    branchId: subscription.branchId,
    kind: 'share_payment',
    amount: draft.amount,
    subjectId: funding.channel === 'account' ? funding.leg.account.id : subscription.id,
    payload: { subscription: subscription.id, channel: funding.channel },
    idempotencyKey: draft.key,
    actorId: draft.actorId,
    productAccounts: { cash: fundingAccount(funding) },
    description: draft.description,
  });
  return recorded.eventId;
}

/**
 * The payment's row, numbered PAY-{year}-{n} from ShareSequence. The number is taken last, when everything that
 * may fail is done: the enterprise's counter stays locked only for the last inserts and the commit.
 */
export async function insertSharePayment(
  trx: Knex.Transaction,
  draft: PaymentDraft,
  eventId: string,
  unpaidAfter: Money,
): Promise<SharePaymentRow> {
  const { subscription, funding } = draft;
  const year = Number(draft.businessDate.slice(0, 4));
  const sequence = await nextSequenceValue(trx, {
    name: 'share_payment',
    enterpriseId: subscription.enterpriseId,
    year,
  });
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
      event_id: eventId,
      idempotency_key: draft.key,
      request: JSON.stringify(draft.request),
      recorded_by: draft.actorId,
    })
    .returning('*');
  return payment as SharePaymentRow;
}
