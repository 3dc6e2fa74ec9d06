import type { Knex } from 'knex';
import * as yup from 'yup';
import { businessDateSql } from '../../../activities/enterprise/configuration.activity';
import type { SharePaymentRow } from '../../../activities/shares/share-payments';
import { ShareType } from '../../../db/models/share-type.model';
import { ShareWithdrawal } from '../../../db/models/share-withdrawal.model';
import type { Loader } from '../../route';
import { moneyResponse } from '../money.schemas';
import { dateResponse, timestampResponse } from '../common.schemas';

/** The reads of the shares module: subscriptions with their state at the business date, payments, and their shapes. */

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

/** Subscriptions with what is left unpaid and whether that is overdue at their enterprise's business date. */
export function subscriptionsQuery(knex: Knex, now: Date): Knex.QueryBuilder {
  const unpaid = 's.amount - s.paid_amount - s.withdrawn_unpaid';
  return knex('share_subscriptions as s')
    .join('share_types as t', 't.id', 's.share_type_id')
    .join('client_profiles as c', 'c.id', 's.client_id')
    .join('enterprise_configurations as ec', 'ec.enterprise_id', 's.enterprise_id')
    .select(
      's.id', 's.enterprise_id', 's.branch_id', 's.client_id', 'c.member_number', 's.share_type_id', 't.code as share_type_code', 's.number', 's.shares', 's.withdrawn_shares',
      's.nominal_value', 's.amount', 's.paid_amount', 's.withdrawn_paid', 's.withdrawn_unpaid', 's.subscribed_on', 's.payment_due_on', 's.subscribed_by', 's.created_at',
      knex.raw(`(${unpaid})::text AS unpaid`),
      knex.raw(`(${unpaid} > 0 AND s.payment_due_on < ?) AS payment_overdue`, [businessDateSql(knex, 'ec', now)]),
    );
}

/** Only subscriptions with an unpaid balance past its due date: the list the board acts on (AUSCOOP Art. 384). */
export function whereOverdue(builder: Knex.QueryBuilder, knex: Knex, now: Date): Knex.QueryBuilder {
  return builder.whereRaw('s.amount - s.paid_amount - s.withdrawn_unpaid > 0').where('s.payment_due_on', '<', businessDateSql(knex, 'ec', now));
}

export const paymentsQuery = (knex: Knex) => knex('share_payments as p').join('share_subscriptions as s', 's.id', 'p.subscription_id').select('p.*', 's.number as subscription_number');

export type PaymentRow = SharePaymentRow & { subscription_number: string };

export function serializePayment(row: PaymentRow) {
  return {
    id: row.id,
    enterprise: row.enterprise_id,
    branch: row.branch_id,
    client: row.client_id,
    subscription: row.subscription_id,
    subscription_number: row.subscription_number,
    number: row.number,
    amount: row.amount,
    channel: row.channel,
    account: row.account_id,
    reference: row.reference,
    business_date: row.business_date,
    unpaid_after: row.unpaid_after,
    event: row.event_id,
    recorded_by: row.recorded_by,
    recorded_at: row.created_at.toISOString(),
  };
}

export const paymentSchema = yup.object({
  id: yup.string().uuid().required(),
  enterprise: yup.string().uuid().required(),
  branch: yup.string().uuid().required(),
  client: yup.string().uuid().required(),
  subscription: yup.string().uuid().required(),
  subscription_number: yup.string().required(),
  number: yup.string().required().meta({ example: 'PAY-2026-000001' }),
  amount: moneyResponse(),
  channel: yup.string().oneOf(['cash', 'account']).required(),
  account: yup.string().uuid().nullable().defined(),
  reference: yup.string().defined(),
  business_date: dateResponse(),
  unpaid_after: moneyResponse(),
  event: yup.string().uuid().required().meta({ description: 'The business event that posted it.' }),
  recorded_by: yup.string().uuid().required(),
  recorded_at: timestampResponse(),
}).meta({ component: 'SharePayment' });

