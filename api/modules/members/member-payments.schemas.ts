import * as yup from 'yup';
import type { Money } from '../../../domain/money';
import { accountForChannel } from '../money.schemas';

/** How a member pays at the counter, or is paid: in cash (the default) or through their own account. */
export const paymentChannel = () =>
  yup
    .string()
    .oneOf(['cash', 'account'] as const)
    .default('cash');

/** The free reference a teller gives a payment. */
export const paymentReference = () => yup.string().trim().max(100).default('');

/** The channel of a payment of shares or of their refund: the account is the member's own. */
export const ownAccountChannel = {
  channel: paymentChannel(),
  account: accountForChannel().meta({ description: "The member's own account, for the account channel." }),
  reference: paymentReference(),
};

/** A payment's body in the activities' terms. */
export const paymentOf = (body: {
  amount: Money;
  channel: 'cash' | 'account';
  account?: string;
  reference: string;
}) => ({ amount: body.amount, channel: body.channel, accountId: body.account ?? null, reference: body.reference });
