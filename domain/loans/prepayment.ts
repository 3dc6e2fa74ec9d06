import { days30E360Between, type IsoDate } from '../calendar';
import { Money } from '../money';
import { isSettled, unpaidInsurance, type InstallmentState } from './position';
import { annuityPayment, periodsPerYear, type Frequency, type Installment, type ScheduleMethod } from './schedule';

/**
 * Early repayment (docs/domain.md §14.1). Pure: the activity reads the loan's installments, penalties accrued to the
 * business date, and applies what these functions compute. A partial prepayment pays the dues (arrears, penalties,
 * the interest of the current period to the day) and lowers the principal; the installments not yet due are then
 * replaced by a series recomputed from the payment date. A payoff pays the dues and all the principal.
 */

export const prepaymentStrategies = ['reduce_term', 'reduce_installment'] as const;
export type PrepaymentStrategy = (typeof prepaymentStrategies)[number];

const zero = new Money(0);
const toFranc = (amount: Money): Money => amount.toDecimalPlaces(0, Money.ROUND_HALF_UP);
const sum = (rows: readonly InstallmentState[], part: (row: InstallmentState) => Money): Money =>
  rows.reduce((total, row) => total.plus(part(row)), zero);

/** The current installment: the first not yet due, with the interest it has earned by the date. */
export interface CurrentInstallment {
  installment: InstallmentState;
  /** The previous due date, or the disbursement. */
  periodStart: IsoDate;
  /** Its interest to the date (30/360, on the principal still owed), what is already paid of it included. */
  interestEarned: Money;
}

export interface EarlyRepaymentPosition {
  asOf: IsoDate;
  /** Unsettled installments due by `asOf`. */
  due: InstallmentState[];
  /** null when every installment has fallen due. */
  current: CurrentInstallment | null;
  /** The installments after the current one. */
  later: InstallmentState[];
  penalties: Money;
  /** Unpaid insurance parts of the installments due (docs/domain.md §14.6): arrears, paid with the dues. */
  insurance: Money;
  /** Unpaid interest of the installments due, and of the current one to the date. */
  interest: Money;
  overduePrincipal: Money;
  /** Principal not yet due: what a prepayment lowers. */
  principalAhead: Money;
  /** Penalties, insurance, interest and overdue principal: paid first. */
  dues: Money;
}

/**
 * Where a loan stands for an early repayment at `asOf`. `installments` are all of the loan's, penalties accrued to
 * `asOf`. The current period's interest runs on the principal still owed, to the day, 30/360 (the product's day count),
 * never beyond the installment's own interest.
 */
export function earlyRepaymentPosition(
  installments: readonly InstallmentState[],
  asOf: IsoDate,
  loan: { annualRate: Money; disbursedOn: IsoDate },
): EarlyRepaymentPosition {
  const sorted = [...installments].sort((a, b) => a.number - b.number);
  const due = sorted.filter((row) => row.dueDate <= asOf && !isSettled(row));
  const index = sorted.findIndex((row) => row.dueDate > asOf);
  const ahead = index < 0 ? [] : sorted.slice(index);
  let current: CurrentInstallment | null = null;
  if (index >= 0) {
    const installment = sorted[index]!;
    const periodStart = index === 0 ? loan.disbursedOn : sorted[index - 1]!.dueDate;
    const owed = sum(ahead, (row) => row.principalDue.minus(row.principalPaid));
    const days = Math.max(0, days30E360Between(periodStart, asOf));
    const earned = Money.min(toFranc(owed.mul(loan.annualRate).mul(days).div(360)), installment.interestDue);
    current = { installment, periodStart, interestEarned: Money.max(earned, installment.interestPaid) };
  }
  const penalties = sum(due, (row) => row.penaltyDue.minus(row.penaltyPaid));
  const insurance = sum(due, unpaidInsurance);
  const currentInterest = current === null ? zero : current.interestEarned.minus(current.installment.interestPaid);
  const interest = sum(due, (row) => row.interestDue.minus(row.interestPaid)).plus(currentInterest);
  const overduePrincipal = sum(due, (row) => row.principalDue.minus(row.principalPaid));
  const principalAhead = sum(ahead, (row) => row.principalDue.minus(row.principalPaid));
  const dues = penalties.plus(insurance).plus(interest).plus(overduePrincipal);
  return {
    asOf,
    due,
    current,
    later: ahead.slice(1),
    penalties,
    insurance,
    interest,
    overduePrincipal,
    principalAhead,
    dues,
  };
}

/** A product's early-repayment fee: a rate of the principal prepaid, at least a fixed minimum (both 0 by default). */
export interface PrepaymentFeeTerms {
  rate: Money;
  minimum: Money;
}

/**
 * The fee on `principal` repaid ahead: rate × principal, half-up to the franc, at least the minimum; none on nothing.
 */
function prepaymentFee(principal: Money, fee: PrepaymentFeeTerms): Money {
  if (principal.isZero()) return zero;
  return Money.max(toFranc(principal.mul(fee.rate)), fee.minimum);
}

export interface PayoffQuote {
  principal: Money;
  interest: Money;
  penalties: Money;
  /** Insurance parts in arrears; those not yet due are not owed: the cover ends with the debt (§14.6). */
  insurance: Money;
  fee: Money;
  total: Money;
}