/** Subscriptions as answered, each with its payments: two queries for a whole page. */
export async function serializeSubscriptions(knex: Knex, rows: readonly SubscriptionRow[]) {
  const payments: PaymentRow[] = await paymentsQuery(knex).whereIn('p.subscription_id', rows.map((row) => row.id)).orderBy([{ column: 'p.created_at' }, { column: 'p.id' }]);
  return rows.map((row) => ({
    id: row.id,
    enterprise: row.enterprise_id,
    branch: row.branch_id,
    client: row.client_id,
    member_number: row.member_number,
    share_type: row.share_type_id,
    share_type_code: row.share_type_code,
    number: row.number,
    shares: row.shares,
    held_shares: row.shares - row.withdrawn_shares,
    nominal_value: row.nominal_value,
    amount: row.amount,
    paid_amount: row.paid_amount,
    unpaid_amount: row.unpaid,
    withdrawn_shares: row.withdrawn_shares,
    withdrawn_paid: row.withdrawn_paid,
    withdrawn_unpaid: row.withdrawn_unpaid,
    subscribed_on: row.subscribed_on,
    payment_due_on: row.payment_due_on,
    payment_overdue: row.payment_overdue,
    subscribed_by: row.subscribed_by,
    created_at: row.created_at.toISOString(),
    payments: payments.filter((payment) => payment.subscription_id === row.id).map(serializePayment),
  }));
}

export const subscriptionSchema = yup.object({
  id: yup.string().uuid().required(),
  enterprise: yup.string().uuid().required(),
  branch: yup.string().uuid().required(),
  client: yup.string().uuid().required(),
  member_number: yup.string().required(),
  share_type: yup.string().uuid().required(),
  share_type_code: yup.string().required(),
  number: yup.string().required().meta({ example: 'SUB-2026-000001' }),
  shares: yup.number().integer().required().meta({ description: 'Subscribed.' }),
  held_shares: yup.number().integer().required().meta({ description: 'Subscribed and not withdrawn.' }),
  nominal_value: moneyResponse(),
  amount: moneyResponse(),
  paid_amount: moneyResponse(),
  unpaid_amount: moneyResponse(),
  withdrawn_shares: yup.number().integer().required(),
  withdrawn_paid: moneyResponse(),
  withdrawn_unpaid: moneyResponse(),
  subscribed_on: dateResponse(),
  payment_due_on: dateResponse().meta({ description: 'The date by which the rest is paid.' }),
  payment_overdue: yup.boolean().required().meta({ description: 'Unpaid after payment_due_on, at the business date.' }),
  subscribed_by: yup.string().uuid().required(),
  created_at: timestampResponse(),
  payments: yup.array(paymentSchema).required(),
}).meta({ component: 'ShareSubscription' });

export async function subscriptionRow(knex: Knex, now: Date, id: string): Promise<SubscriptionRow | undefined> {
  return subscriptionsQuery(knex, now).where('s.id', id).first();
}

/** The resources of the shares module a route loads by id (the router checks access: api/router.ts). */
export const shareLoaders = {
  type: {
    name: 'The share type',
    load: async ({ knex }, id) => ShareType.query(knex).findById(id),
    scope: (type) => ({ enterpriseId: type.enterpriseId }),
  } satisfies Loader<ShareType>,
  subscription: {
    name: 'The subscription',
    load: async ({ knex, clock }, id) => subscriptionRow(knex, clock(), id),
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<SubscriptionRow>,
  payment: {
    name: 'The payment',
    load: async ({ knex }, id) => paymentsQuery(knex).where('p.id', id).first() as Promise<PaymentRow | undefined>,
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<PaymentRow>,
  withdrawal: {
    name: 'The withdrawal',
    load: async ({ knex }, id) => ShareWithdrawal.query(knex).findById(id),
    scope: (withdrawal) => ({ enterpriseId: withdrawal.enterpriseId, branchId: withdrawal.branchId }),
  } satisfies Loader<ShareWithdrawal>,
};

export const subscriptionDetail = async (knex: Knex, row: SubscriptionRow) => (await serializeSubscriptions(knex, [row]))[0]!;
