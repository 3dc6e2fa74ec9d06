import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import type { Refusal } from '../../domain/refusal';
import type { ShareTypeTerms } from '../../domain/shares/share-type';
import { paymentDueOn, paymentRefusal, subscriptionRefusal } from '../../domain/shares/subscription';
import { ShareSubscription } from '../../db/models/share-subscription.model';
import { ShareType } from '../../db/models/share-type.model';
import { nextSequenceValue } from '../../db/sequences';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { assertSameRequest, operationKey } from '../idempotency';
import { recordBusinessEvent } from '../events/record-business-event';
import {
  fundingOf,
  insertSharePayment,
  postSharePayment,
  unpaidOf,
  type PaymentDraft,
  type ShareFunding,
  type SharePaymentRow,
} from './share-payments';
import { termsOf } from './share-types.activity';

/** A business refusal of the share rules, as the API reports it (409 or 422, naming the field). */
export const refusalError = (refusal: Refusal): AppError =>
  new AppError(
    refusal.kind,
    refusal.code,
    refusal.message,
    refusal.field === undefined ? [] : [{ field: refusal.field, message: refusal.message }],
  );

interface MemberRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  status: string;
  founder: boolean;
  member_number: string;
}

/** The member, locked: their subscriptions and withdrawals queue, so the bounds are checked on settled figures. */
export async function lockMember(trx: Knex.Transaction, clientId: string): Promise<MemberRow> {
  const member: MemberRow | undefined = await trx('client_profiles')
    .where({ id: clientId })
    .forUpdate()
    .first('id', 'enterprise_id', 'branch_id', 'status', 'founder', 'member_number');
  if (member === undefined) throw new NotFoundError('The member');
  return member;
}

/** Shares of a type the member holds (subscribed, not withdrawn). */
export async function heldShares(trx: Knex.Transaction, clientId: string, shareTypeId: string): Promise<number> {
  const row = await trx('share_subscriptions')
    .where({ client_id: clientId, share_type_id: shareTypeId })
    .first(trx.raw('COALESCE(SUM(shares - withdrawn_shares), 0)::int AS held'));
  return row.held as number;
}

export interface SubscriptionInput {
  clientId: string;
  shareTypeId: string;
  shares: number;
  /** Paid at subscription; null: the whole amount. */
  initialPayment: Money | null;
  channel: 'cash' | 'account';
  accountId: string | null;
  reference: string;
  idempotencyKey: string | null;
}

export interface Subscribed {
  subscription: ShareSubscription;
  payment: SharePaymentRow | null;
  replayed: boolean;
}

/** The share type asked for, which must be one of the member's enterprise. */
async function memberShareType(trx: Knex.Transaction, shareTypeId: string, member: MemberRow): Promise<ShareType> {
  const type = await ShareType.query(trx).findById(shareTypeId).forShare();
  if (type === undefined || type.enterpriseId !== member.enterprise_id) {
    throw new AppError('validation', 'invalid_request', 'The share type is not one of the enterprise.', [
      { field: 'share_type', message: "share_type must be a share type of the member's enterprise" },
    ]);
  }
  return type;
}

/** The subscription an earlier request with the same key made, with its payment; refused if the request differs. */
async function earlierSubscription(
  trx: Knex.Transaction,
  member: MemberRow,
  key: string,
  request: Record<string, unknown>,
): Promise<Subscribed | undefined> {
  const earlier = await ShareSubscription.query(trx).findOne({
    enterprise_id: member.enterprise_id,
    idempotency_key: key,
  });
  if (earlier === undefined) return undefined;
  assertSameRequest(earlier.request, request);
  return {
    subscription: earlier,
    payment: await trx('share_payments').where({ subscription_id: earlier.id }).orderBy('created_at').first(),
    replayed: true,
  };
}

/** Only an active member subscribes, and only shares of an active type. */
function assertSubscribable(member: MemberRow, type: ShareType): void {
  if (member.status !== 'active')
    throw new AppError('conflict', 'member_not_active', `The member is ${member.status}: no shares can be subscribed.`);
  if (!type.isActive)
    throw new AppError(
      'conflict',
      'share_type_inactive',
      `Share type ${type.code} is deactivated: no new subscription.`,
    );
}