/**
 * What settles the loan at the position's date: every due (insurance in arrears included), all the principal, and the
 * fee on the principal not yet due.
 */
export function payoffQuote(position: EarlyRepaymentPosition, fee: PrepaymentFeeTerms): PayoffQuote {
  const principal = position.overduePrincipal.plus(position.principalAhead);
  const charged = prepaymentFee(position.principalAhead, fee);
  const total = position.dues.plus(position.principalAhead).plus(charged);
  return {
    principal,
    interest: position.interest,
    penalties: position.penalties,
    insurance: position.insurance,
    fee: charged,
    total,
  };
}

export type PrepaymentSplit =
  { ok: true; principal: Money; fee: Money } | { ok: false; reason: 'below_dues' | 'use_payoff' };

/**
 * What a partial prepayment of `amount` pays beyond the dues: principal p and its fee, p + fee(p) = the rest. The fee
 * is rate / (1 + rate) of the rest, half-up (so rate × p to the franc), at least the minimum. Refused when nothing is
 * left for the principal, and when the amount would settle the loan (a payoff).
 */
export function splitPrepayment(
  position: EarlyRepaymentPosition,
  amount: Money,
  fee: PrepaymentFeeTerms,
): PrepaymentSplit {
  if (amount.gte(payoffQuote(position, fee).total)) return { ok: false, reason: 'use_payoff' };
  const rest = amount.minus(position.dues);
  if (rest.lte(0)) return { ok: false, reason: 'below_dues' };
  const charged = Money.max(toFranc(rest.mul(fee.rate).div(fee.rate.plus(1))), fee.minimum);
  const principal = rest.minus(charged);
  if (principal.lte(0)) return { ok: false, reason: 'below_dues' };
  if (principal.gte(position.principalAhead)) return { ok: false, reason: 'use_payoff' };
  return { ok: true, principal, fee: charged };
}

export interface SeriesInput {
  strategy: PrepaymentStrategy;
  method: ScheduleMethod;
  frequency: Frequency;
  annualRate: Money;
  /** The principal left after the prepayment. */
  outstanding: Money;
  /** The payment date: the first installment's interest runs from it. */
  from: IsoDate;
  /** The due dates not yet reached, in order: the new series falls on them (the first ones, under reduce_term). */
  dueDates: readonly IsoDate[];
  /** reduce_term: the installment kept (annuity: its total; constant principal: its principal). */
  level: Money;
}

/**
 * The installments replacing those not yet due. The first one's interest runs from the payment date to its due date
 * (30/360); the others' over a whole period. reduce_installment keeps the due dates and levels the installment anew
 * over them; reduce_term keeps the installment and stops when the principal is repaid, the last one carrying the
 * rest to the franc.
 */
export function prepaymentSeries(
  input: SeriesInput,
): Pick<Installment, 'dueDate' | 'principal' | 'interest' | 'total'>[] {
  const periodRate = input.annualRate.div(periodsPerYear[input.frequency]);
  const count = input.dueDates.length;
  const annuity = input.method === 'constant_annuity';
  const level =
    input.strategy === 'reduce_term'
      ? input.level
      : toFranc(annuity ? annuityPayment(input.outstanding, periodRate, count) : input.outstanding.div(count));
  const series: Pick<Installment, 'dueDate' | 'principal' | 'interest' | 'total'>[] = [];
  let outstanding = input.outstanding;
  for (const [index, dueDate] of input.dueDates.entries()) {
    const interest =
      index === 0
        ? toFranc(
            outstanding
              .mul(input.annualRate)
              .mul(Math.max(0, days30E360Between(input.from, dueDate)))
              .div(360),
          )
        : toFranc(outstanding.mul(periodRate));
    const wanted = annuity ? level.minus(interest) : level;
    const last = index === count - 1 || wanted.gte(outstanding);
    const principal = last ? outstanding : Money.max(0, wanted);
    outstanding = outstanding.minus(principal);
    series.push({ dueDate, principal, interest, total: principal.plus(interest) });
    if (last) break;
  }
  return series;
}

/** The installment reduce_term keeps: the first not yet due that amortises (a grace installment pays interest only). */
export function keptLevel(ahead: readonly InstallmentState[], method: ScheduleMethod): Money {
  const amortising = ahead.find((row) => row.principalDue.gt(0)) ?? ahead[ahead.length - 1]!;
  return method === 'constant_annuity' ? amortising.principalDue.plus(amortising.interestDue) : amortising.principalDue;
}

/**
 * The spread insurance premium a prepayment carries to the new series (docs/domain.md §14.6): what is unpaid of the
 * current installment's part and the later ones'. The loan and its cover go on, so none of it is waived. The new
 * installments fall on the same due dates: each keeps the part of its date, and under reduce_term, whose series is
 * shorter, the last one takes the rest, so the parts still sum to the premium still to come.
 */
export function carriedInsurance(ahead: readonly InstallmentState[], count: number): Money[] {
  const parts = ahead.map(unpaidInsurance);
  const kept = parts.slice(0, count - 1);
  const rest = sum(ahead, unpaidInsurance).minus(kept.reduce((total, part) => total.plus(part), zero));
  return [...kept, rest];
}
