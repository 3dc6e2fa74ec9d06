import { AppError } from '../errors';
import { Money } from '../money';

/**
 * The usury rate (docs/domain.md §14.6): a loan whose TEG exceeds the rate in force at its date is refused. Pure: the
 * activity reads the rate in force and passes it here with the TEG it computed.
 */
export interface UsuryRateInForce {
  /** Percent with two decimals, as the TEG. */
  rate: string;
  effectiveFrom: string;
  sourceReference: string;
}

/** 422 naming `teg` when the TEG (percent) exceeds the rate; equal to it is allowed. No rate in force: no check. */
export function assertTegWithinUsury(teg: string, usury: UsuryRateInForce | undefined, what: string): void {
  if (usury === undefined || new Money(teg).lte(usury.rate)) return;
  const message =
    `the TEG of ${what}, ${teg} %, exceeds the usury rate of ${new Money(usury.rate).toFixed(2)} % in ` +
    `force since ${usury.effectiveFrom} (${usury.sourceReference})`;
  throw new AppError('unprocessable', 'teg_above_usury_rate', `${message[0]!.toUpperCase()}${message.slice(1)}.`, [
    { field: 'teg', message },
  ]);
}
