import { addDaysTo, addMonthsClamped, parseIsoDate, type IsoDate } from '../calendar';
import { Money } from '../money';
import type { ShareTypeTerms } from './share-type';
import type { Refusal } from '../refusal';

/**
 * Withdrawing shares (AUSCOOP Art. 11; the seed): written notice, a notice period, then the shares are
 * cancelled and their paid value is owed to the member, refunded within a year of the effective date (two
 * years by a recorded decision of the board), net of what the member owes the cooperative.
 */

const refundPeriodMonths = 12;
const extendedRefundPeriodMonths = 24;

export interface WithdrawalRequest {
  terms: Pick<ShareTypeTerms, 'code' | 'minShares' | 'seniorityYears'> & { withdrawable: boolean };
  subscribedOn: IsoDate;
  businessDate: IsoDate;
  shares: number;
  /** Of the subscription: held (not withdrawn) and already asked for by withdrawals in their notice period. */
  subscriptionHeld: number;
  subscriptionPending: number;
  /** Of the member for this type, the same two figures. */
  typeHeld: number;
  typePending: number;
  /** The member leaves the cooperative: no minimum holding to keep. */
  leaving: boolean;
}

/** The day seniority allows a withdrawal: `years` after the subscription. */
export const withdrawableFrom = (subscribedOn: IsoDate, years: number): IsoDate =>
  addMonthsClamped(parseIsoDate(subscribedOn), 12 * years);

/** Why a withdrawal is refused, or null. Shares are never pledged (AUSCOOP Art. 379), so no pledge can block one. */
export function withdrawalRefusal(request: WithdrawalRequest): Refusal | null {
  const { terms } = request;
  if (!terms.withdrawable)
    return {
      kind: 'conflict',
      code: 'shares_not_withdrawable',
      message: `Shares of type ${terms.code} cannot be withdrawn.`,
    };
  const available = request.subscriptionHeld - request.subscriptionPending;
  if (request.shares > available) {
    return {
      kind: 'conflict',
      code: 'not_enough_shares',
      field: 'shares',
      message:
        `${available} share(s) of this subscription can be withdrawn (${request.subscriptionPending} already ` +
        `in notice).`,
    };
  }
  const from = withdrawableFrom(request.subscribedOn, terms.seniorityYears);
  if (request.businessDate < from) {
    return {
      kind: 'conflict',
      code: 'seniority_not_reached',
      message:
        `Shares of type ${terms.code} need ${terms.seniorityYears} years of seniority: ` + `withdrawable from ${from}.`,
    };
  }
  const remaining = request.typeHeld - request.typePending - request.shares;
  if (!request.leaving && remaining < terms.minShares) {
    return {
      kind: 'unprocessable',
      code: 'below_minimum_shares',
      field: 'shares',
      message:
        `A member who stays keeps at least ${terms.minShares} share(s) of type ${terms.code}: ` +
        `${remaining} would remain.`,
    };
  }
  return null;
}

export const plannedEffectiveDate = (requestedOn: IsoDate, noticeDays: number): IsoDate =>
  addDaysTo(parseIsoDate(requestedOn), noticeDays);

/**
 * The value of the cancelled shares, split as the subscription was paid: the unpaid part is simply no longer
 * owed (it is cancelled first), the paid part becomes the refund owed to the member.
 */
export function cancellationSplit(input: { shares: number; nominalValue: Money; subscriptionUnpaid: Money }): {
  value: Money;
  unpaid: Money;
  paid: Money;
} {
  const value = input.nominalValue.times(input.shares);
  const unpaid = Money.min(value, input.subscriptionUnpaid);
  return { value, unpaid, paid: value.minus(unpaid) };
}

export const refundDueOn = (effectiveOn: IsoDate, extended: boolean): IsoDate =>
  addMonthsClamped(parseIsoDate(effectiveOn), extended ? extendedRefundPeriodMonths : refundPeriodMonths);

/** What the member owes on one loan, as the refund may take it. */
export interface LoanDebt {
  loanId: string;
  /** Installments due by the refund date, with penalties. */
  overdue: Money;
  /** Principal of the installments not yet due. */
  outstandingPrincipal: Money;
}

/**
 * How much of a refund each loan takes: the overdue installments of every loan first, then, when the member
 * leaves, the outstanding principal; the rest is paid out. Loans in the order given (oldest first).
 */
export function refundOffsets(
  gross: Money,
  debts: readonly LoanDebt[],
  leaving: boolean,
): { byLoan: Map<string, Money>; offset: Money; net: Money } {
  let left = gross;
  const byLoan = new Map<string, Money>();
  const take = (loanId: string, due: Money) => {
    const part = Money.min(left, due);
    if (part.isZero()) return;
    left = left.minus(part);
    byLoan.set(loanId, (byLoan.get(loanId) ?? new Money(0)).plus(part));
  };
  for (const debt of debts) take(debt.loanId, debt.overdue);
  if (leaving) for (const debt of debts) take(debt.loanId, debt.outstandingPrincipal);
  return { byLoan, offset: gross.minus(left), net: left };
}
