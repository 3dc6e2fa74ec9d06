import { parseIsoDate, type IsoDate } from '../calendar';
import { Money } from '../money';
import { loanFees, withheldAtDisbursement, type LoanInsurance, type LoanTerms } from './loan-product';
import { buildSchedule, dueDates, periodsPerYear, type Schedule } from './schedule';
import { effectiveGlobalRate } from './teg';

export interface Simulation {
  firstDueDate: IsoDate;
  schedule: Schedule;
  fees: Money;
  /** The credit insurance (a zero premium when the product has none). */
  insurance: LoanInsurance;
  /** Each installment's part of a spread premium, by installment (zeros when it is withheld). */
  insuranceParts: Money[];
  /** Percent, two decimals ("21.47"). */
  teg: string;
}

/**
 * A spread premium's part of each of n installments: the whole francs of premium / n, the remainder on the last
 * (as a schedule's rounding), so the parts sum to the premium exactly and none is negative.
 */
export function spreadPremium(premium: Money, installments: number): Money[] {
  const level = premium.div(installments).toDecimalPlaces(0, Money.ROUND_DOWN);
  return Array.from({ length: installments }, (_, index) =>
    index === installments - 1 ? premium.minus(level.mul(installments - 1)) : level,
  );
}

/** The schedule, the fees withheld at disbursement and the TEG of a loan: simulation, application and loan alike. */
export function simulateLoan(terms: LoanTerms): Simulation {
  parseIsoDate(terms.startDate);
  const firstDueDate = dueDates(terms.startDate, terms.frequency, 2)[1]!;
  const schedule = buildSchedule({
    method: terms.method,
    principal: terms.principal,
    annualRate: terms.annualRate,
    termPeriods: terms.termPeriods,
    frequency: terms.frequency,
    firstDueDate,
    principalGracePeriods: terms.gracePeriods,
  });
  const fees = loanFees(terms.principal, terms.feeRate, terms.feeFixed);
  const insurance = terms.insurance ?? { premium: new Money(0), collection: 'withheld' };
  const count = schedule.installments.length;
  const insuranceParts =
    insurance.collection === 'spread'
      ? spreadPremium(insurance.premium, count)
      : Array.from({ length: count }, () => new Money(0));
  // The CEMAC TEG counts every charge tied to the loan, insurance included (docs/domain.md §3, §14.6).
  const teg = effectiveGlobalRate({
    principal: terms.principal,
    fees: withheldAtDisbursement(fees, insurance),
    installments: schedule.installments.map((installment, index) => installment.total.plus(insuranceParts[index]!)),
    periodsPerYear: periodsPerYear[terms.frequency],
  });
  return { firstDueDate, schedule, fees, insurance, insuranceParts, teg };
}
