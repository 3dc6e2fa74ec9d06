import type { Role } from '../access';
import { addDaysTo, parseIsoDate, type IsoDate } from '../calendar';
import { AppError } from '../errors';
import { Money } from '../money';
import { approvalSteps, type ApprovalStep } from './approval';
import type { LoanClass } from './classification';
import {
  buildSchedule,
  dueDates,
  periodsPerYear,
  type Frequency,
  type Installment,
  type ScheduleMethod,
} from './schedule';
import { spreadPremium } from './simulation';
import { effectiveGlobalRate } from './teg';

/**
 * Restructuring a loan (COBAC R-2017/07 Arts. 11–14, docs/domain.md §14.2). Pure: who may approve it, its new
 * schedule and TEG, the payment Art. 14 requires, and the class a restructured loan keeps meanwhile.
 */

/**
 * Art. 13: the decision belongs to a body hierarchically above the one that granted the loan. Every step above the
 * granting step may decide; a loan granted by the top step (direction, the board's delegate) stays with it.
 */
export function approversAbove(grantedBy: ApprovalStep): Role[] {
  const above = approvalSteps.slice(approvalSteps.indexOf(grantedBy) + 1);
  return above.length === 0 ? ['direction'] : [...above];
}

/**
 * What capitalising the arrears takes: all of them, or their interest only (penalties and insurance parts with it), the
 * principal kept due.
 */
export const capitalisedArrearsParts = ['all', 'interest'] as const;
export type CapitalisedArrears = (typeof capitalisedArrearsParts)[number];

export interface RestructuringTerms {
  termPeriods: number;
  /** Nominal annual rate as a decimal (0.18). */
  annualRate: Money;
  gracePeriods: number;
}

/** [policy] The rate's bound when no usury rate is configured: a decimal below 1 (100 %). */
const maxAnnualRate = new Money(1);

/** The new terms within the product's term and grace bounds, the rate from 0 to below 100 %; 422 naming the field. */
export function assertRestructuringTerms(
  terms: RestructuringTerms,
  product: { code: string; minTermPeriods: number; maxTermPeriods: number; maxGracePeriods: number },
): void {
  const outOfBounds = (field: 'term_periods' | 'grace_periods' | 'annual_rate', message: string) =>
    new AppError('unprocessable', `${field}_out_of_bounds`, message, [{ field, message }]);
  if (terms.termPeriods < 1 || terms.termPeriods > product.maxTermPeriods) {
    throw outOfBounds(
      'term_periods',
      `term_periods must be from 1 to ${product.maxTermPeriods} for product ${product.code}`,
    );
  }
  if (terms.gracePeriods > product.maxGracePeriods || terms.gracePeriods >= terms.termPeriods) {
    throw outOfBounds(
      'grace_periods',
      `grace_periods must be at most ${Math.min(product.maxGracePeriods, terms.termPeriods - 1)} for product ` +
        `${product.code}`,
    );
  }
  if (terms.annualRate.isNegative() || terms.annualRate.gte(maxAnnualRate))
    throw outOfBounds('annual_rate', 'annual_rate must be a decimal from 0 to below 1');
}

export interface NewSchedule {
  installments: Pick<Installment, 'dueDate' | 'principal' | 'interest' | 'total'>[];
  /** Each installment's part of the spread insurance premium carried over (§14.6). */
  insurance: Money[];
  teg: string;
}

/**
 * The new series from the restructuring date: the principal restructured (what is still to fall due, plus the
 * principal of the arrears capitalised) over the new term at the new rate, the first installment one period
 * after the date. The capitalised interest and penalties stay interest (income when collected, Art. 15-d): they
 * are spread evenly over the new installments, the remainder on the first, so no entry is needed. A spread
 * insurance premium carried over is spread as at the grant (the remainder on the last) and counts in the TEG.
 */
