import type { Knex } from 'knex';
import { AppError, ValidationError } from '../../domain/errors';
import {
  loanTermsOf,
  withheldAtDisbursement,
  productInsurance,
  loanFees,
  type LoanProductRules,
} from '../../domain/loans/loan-product';
import { simulateLoan } from '../../domain/loans/simulation';
import { assertTegWithinUsury, type UsuryRateInForce } from '../../domain/loans/usury';
import { Money } from '../../domain/money';
import { isUniqueViolation } from '../../db/errors';
import { UsuryRate } from '../../db/models/usury-rate.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';

/**
 * The usury rate in force at a date: the latest set from that date or before; undefined when none (docs/domain.md
 * §14.6).
 */
async function usuryRateAt(
  knex: Knex | Knex.Transaction,
  enterpriseId: string,
  date: string,
): Promise<UsuryRateInForce | undefined> {
  const row: { rate: string; effective_from: string; source_reference: string } | undefined = await knex('usury_rates')
    .where({ enterprise_id: enterpriseId })
    .where('effective_from', '<=', date)
    .orderBy('effective_from', 'desc')
    .first('rate', knex.raw(`to_char(effective_from, 'YYYY-MM-DD') AS effective_from`), 'source_reference');
  return row === undefined
    ? undefined
    : { rate: row.rate, effectiveFrom: row.effective_from, sourceReference: row.source_reference };
}

/** An application's TEG against the usury rate in force at its date. */
export async function assertApplicationWithinUsury(
  trx: Knex.Transaction,
  enterpriseId: string,
  date: string,
  teg: string,
): Promise<void> {
  assertTegWithinUsury(teg, await usuryRateAt(trx, enterpriseId, date), 'this loan');
}

/**
 * A product's TEG against the usury rate in force at the business date, on its dearest loan: its minimum amount over
 * its minimum term, no grace. Fixed charges weigh most on the smallest, shortest loan, so no loan the product allows
 * has a higher TEG of its fees and insurance (docs/domain.md §14.6). Nothing is simulated while no rate is in force.
 */
export async function assertProductWithinUsury(
  trx: Knex.Transaction,
  now: Date,
  enterpriseId: string,
  product: LoanProductRules,
): Promise<void> {
  const date = await businessDateOf(trx, enterpriseId, now);
  const usury = await usuryRateAt(trx, enterpriseId, date);
  if (usury === undefined) return;
  const requested = { amount: new Money(product.minAmount), termPeriods: product.minTermPeriods, gracePeriods: 0 };
  const withheld = withheldAtDisbursement(
    loanFees(requested.amount, new Money(product.feeRate), new Money(product.feeFixed)),
    productInsurance(product, requested.amount),
  );
  if (withheld.gte(requested.amount)) {
    throw new ValidationError([
      {
        field: 'min_amount',
        message:
          'min_amount must exceed the fees and insurance withheld from it: its TEG is checked against the usury rate',
      },
    ]);
  }
  const { teg } = simulateLoan(loanTermsOf(product, requested, date));
  assertTegWithinUsury(
    teg,
    usury,
    `product ${product.code}'s dearest loan (${product.minAmount} XAF over ${product.minTermPeriods} periods)`,
  );
}

export interface UsuryRateInput {
  enterpriseId: string;
  /** Percent with two decimals, as the TEG. */
  rate: string;
  effectiveFrom: string;
  sourceReference: string;
}

/**
 * Records a usury rate from a date (append-only); one per enterprise and date. Under four eyes (`usury_rate.change`).
 */
export async function setUsuryRate(context: DataContext, actor: Actor, input: UsuryRateInput): Promise<UsuryRate> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      const row = await UsuryRate.query(trx).insertAndFetch({
        enterpriseId: input.enterpriseId,
        rate: input.rate,
        effectiveFrom: input.effectiveFrom,
        sourceReference: input.sourceReference,
        createdBy: actor.userId,
      });
      await recordAudit(trx, actor, {
        action: 'usury_rate.create',
        entityType: 'usury_rate',
        entityId: row.id,
        enterpriseId: input.enterpriseId,
        details: { ...input },
      });
      return row;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'usury_rates_effective_unique')) {
      throw new AppError(
        'conflict',
        'usury_rate_exists',
        `The enterprise has a usury rate from ${input.effectiveFrom} already: set the next one from a later date.`,
      );
    }
    throw error;
  }
}
