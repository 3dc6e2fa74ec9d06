import type { Knex } from 'knex';
import { defaultAllocationPolicy, type AllocationPolicy } from '../../domain/enterprise/result-allocation';
import { NotFoundError } from '../../domain/errors';
import { Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';

/**
 * Each enterprise's percentages and caps of the result's allocation (docs/domain.md §7). An enterprise that never
 * changed them has no row and follows the defaults; the first change writes the row.
 */

export interface PolicyView extends AllocationPolicy {
  enterpriseId: string;
  updatedAt: Date | null;
  updatedBy: string | null;
}

const rateColumns = {
  generalReserveRateMin: 'general_reserve_rate_min',
  trainingReserveRateMin: 'training_reserve_rate_min',
  optionalReservesRateMax: 'optional_reserves_rate_max',
  shareInterestRateMax: 'share_interest_rate_max',
} as const satisfies Record<Exclude<keyof AllocationPolicy, 'absorbPriorLossesFirst'>, string>;

type RateKey = keyof typeof rateColumns;
const rateKeys = Object.keys(rateColumns) as RateKey[];

/** The enterprise's policy; `lock` holds the enterprise's row, so two first changes cannot both insert the policy's. */
async function policyRow(knex: Knex | Knex.Transaction, enterpriseId: string, lock: boolean): Promise<PolicyView> {
  const query = knex('enterprises as e')
    .leftJoin('result_allocation_policies as p', 'p.enterprise_id', 'e.id')
    .where('e.id', enterpriseId)
    .select('e.id as enterprise', 'p.*');
  const found = await (lock ? query.forUpdate('e') : query).first();
  if (found === undefined) throw new NotFoundError('The enterprise');
  const row = found.enterprise_id === null ? undefined : found;
  const defaults = defaultAllocationPolicy();
  const rates = Object.fromEntries(
    rateKeys.map((key) => [key, row === undefined ? defaults[key] : new Money(row[rateColumns[key]])]),
  ) as Record<RateKey, Money>;
  const absorbPriorLossesFirst =
    row === undefined ? defaults.absorbPriorLossesFirst : (row.absorb_prior_losses_first as boolean);
  return {
    ...rates,
    absorbPriorLossesFirst,
    enterpriseId,
    updatedAt: row?.updated_at ?? null,
    updatedBy: row?.updated_by ?? null,
  };
}

/** The policy as its table's columns hold it. */
const columnsOf = (policy: AllocationPolicy) => ({
  ...Object.fromEntries(rateKeys.map((key) => [rateColumns[key], policy[key].toString()])),
  absorb_prior_losses_first: policy.absorbPriorLossesFirst,
});

/** The policy in force for an enterprise. */
export const policyOf = (knex: Knex | Knex.Transaction, enterpriseId: string): Promise<PolicyView> =>
  policyRow(knex, enterpriseId, false);

/** Changes some settings (the others keep their value), audited with the values before and after. */
export async function updateAllocationPolicy(
  context: DataContext,
  actor: Actor,
  enterpriseId: string,
  changes: Partial<AllocationPolicy>,
): Promise<PolicyView> {
  return inTransaction(context.knex, async (trx) => {
    const before = await policyRow(trx, enterpriseId, true);
    const after = {
      ...before,
      ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)),
    };
    await trx('result_allocation_policies')
      .insert({ enterprise_id: enterpriseId, ...columnsOf(after), updated_by: actor.userId })
      .onConflict('enterprise_id')
      .merge();
    const details = { before: columnsOf(before), after: columnsOf(after) };
    await recordAudit(trx, actor, {
      action: 'result_allocation_policy.update',
      entityType: 'result_allocation_policy',
      entityId: enterpriseId,
      enterpriseId,
      details,
    });
    return policyRow(trx, enterpriseId, false);
  });
}
