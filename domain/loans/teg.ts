import { Money } from '../money';

/**
 * TEG, taux effectif global (CEMAC regulation, domain facts §3): the annual rate proportional to the period
 * rate r that equates the net amount lent with the payments due,
 *   principal − fees = Σ total_k / (1+r)^k,  k = 1..n,
 * by compound discounting, shown as a percentage with two decimals ("21.47"). `installments` are the totals
 * due (principal + interest + any fee spread over the installments); `fees` are those withheld or paid at
 * disbursement. Taxes are excluded by the caller.
 */
export interface TegInput {
  principal: Money;
  fees: Money;
  installments: readonly Money[];
  periodsPerYear: number;
}

/** Σ total_k / (1+r)^k, with a running discount factor instead of n powers. */
function presentValue(installments: readonly Money[], periodRate: Money): Money {
  const factor = new Money(1).div(new Money(1).plus(periodRate));
  let discount = new Money(1);
  let sum = new Money(0);
  for (const total of installments) {
    discount = discount.mul(factor);
    sum = sum.plus(total.mul(discount));
  }
  return sum;
}

// 1e-20 on the period rate is far below the 0.005 % that the two-decimal display can show, even × 52.
const tolerance = new Money('1e-20');
const maxPeriodRate = new Money(1e6);

export function effectiveGlobalRate(input: TegInput): string {
  const { principal, fees, installments, periodsPerYear } = input;
  if (!principal.isFinite() || principal.lte(0)) throw new Error('principal must be positive');
  if (!fees.isFinite() || fees.isNegative() || fees.gte(principal)) throw new Error('fees must be ≥ 0 and below the principal');
  if (installments.length === 0) throw new Error('at least one installment is needed');
  if (installments.some((total) => !total.isFinite() || total.isNegative())) throw new Error('installments must be finite amounts ≥ 0');
  if (!Number.isSafeInteger(periodsPerYear) || periodsPerYear < 1) throw new Error('periodsPerYear must be an integer ≥ 1');
  const net = principal.minus(fees);
  // The present value falls strictly as r rises (all totals ≥ 0, one > 0 since their sum ≥ net > 0), so
  // a sign change brackets exactly one root, and bisection cannot miss it or diverge as Newton can.
  const excess = (rate: Money): Money => presentValue(installments, rate).minus(net);
  const atZero = excess(new Money(0));
  if (atZero.isNegative()) throw new Error('the payments are less than the net amount lent: the rate would be negative');
  let low = new Money(0);
  let high = new Money(1);
  while (excess(high).gt(0)) {
    high = high.mul(2);
    if (high.gt(maxPeriodRate)) throw new Error('the effective rate is beyond any loan (more than 10^6 per period)');
  }
  if (atZero.isZero()) high = low;
  while (high.minus(low).gt(tolerance)) {
    const middle = low.plus(high).div(2);
    if (excess(middle).gt(0)) low = middle;
    else high = middle;
  }
  const periodRate = low.plus(high).div(2);
  return periodRate.mul(periodsPerYear).mul(100).toFixed(2, Money.ROUND_HALF_UP);
}
