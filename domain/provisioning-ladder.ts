import type { FieldError } from './errors';

/** One step of the provisioning ladder: loans this many days past due are provisioned at `rate` (0 to 1). */
export interface LadderStep {
  days_from: number;
  /** Inclusive; null for the last, open-ended step. */
  days_to: number | null;
  /** Decimal string, e.g. "0.25". */
  rate: string;
}

/** The policy default (docs/domain.md §4): 0-45 days 0 %, 46-90 25 %, 91-180 50 %, 181-365 75 %, beyond 100 %. */
export const defaultProvisioningLadder: readonly LadderStep[] = [
  { days_from: 0, days_to: 45, rate: '0' },
  { days_from: 46, days_to: 90, rate: '0.25' },
  { days_from: 91, days_to: 180, rate: '0.5' },
  { days_from: 181, days_to: 365, rate: '0.75' },
  { days_from: 366, days_to: null, rate: '1' },
];

/** The step of the ladder holding an age in days (every age has one in a valid ladder). */
export function ladderStepOf(ladder: readonly LadderStep[], ageDays: number): LadderStep {
  const step = ladder.find(
    (candidate) => ageDays >= candidate.days_from && (candidate.days_to === null || ageDays <= candidate.days_to),
  );
  if (step === undefined) throw new Error(`the ladder has no step for ${ageDays} days`);
  return step;
}

const ratePattern = /^(0(\.\d{1,4})?|1(\.0{1,4})?)$/;

/**
 * A ladder must cover every age from day 0 without gap or overlap, end open-ended, and never lower the rate
 * as loans age. Returns the problems, each on its step.
 */
export function ladderProblems(ladder: readonly LadderStep[], field = 'provisioning_ladder'): FieldError[] {
  if (ladder.length === 0) return [{ field, message: `${field} needs at least one step` }];
  const problems: FieldError[] = [];
  ladder.forEach((step, index) => {
    const at = `${field}[${index}]`;
    const expectedFrom = index === 0 ? 0 : (ladder[index - 1]!.days_to ?? Number.NaN) + 1;
    if (step.days_from !== expectedFrom)
      problems.push({
        field: `${at}.days_from`,
        message: `must be ${expectedFrom} (steps follow each other from day 0)`,
      });
    const last = index === ladder.length - 1;
    if (last !== (step.days_to === null))
      problems.push({
        field: `${at}.days_to`,
        message: last ? 'the last step must be open-ended (null)' : 'only the last step may be open-ended',
      });
    if (step.days_to !== null && step.days_to < step.days_from)
      problems.push({ field: `${at}.days_to`, message: 'must not be before days_from' });
    if (!ratePattern.test(step.rate))
      problems.push({ field: `${at}.rate`, message: 'must be a decimal from 0 to 1 with at most 4 decimals' });
    else if (
      index > 0 &&
      ratePattern.test(ladder[index - 1]!.rate) &&
      Number(step.rate) < Number(ladder[index - 1]!.rate)
    ) {
      problems.push({ field: `${at}.rate`, message: 'must not be lower than the previous step' });
    }
  });
  return problems;
}
