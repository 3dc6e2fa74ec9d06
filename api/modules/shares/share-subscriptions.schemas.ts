import * as yup from 'yup';
import type { PaymentRow, SubscriptionWithPayments } from '../../../activities/shares/share-subscriptions.queries';
import { moneyResponse } from '../money.schemas';
import { dateResponse, timestampResponse, nullableId } from '../common.schemas';
import { memberRecordFields } from '../members/member-records.schemas';

export const paymentSchema = yup
  .object({
    ...memberRecordFields,
    subscription: yup.string().uuid().required(),
    subscription_number: yup.string().required(),
    number: yup.string().required().meta({ example: 'PAY-2026-000001' }),
    amount: moneyResponse(),
    channel: yup.string().oneOf(['cash', 'account']).required(),
    account: nullableId(),
    reference: yup.string().defined(),
    business_date: dateResponse(),
    unpaid_after: moneyResponse(),
    event: yup.string().uuid().required().meta({ description: 'The business event that posted it.' }),
    recorded_by: yup.string().uuid().required(),
    recorded_at: timestampResponse(),
  })
  .meta({ component: 'SharePayment' });

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

export const subscriptionSchema = yup
  .object({
    ...memberRecordFields,
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
    payment_overdue: yup
      .boolean()
      .required()
      .meta({ description: 'Unpaid after payment_due_on, at the business date.' }),
    subscribed_by: yup.string().uuid().required(),
    created_at: timestampResponse(),
    payments: yup.array(paymentSchema).required(),
  })
  .meta({ component: 'ShareSubscription' });

export const serializeSubscription = (row: SubscriptionWithPayments) => ({
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
  payments: row.payments.map(serializePayment),
});
