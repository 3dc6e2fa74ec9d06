import type { IsoDate } from '../calendar';
import { Money } from '../money';
import { yearsSince } from './provisioning';

/**
 * Write-off and recovery (docs/domain.md §14.3). Pure.
 *
 * COBAC R-2017/07 Art. 10: a doubtful claim provisioned for more than 3 years is irrecoverable and goes to
 * losses. The product counts the years from the downgrade (`doubtful_since`), as the provisioning minimum does.
 */
const irrecoverableAfterYears = 3;

/** A doubtful loan, doubtful since `doubtfulSince`, is due for write-off at `asOf`. */
export const dueForWriteOff = (doubtfulSince: IsoDate, asOf: IsoDate): boolean =>
  doubtfulSince <= asOf && yearsSince(doubtfulSince, asOf) >= irrecoverableAfterYears;

/** What a written-off loan finally cost: the amount written off less what was recovered since (never below zero). */
export const netLoss = (writtenOff: Money, recovered: Money): Money =>
  Money.max(writtenOff.minus(recovered), new Money(0));