export function restructuredSchedule(
  input: RestructuringTerms & {
    principal: Money;
    capitalisedInterest: Money;
    insurance: Money;
    method: ScheduleMethod;
    frequency: Frequency;
    effectiveOn: IsoDate;
  },
): NewSchedule {
  const firstDueDate = dueDates(input.effectiveOn, input.frequency, 2)[1]!;
  const schedule = buildSchedule({
    method: input.method,
    principal: input.principal,
    annualRate: input.annualRate,
    termPeriods: input.termPeriods,
    frequency: input.frequency,
    firstDueDate,
    principalGracePeriods: input.gracePeriods,
  });
  const share = input.capitalisedInterest.divToInt(input.termPeriods);
  const remainder = input.capitalisedInterest.minus(share.mul(input.termPeriods));
  const installments = schedule.installments.map((installment, index) => {
    const interest = installment.interest.plus(share).plus(index === 0 ? remainder : 0);
    return {
      dueDate: installment.dueDate,
      principal: installment.principal,
      interest,
      total: installment.principal.plus(interest),
    };
  });
  const insurance = spreadPremium(input.insurance, installments.length);
  const totals = installments.map((installment, index) => installment.total.plus(insurance[index]!));
  const teg = effectiveGlobalRate({
    principal: input.principal,
    fees: new Money(0),
    installments: totals,
    periodsPerYear: periodsPerYear[input.frequency],
  });
  return { installments, insurance, teg };
}

/** Art. 14: the share of the restructured amount the borrower must pay to return to performing at once. */
const requiredShare = new Money('0.20');

/**
 * Art. 14: the larger of 20 % of the restructured amount (half-up to the franc) and the interest the arrears included.
 */
export function requiredPayment(restructuredAmount: Money, interestIncluded: Money): Money {
  return Money.max(restructuredAmount.mul(requiredShare).toDecimalPlaces(0, Money.ROUND_HALF_UP), interestIncluded);
}

/** Art. 14: the transition during which a restructured loan keeps its class, from its first new installment. */
export const transitionDays = 90;

/**
 * [NOT FOUND: configuration] What a second or later restructuring does to the class, the enterprise's setting
 * (`enterprise_configurations.second_restructuring_rule`): `doubtful` (the default) classes the loan doubtful from its
 * date whatever it was, leaving only by the Art. 14 payment; `as_first` applies Art. 14 as to the first.
 */
export const secondRestructuringRules = ['doubtful', 'as_first'] as const;
export type SecondRestructuringRule = (typeof secondRestructuringRules)[number];
export const defaultSecondRestructuringRule: SecondRestructuringRule = 'doubtful';

/** What the provisioning run knows of a loan's latest restructuring at its date. */
export interface RestructuringState {
  /** 1 for the first restructuring of the loan. */
  count: number;
  classBefore: LoanClass;
  firstDueDate: IsoDate;
  required: Money;
  /** What the borrower paid on the loan from the restructuring to the date. */
  paidSince: Money;
  /** An installment of the new series went unpaid past its due date within the transition, by the date. */
  missedInTransition: boolean;
}

export interface RestructuringHold {
  /** The class the loan may not go below (null: the restructuring no longer constrains it). */
  floor: LoanClass | null;
  /** Art. 14: a doubtful loan that missed an installment of the transition is fully provisioned. */
  fullProvision: boolean;
  /** Art. 14: the provisions made before are reversed only at the end of the transition. */
  keepProvision: boolean;
}

const free: RestructuringHold = { floor: null, fullProvision: false, keepProvision: false };

/**
 * The class a restructured loan keeps at `asOf` (Art. 14). Paid the required amount: the usual rules apply. Else a
 * loan restructured while overdue or doubtful keeps that class for 90 days from its first new installment, then
 * leaves it if nothing went unpaid in them; an installment missed meanwhile keeps it there (a doubtful one fully
 * provisioned) until the payment is made. A performing loan restructured is not held (first restructuring).
 */
export function restructuringHold(
  state: RestructuringState,
  asOf: IsoDate,
  secondRule: SecondRestructuringRule,
): RestructuringHold {
  if (state.paidSince.gte(state.required)) return free;
  if (state.count > 1 && secondRule === 'doubtful')
    return { floor: 'doubtful', fullProvision: false, keepProvision: true };
  if (state.classBefore === 'performing') return free;
  if (state.missedInTransition)
    return { floor: state.classBefore, fullProvision: state.classBefore === 'doubtful', keepProvision: true };
  if (asOf < transitionEnd(state.firstDueDate))
    return { floor: state.classBefore, fullProvision: false, keepProvision: true };
  return free;
}

/** The last day of the transition's 90 days, the first new installment's due date being the first. */
const transitionEnd = (firstDueDate: IsoDate): IsoDate => addDaysTo(parseIsoDate(firstDueDate), transitionDays);
