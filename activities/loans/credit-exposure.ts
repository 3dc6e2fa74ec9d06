import type { Knex } from 'knex';
import {
  breachRow,
  checkCreditCaps,
  type CreditCapBreachRow,
  type CreditCapMode,
} from '../../domain/loans/credit-caps';
import { AppError } from '../../domain/errors';
import { Money, toFrancs } from '../../domain/money';
import { paidUpCapital } from '../shares/capital';

/**
 * The figures COBAC R-2017/08 caps compare, read in the caller's transaction: the client's credit already
 * granted (awaiting disbursement or outstanding) and the paid-up share capital of the register.
 */
async function clientOutstanding(trx: Knex.Transaction, clientId: string): Promise<Money> {
  const row = await trx('loans')
    .where({ client_id: clientId })
    .whereIn('status', ['awaiting_disbursement', 'active'])
    .first(trx.raw('COALESCE(SUM(outstanding_principal), 0) AS total'));
  return new Money(row.total as string);
}

/**
 * Checks the caps for `requested` more credit to a client. In enforce mode a breach refuses (409 with the
 * cap's code); in warn mode the breaches are returned, to be stored with the application and shown.
 */
export async function assertCreditCaps(
  trx: Knex.Transaction,
  input: { enterpriseId: string; clientId: string; relatedParty: boolean; requested: Money; mode: CreditCapMode },
): Promise<CreditCapBreachRow[]> {
  const result = checkCreditCaps({
    requested: input.requested,
    existingOutstanding: await clientOutstanding(trx, input.clientId),
    paidUpCapital: await paidUpCapital(trx, input.enterpriseId),
    relatedParty: input.relatedParty,
    mode: input.mode,
  });
  if (!result.allowed) {
    const breach = result.breaches[0]!;
    throw new AppError(
      'conflict',
      breach.code,
      `The member's credit would reach ${toFrancs(breach.total, Money.ROUND_HALF_UP)} XAF, ` +
        `above the limit of ${toFrancs(breach.limit, Money.ROUND_HALF_UP)} XAF (COBAC R-2017/08).`,
    );
  }
  return result.breaches.map(breachRow);
}
