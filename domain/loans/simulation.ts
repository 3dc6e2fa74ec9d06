import { parseIsoDate, type IsoDate } from '../calendar';
import type { Money } from '../money';
import { loanFees, type LoanTerms } from './loan-product';
import { buildSchedule, dueDates, periodsPerYear, type Schedule } from './schedule';
import { effectiveGlobalRate } from './teg';

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
