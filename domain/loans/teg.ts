import { Money } from '../money';

/**
 * TEG, taux effectif global (CEMAC regulation, docs/domain.md §3): the annual rate proportional to the period
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

/**
 * The solver's own arithmetic: 24 significant digits carry the 1e-20 tolerance below with room to spare and
 * cost far less per operation than Money's 40 (a 360-installment loan takes some 3 000 operations a pass).
 */
const Rate = Money.clone({ precision: 24 });

/**
 * Σ total_k / (1+r)^k and its derivative in r, −Σ k·total_k / (1+r)^(k+1), in one pass with a running
 * discount factor instead of n powers.
 */
function presentValue(installments: readonly Money[], periodRate: Money): { value: Money; slope: Money } {
  const factor = new Rate(1).div(new Rate(1).plus(periodRate));
  let discount = new Rate(1);
  let value = new Rate(0);
  let weighted = new Rate(0);
  installments.forEach((total, index) => {
    discount = discount.mul(factor);
    const term = discount.mul(total);
    value = value.plus(term);
    weighted = weighted.plus(term.mul(index + 1));
  });
  return { value, slope: weighted.mul(factor).negated() };
}

// 1e-20 on the period rate is far below the 0.005 % that the two-decimal display can show, even × 52.
const tolerance = new Rate('1e-20');
const maxIterations = 200;

export function effectiveGlobalRate(input: TegInput): string {
  const { principal, fees, installments, periodsPerYear } = input;
  if (!principal.isFinite() || principal.lte(0)) throw new Error('principal must be positive');
  if (!fees.isFinite() || fees.isNegative() || fees.gte(principal))
    throw new Error('fees must be ≥ 0 and below the principal');
  if (installments.length === 0) throw new Error('at least one installment is needed');
  if (installments.some((total) => !total.isFinite() || total.isNegative()))
    throw new Error('installments must be finite amounts ≥ 0');
  if (!Number.isSafeInteger(periodsPerYear) || periodsPerYear < 1)
    throw new Error('periodsPerYear must be an integer ≥ 1');
  const net = new Rate(principal.minus(fees));
  if (presentValue(installments, new Rate(0)).value.lt(net))
    throw new Error('the payments are less than the net amount lent: the rate would be negative');
  // f(r) = PV(r) − net is decreasing and convex for r > −1 (all totals ≥ 0). Newton's method started at
  // r = 0, where f ≥ 0, therefore climbs monotonically to the one root without overshooting it (each
  // tangent lies under the curve), quadratically once close: a handful of passes instead of bisection's ~70.
  let rate = new Rate(0);
  for (let iteration = 0; iteration < maxIterations; iteration += 1) {
    const { value, slope } = presentValue(installments, rate);
    const excess = value.minus(net);
    if (excess.isZero() || slope.isZero()) break;
    const step = excess.div(slope).negated();
    rate = rate.plus(step);
    if (step.abs().lte(tolerance)) break;
  }
  return rate.mul(periodsPerYear).mul(100).toFixed(2, Money.ROUND_HALF_UP);
}
