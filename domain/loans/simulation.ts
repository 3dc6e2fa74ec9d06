import { parseIsoDate, type IsoDate } from '../calendar';
import type { Money } from '../money';
import { loanFees } from './loan-product';
import { buildSchedule, dueDates, periodsPerYear, type Frequency, type Schedule, type ScheduleMethod } from './schedule';
import { effectiveGlobalRate } from './teg';

/** What a schedule, its fees and its TEG depend on: a product's pricing and an application's terms. */
export interface LoanTerms {
  method: ScheduleMethod;
  frequency: Frequency;
  annualRate: Money;
  feeRate: Money;
  feeFixed: Money;
  principal: Money;
  termPeriods: number;
  gracePeriods: number;
  /** Disbursement date (or its expected date): the first installment falls one period later. */
  startDate: IsoDate;
}

export interface Simulation {
  firstDueDate: IsoDate;
  schedule: Schedule;
  fees: Money;
  /** Percent, two decimals ("21.47"). */
  teg: string;
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
  const teg = effectiveGlobalRate({
    principal: terms.principal,
    fees,
    installments: schedule.installments.map((installment) => installment.total),
    periodsPerYear: periodsPerYear[terms.frequency],
  });
  return { firstDueDate, schedule, fees, teg };
}