/** A subscription's place: its id, chosen before it is numbered, and whose it is. */
interface PlacedSubscription {
  id: string;
  enterpriseId: string;
  branchId: string;
  clientId: string;
}

/** What a new subscription is made of, once every check has passed. */
interface NewSubscription {
  placed: PlacedSubscription;
  member: MemberRow;
  type: ShareType;
  shares: number;
  amount: Money;
  initialPayment: Money;
  terms: ShareTypeTerms;
  businessDate: string;
  key: string;
  request: Record<string, unknown>;
  actorId: string;
}

/** Posts the subscription: its amount to the unpaid capital. */
async function recordSubscriptionEvent(trx: Knex.Transaction, now: Date, made: NewSubscription): Promise<void> {
  const { member, placed, type, shares } = made;
  await recordBusinessEvent(trx, now, {
    enterpriseId: member.enterprise_id,
    branchId: member.branch_id,
    kind: 'share_subscription',
    amount: made.amount,
    subjectId: placed.id,
    payload: { subscription: placed.id, client: member.id, share_type: type.code, shares },
    idempotencyKey: `${made.key}:subscription`,
    actorId: made.actorId,
    description: `share subscription, member ${member.member_number}: ${shares} × ${type.nominalValue} XAF`,
  });
}

/**
 * Numbers and inserts the subscription; numbered last, once everything that may fail is done: the enterprise's
 * counters stay locked briefly.
 */
async function insertSubscription(trx: Knex.Transaction, made: NewSubscription): Promise<ShareSubscription> {
  const { businessDate, type } = made;
  const year = Number(businessDate.slice(0, 4));
  const sequence = await nextSequenceValue(trx, {
    name: 'share_subscription',
    enterpriseId: made.member.enterprise_id,
    year,
  });
  return ShareSubscription.query(trx)
    .insert({
      ...made.placed,
      shareTypeId: type.id,
      number: `SUB-${year}-${String(sequence).padStart(6, '0')}`,
      shares: made.shares,
      nominalValue: type.nominalValue,
      amount: formatAmount(made.amount),
      subscribedOn: businessDate,
      paymentDueOn: paymentDueOn(businessDate, made.terms),
      paidAmount: formatAmount(made.initialPayment),
      subscribedBy: made.actorId,
      idempotencyKey: made.key,
      request: made.request,
    })
    .returning('*');
}

/** The payment made at subscription: the initial payment, from the till or the member's account. */
const paymentAtSubscription = (made: NewSubscription, funding: ShareFunding, reference: string): PaymentDraft => ({
  subscription: made.placed,
  amount: made.initialPayment,
  funding,
  reference,
  businessDate: made.businessDate,
  key: `${made.key}:payment`,
  request: made.request,
  actorId: made.actorId,
  description: `share payment at subscription, member ${made.member.member_number}`,
});

async function auditSubscription(
  trx: Knex.Transaction,
  actor: Actor,
  made: NewSubscription,
  subscription: ShareSubscription,
  payment: SharePaymentRow,
): Promise<void> {
  await recordAudit(trx, actor, {
    action: 'share_subscription.create',
    entityType: 'share_subscription',
    entityId: subscription.id,
    enterpriseId: made.member.enterprise_id,
    details: {
      number: subscription.number,
      member: made.member.member_number,
      type: made.type.code,
      shares: made.shares,
      amount: subscription.amount,
      paid: payment.amount,
    },
  });
}

/**
 * A member subscribes shares of a type, in one transaction: numbered SUB-{year}-{n} from ShareSequence, posted
 * (4411 to the unpaid capital 1001), and paid at once in full or, when the type allows it, in part (then the
 * rest is due within the type's payment period).
 */
