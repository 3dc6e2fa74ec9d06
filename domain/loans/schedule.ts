import { addDaysTo, addMonthsClamped, parseIsoDate, type IsoDate } from '../calendar';
import { Money } from '../money';

/**
 * Repayment schedules (docs/architecture.md §3, docs/domain.md §3). Pure: every date comes from the input, every amount
 * is a Money in whole francs. Guards throw plain Errors: they catch programming errors, the API validates
 * what users type before calling here.
 */

export type ScheduleMethod = 'constant_annuity' | 'constant_principal';
export type Frequency = 'monthly' | 'quarterly' | 'weekly';

export const periodsPerYear: Readonly<Record<Frequency, number>> = { monthly: 12, quarterly: 4, weekly: 52 };

export interface ScheduleInput {
  method: ScheduleMethod;
  /** Whole francs, > 0. */
  principal: Money;
  /** Nominal annual rate as a decimal, e.g. 0.18 for 18 %; 0 allowed. */
  annualRate: Money;
  /** Number of installments, grace included. */
  termPeriods: number;
  frequency: Frequency;
  firstDueDate: IsoDate;
  /** Leading installments that pay interest only; the amortisation runs over the remaining periods. */
  principalGracePeriods: number;
}

export interface Installment {
  /** 1-based. */
  number: number;
  dueDate: IsoDate;
  principal: Money;
  interest: Money;
  total: Money;
  outstandingAfter: Money;
}

export interface Schedule {
  /** annualRate / periodsPerYear, unrounded (30/360 for regular periods). */
  periodRate: Money;
  installments: Installment[];
  totalInterest: Money;
}

const toFranc = (amount: Money): Money => amount.toDecimalPlaces(0, Money.ROUND_HALF_UP);

/** A = P·i / (1 − (1+i)^−n), unrounded; P/n when i = 0 (the formula's limit, and no division by zero). */
export function annuityPayment(principal: Money, periodRate: Money, periods: number): Money {
  if (periodRate.isZero()) return principal.div(periods);
  const discount = new Money(1).plus(periodRate).pow(-periods);
  return principal.mul(periodRate).div(new Money(1).minus(discount));
}

export function buildSchedule(input: ScheduleInput): Schedule {
  assertValidInput(input);
  const { method, principal, termPeriods: n, principalGracePeriods: grace } = input;
  const periodRate = input.annualRate.div(periodsPerYear[input.frequency]);
  const amortisingPeriods = n - grace;
  // The level amount is rounded once: every regular installment then shows the same figure, and the drift
  // this causes is absorbed by the last installment.
  const level = toFranc(
    method === 'constant_annuity'
      ? annuityPayment(principal, periodRate, amortisingPeriods)
      : principal.div(amortisingPeriods),
  );
  const dates = dueDates(input.firstDueDate, input.frequency, n);
  const installments: Installment[] = [];
  let outstanding = principal;
  for (let number = 1; number <= n; number += 1) {
    const interest = toFranc(periodRate.mul(outstanding));
    let principalPart: Money;
    if (number <= grace) principalPart = new Money(0);
    else if (number === n)
      principalPart = outstanding; // the rounding remainder: the loan ends at exactly 0
    else {
      const wanted = method === 'constant_annuity' ? level.minus(interest) : level;
      // Only tiny loans (a few francs over many periods) reach these bounds; clamping keeps every balance
      // between 0 and the principal instead of showing a negative repayment or an overpayment.
      principalPart = Money.max(0, Money.min(outstanding, wanted));
    }
    outstanding = outstanding.minus(principalPart);
    installments.push({
      number,
      dueDate: dates[number - 1]!,
      principal: principalPart,
      interest,
      total: principalPart.plus(interest),
      outstandingAfter: outstanding,
    });
  }
  const totalInterest = installments.reduce((sum, installment) => sum.plus(installment.interest), new Money(0));
  return { periodRate, installments, totalInterest };
}

function assertValidInput(input: ScheduleInput): void {
  const { principal, annualRate, termPeriods, principalGracePeriods } = input;
  if (input.method !== 'constant_annuity' && input.method !== 'constant_principal')
    throw new Error(`unknown schedule method ${String(input.method)}`);
  if (!Object.hasOwn(periodsPerYear, input.frequency)) throw new Error(`unknown frequency ${String(input.frequency)}`);
  if (!principal.isFinite() || !principal.isInteger() || principal.lte(0))
    throw new Error(`principal must be a positive whole number of francs, got ${principal.toString()}`);
  if (!annualRate.isFinite() || annualRate.isNegative())
    throw new Error(`annualRate must be a finite decimal ≥ 0, got ${annualRate.toString()}`);
  if (!Number.isSafeInteger(termPeriods) || termPeriods < 1)
    throw new Error(`termPeriods must be an integer ≥ 1, got ${termPeriods}`);
  if (
    !Number.isSafeInteger(principalGracePeriods) ||
    principalGracePeriods < 0 ||
    principalGracePeriods >= termPeriods
  ) {
    throw new Error(`principalGracePeriods must be an integer from 0 to termPeriods − 1, got ${principalGracePeriods}`);
  }
  parseIsoDate(input.firstDueDate);
}

/**
 * Due dates. Monthly and quarterly ones keep the first date's day of month, clamped to shorter months
 * (31 Jan → 29 Feb → 31 Mar): anchoring on the first date, not the previous one, stops a clamped February
 * from pulling every later date to the 28th/29th.
 */
export function dueDates(firstDueDate: IsoDate, frequency: Frequency, count: number): IsoDate[] {
  const first = parseIsoDate(firstDueDate);
  const dates: IsoDate[] = [];
  for (let index = 0; index < count; index += 1) {
    if (frequency === 'weekly') dates.push(addDaysTo(first, 7 * index));
    else dates.push(addMonthsClamped(first, (frequency === 'quarterly' ? 3 : 1) * index));
  }
  return dates;
}
