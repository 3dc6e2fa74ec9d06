import { addMonthsClamped, parseIsoDate, type IsoDate } from '../calendar';
import { amountMax, Money, toFrancs } from '../money';
import type { Refusal } from '../refusal';
import { founderCode, type ShareTypeTerms } from './share-type';

/**
 * Subscribing shares and paying them up (libération). Pure: the activity reads the member's holding and the
 * type, and maps a refusal to its HTTP status through the error kind.
 */

/** The least paid at subscription: the whole amount, or the type's share of it (rounded up to the franc). */
export function minimumInitialPayment(amount: Money, terms: ShareTypeTerms): Money {
  return terms.partialPaymentAllowed
    ? amount.times(terms.minimumInitialPaymentRate).toDecimalPlaces(0, Money.ROUND_UP)
    : amount;
}

/** When the rest must be paid: at subscription, or within the type's payment period. */
export function paymentDueOn(subscribedOn: IsoDate, terms: ShareTypeTerms): IsoDate {
  return terms.partialPaymentAllowed
    ? addMonthsClamped(parseIsoDate(subscribedOn), terms.paymentPeriodMonths)
    : subscribedOn;
}

export interface SubscriptionRequest {
  terms: ShareTypeTerms;
  /** Shares of this type the member holds already (subscribed, not withdrawn). */
  heldShares: number;
  shares: number;
  initialPayment: Money;
  /** Named among the initiateurs by direction. */
  founder: boolean;
}

/** Why a subscription is refused, or null: founder shares for founders, the type's bounds, the first payment. */
export function subscriptionRefusal(request: SubscriptionRequest): Refusal | null {
  const { terms } = request;
  if (terms.code === founderCode && !request.founder) {
    return {
      kind: 'conflict',
      code: 'not_a_founder',
      message: 'Founder shares are for members named founders by direction.',
    };
  }
  const total = request.heldShares + request.shares;
  if (total > terms.maxShares) {
    return {
      kind: 'conflict',
      code: 'above_maximum_shares',
      field: 'shares',
      message:
        `A member holds at most ${terms.maxShares} shares of type ${terms.code}: ${request.heldShares} held, ` +
        `${request.shares} asked.`,
    };
  }
  if (total < terms.minShares) {
    return {
      kind: 'unprocessable',
      code: 'below_minimum_shares',
      field: 'shares',
      message:
        `A member holds at least ${terms.minShares} shares of type ${terms.code}: ` +
        `subscribe ${terms.minShares - request.heldShares} or more.`,
    };
  }
  const amount = terms.nominalValue.times(request.shares);
  if (amount.gt(amountMax))
    return {
      kind: 'unprocessable',
      code: 'amount_out_of_bounds',
      field: 'shares',
      message:
        `${request.shares} shares of ${toFrancs(terms.nominalValue, Money.ROUND_HALF_UP)} XAF are above the ` +
        `largest amount the product handles.`,
    };
  const minimum = minimumInitialPayment(amount, terms);
  if (request.initialPayment.lt(minimum) || request.initialPayment.gt(amount)) {
    const expected = minimum.eq(amount)
      ? `the whole amount, ${toFrancs(amount, Money.ROUND_HALF_UP)} XAF`
      : `from ${toFrancs(minimum, Money.ROUND_HALF_UP)} to ${toFrancs(amount, Money.ROUND_HALF_UP)} XAF`;
    return {
      kind: 'unprocessable',
      code: 'initial_payment_out_of_bounds',
      field: 'initial_payment',
      message: `initial_payment must be ${expected} for type ${terms.code}.`,
    };
  }
  return null;
}

/** A payment never exceeds what is unpaid. */
export function paymentRefusal(amount: Money, unpaid: Money): Refusal | null {
  if (unpaid.isZero())
    return { kind: 'conflict', code: 'subscription_paid_up', message: 'The subscription is fully paid.' };
  if (amount.gt(unpaid))
    return {
      kind: 'conflict',
      code: 'exceeds_unpaid',
      field: 'amount',
      message: `At most ${toFrancs(unpaid, Money.ROUND_HALF_UP)} XAF remains to be paid on this subscription.`,
    };
  return null;
}
