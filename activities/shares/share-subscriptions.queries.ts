import type { Knex } from 'knex';
import { businessDateSql } from '../enterprise/configuration.activity';
import type { SharePaymentRow } from './share-payments';

/** The reads of subscriptions (with their state at the business date) and of their payments. */

export interface SubscriptionRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  client_id: string;
  member_number: string;
  share_type_id: string;
  share_type_code: string;
  number: string;
  shares: number;
  withdrawn_shares: number;
  nominal_value: string;
  amount: string;
  paid_amount: string;
  withdrawn_paid: string;
  withdrawn_unpaid: string;
  unpaid: string;
  subscribed_on: string;
  payment_due_on: string;
  payment_overdue: boolean;
  subscribed_by: string;
  created_at: Date;
}

export type PaymentRow = SharePaymentRow & { subscription_number: string };

/** A subscription as answered: its row and its payments, oldest first. */
export type SubscriptionWithPayments = SubscriptionRow & { payments: PaymentRow[] };

/** Subscriptions with what is left unpaid and whether that is overdue at their enterprise's business date. */
export function subscriptionsQuery(knex: Knex, now: Date): Knex.QueryBuilder {
  const unpaid = 's.amount - s.paid_amount - s.withdrawn_unpaid';
  return knex('share_subscriptions as s')
    .join('share_types as t', 't.id', 's.share_type_id')
    .join('client_profiles as c', 'c.id', 's.client_id')
    .join('enterprise_configurations as ec', 'ec.enterprise_id', 's.enterprise_id')
    .select(
      's.id',
      's.enterprise_id',
      's.branch_id',
      's.client_id',
      'c.member_number',
      's.share_type_id',
      't.code as share_type_code',
      's.number',
      's.shares',
      's.withdrawn_shares',
      's.nominal_value',
      's.amount',
      's.paid_amount',
      's.withdrawn_paid',
      's.withdrawn_unpaid',
      's.subscribed_on',
      's.payment_due_on',
      's.subscribed_by',
      's.created_at',
      knex.raw(`(${unpaid})::text AS unpaid`),
      knex.raw(`(${unpaid} > 0 AND s.payment_due_on < ?) AS payment_overdue`, [businessDateSql(knex, 'ec', now)]),
    );
}

/** Only subscriptions with an unpaid balance past its due date: the list the board acts on (AUSCOOP Art. 384). */
export function whereOverdue(builder: Knex.QueryBuilder, knex: Knex, now: Date): Knex.QueryBuilder {
  return builder
    .whereRaw('s.amount - s.paid_amount - s.withdrawn_unpaid > 0')
    .where('s.payment_due_on', '<', businessDateSql(knex, 'ec', now));
}

export const subscriptionById = async (knex: Knex, now: Date, id: string): Promise<SubscriptionRow | undefined> =>
  subscriptionsQuery(knex, now).where('s.id', id).first();

/** Payments with their subscription's number. */
export const paymentsQuery = (knex: Knex) =>
  knex('share_payments as p')
    .join('share_subscriptions as s', 's.id', 'p.subscription_id')
    .select('p.*', 's.number as subscription_number');

export const paymentById = (knex: Knex, id: string) =>
  paymentsQuery(knex).where('p.id', id).first() as Promise<PaymentRow | undefined>;

/** Subscriptions each with its payments: one more query for a whole page. */
export async function withPayments(knex: Knex, rows: readonly SubscriptionRow[]): Promise<SubscriptionWithPayments[]> {
  const payments: PaymentRow[] = await paymentsQuery(knex)
    .whereIn(
      'p.subscription_id',
      rows.map((row) => row.id),
    )
    .orderBy([{ column: 'p.created_at' }, { column: 'p.id' }]);
  return rows.map((row) => ({ ...row, payments: payments.filter((payment) => payment.subscription_id === row.id) }));
}

/** One subscription as it is now, with its payments (after a change: what the activity committed). */
export const subscriptionWithPayments = async (knex: Knex, now: Date, id: string) =>
  (await withPayments(knex, [(await subscriptionById(knex, now, id))!]))[0]!;