export async function subscribeShares(
  context: ActivityContext,
  actor: Actor,
  input: SubscriptionInput,
): Promise<Subscribed> {
  return inTransaction(context.knex, async (trx) => {
    const member = await lockMember(trx, input.clientId);
    const key = operationKey('share-subscription', actor, input.idempotencyKey);
    const type = await memberShareType(trx, input.shareTypeId, member);
    const amount = new Money(type.nominalValue).times(input.shares);
    const request = {
      client: member.id,
      share_type: type.id,
      shares: input.shares,
      initial_payment: formatAmount(input.initialPayment ?? amount),
      channel: input.channel,
      account: input.accountId,
      reference: input.reference,
    };
    if (input.idempotencyKey !== null) {
      const earlier = await earlierSubscription(trx, member, key, request);
      if (earlier !== undefined) return earlier;
    }
    assertSubscribable(member, type);
    const terms = termsOf(type);
    const initialPayment = input.initialPayment ?? amount;
    const refusal = subscriptionRefusal({
      terms,
      heldShares: await heldShares(trx, member.id, type.id),
      shares: input.shares,
      initialPayment,
      founder: member.founder,
    });
    if (refusal !== null) throw refusalError(refusal);
    const funding = await fundingOf(trx, input.channel, input.accountId, member.id);
    const now = context.clock();
    const businessDate = await businessDateOf(trx, member.enterprise_id, now);
    const placed = {
      id: randomUUID(),
      enterpriseId: member.enterprise_id,
      branchId: member.branch_id,
      clientId: member.id,
    };
    const made: NewSubscription = {
      placed,
      member,
      type,
      shares: input.shares,
      amount,
      initialPayment,
      terms,
      businessDate,
      key,
      request,
      actorId: actor.userId,
    };
    await recordSubscriptionEvent(trx, now, made);
    const draft = paymentAtSubscription(made, funding, input.reference);
    const eventId = await postSharePayment(trx, now, draft);
    const subscription = await insertSubscription(trx, made);
    const payment = await insertSharePayment(trx, draft, eventId, amount.minus(initialPayment));
    await auditSubscription(trx, actor, made, subscription, payment);
    return { subscription, payment, replayed: false };
  });
}

export interface PaymentInput {
  subscriptionId: string;
  amount: Money;
  channel: 'cash' | 'account';
  accountId: string | null;
  reference: string;
  idempotencyKey: string | null;
}

/** Pays up part or all of what is unpaid on a subscription, at the till or from the member's account. */
export async function payShares(
  context: ActivityContext,
  actor: Actor,
  input: PaymentInput,
): Promise<{ payment: SharePaymentRow; replayed: boolean }> {
  return inTransaction(context.knex, async (trx) => {
    const subscription = await ShareSubscription.query(trx).findById(input.subscriptionId).forUpdate();
    if (subscription === undefined) throw new NotFoundError('The subscription');
    const key = operationKey('share-payment', actor, input.idempotencyKey);
    const request = {
      subscription: subscription.id,
      amount: formatAmount(input.amount),
      channel: input.channel,
      account: input.accountId,
      reference: input.reference,
    };
    if (input.idempotencyKey !== null) {
      const earlier: SharePaymentRow | undefined = await trx('share_payments')
        .where({ enterprise_id: subscription.enterpriseId, idempotency_key: key })
        .first();
      if (earlier !== undefined) {
        assertSameRequest(earlier.request, request);
        return { payment: earlier, replayed: true };
      }
    }
    const refusal = paymentRefusal(input.amount, unpaidOf(subscription));
    if (refusal !== null) throw refusalError(refusal);
    const funding = await fundingOf(trx, input.channel, input.accountId, subscription.clientId);
    const now = context.clock();
    const businessDate = await businessDateOf(trx, subscription.enterpriseId, now);
    const draft = {
      subscription,
      amount: input.amount,
      funding,
      reference: input.reference,
      businessDate,
      key,
      request,
      actorId: actor.userId,
      description: `share payment ${subscription.number}`,
    };
    const eventId = await postSharePayment(trx, now, draft);
    await ShareSubscription.query(trx)
      .patch({ paidAmount: formatAmount(new Money(subscription.paidAmount).plus(input.amount)) })
      .where('id', subscription.id);
    const payment = await insertSharePayment(trx, draft, eventId, unpaidOf(subscription).minus(input.amount));
    await recordAudit(trx, actor, {
      action: 'share_payment.create',
      entityType: 'share_payment',
      entityId: payment.id,
      enterpriseId: subscription.enterpriseId,
      details: {
        number: payment.number,
        subscription: subscription.number,
        amount: payment.amount,
        channel: payment.channel,
      },
    });
    return { payment, replayed: false };
  });
}
