import { addDaysTo, daysInMonth, parseIsoDate, type IsoDate } from '../calendar';
import { Money } from '../money';

/**
 * Straight-line depreciation of a fixed asset (docs/domain.md §12.4). The cost is spread evenly over the asset's
 * months of use, counted by days in the month of acquisition (from the acquisition day) and of disposal (to the
 * day before it): prorata temporis. What is depreciated at a date is the cost × months of use ÷ the period, rounded
 * half-up to the franc and never above the cost; a month's charge is the difference of two such figures, so the
 * charges are whole francs and the last month takes the remainder: they sum to the cost exactly. Pure.
 */
export interface DepreciableAsset {
  cost: Money;
  /** The depreciation period, in months (at least 1). */
  months: number;
  acquisitionDate: IsoDate;
}

/** Months of use from the acquisition day to `through` (both included), as a fraction: whole months count 1. */
function monthsOfUse(acquisitionDate: IsoDate, through: IsoDate): Money {
  if (through < acquisitionDate) return new Money(0);
  const start = parseIsoDate(acquisitionDate);
  const end = parseIsoDate(through);
  const sameMonth = start.year === end.year && start.month === end.month;
  const startDays = daysInMonth(start.year, start.month);
  if (sameMonth) return new Money(end.day - start.day + 1).div(startDays);
  const monthsBetween = (end.year - start.year) * 12 + end.month - start.month - 1;
  const first = new Money(startDays - start.day + 1).div(startDays);
  const last = new Money(end.day).div(daysInMonth(end.year, end.month));
  return first.plus(monthsBetween).plus(last);
}

/**
 * What is depreciated of the asset by the end of `through`: cost × months of use ÷ period, to the franc, at most the
 * cost.
 */
export function depreciatedThrough(asset: DepreciableAsset, through: IsoDate): Money {
  const months = monthsOfUse(asset.acquisitionDate, through);
  if (months.gte(asset.months)) return asset.cost;
  return asset.cost.times(months).div(asset.months).toDecimalPlaces(0, Money.ROUND_HALF_UP);
}

/**
 * The last day the asset is used when it leaves on `disposalDate`: the day before (it is not depreciated on the day it
 * goes).
 */
export const lastDayOfUse = (disposalDate: IsoDate): IsoDate => addDaysTo(parseIsoDate(disposalDate), -1);

export interface DepreciationMonth {
  /** `YYYY-MM` */
  period: string;
  /** The month's last day, or the last day of use in the month of disposal. */
  through: IsoDate;
  charge: Money;
  accumulated: Money;
  netBookValue: Money;
}

const monthEnd = (year: number, month: number): IsoDate =>
  `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-` +
  `${String(daysInMonth(year, month)).padStart(2, '0')}`;

/**
 * The asset's schedule month by month, from the month of acquisition until the cost is depreciated, or until
 * its disposal (the month of disposal to the day before it). Months with nothing to charge are left out.
 */
export function depreciationSchedule(
  asset: DepreciableAsset,
  disposalDate: IsoDate | null = null,
): DepreciationMonth[] {
  const months: DepreciationMonth[] = [];
  let { year, month } = parseIsoDate(asset.acquisitionDate);
  let accumulated = new Money(0);
  const stop = disposalDate === null ? null : lastDayOfUse(disposalDate);
  while (accumulated.lt(asset.cost)) {
    const end = monthEnd(year, month);
    const through = stop !== null && stop < end ? stop : end;
    const reached = depreciatedThrough(asset, through);
    const charge = reached.minus(accumulated);
    if (charge.gt(0))
      months.push({
        period: end.slice(0, 7),
        through,
        charge,
        accumulated: reached,
        netBookValue: asset.cost.minus(reached),
      });
    accumulated = reached;
    if (through !== end) break;
    [year, month] = month === 12 ? [year + 1, 1] : [year, month + 1];
  }
  return months;
}
