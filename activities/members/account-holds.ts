import type { Knex } from 'knex';
import { AppError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';

/*
 * The amounts pledged deposits hold on members' accounts (the guarantee_holds view, docs/domain.md §4): no debit a
 * member asks for takes an account below its product's minimum balance plus them.
 */

/** What pledged deposits hold on an account now (coopbank_held_amount: the rule the debits apply). */
export async function heldAmount(db: Knex | Knex.Transaction, accountId: string): Promise<Money> {
  const { rows } = (await db.raw('SELECT coopbank_held_amount(?)::text AS held', [accountId])) as {
    rows: { held: string }[];
  };
  return new Money(rows[0]!.held);
}

/** The held amounts of several accounts at once (their representations), zero for an account without holds. */
export async function heldAmounts(
  db: Knex | Knex.Transaction,
  accountIds: readonly string[],
): Promise<Map<string, Money>> {
  const rows: { compte_client_id: string; held: string }[] =
    accountIds.length === 0
      ? []
      : await db('guarantee_holds')
          .whereIn('compte_client_id', accountIds)
          .groupBy('compte_client_id')
          .select('compte_client_id', db.raw('sum(value)::text AS held'));
  return new Map(rows.map((row) => [row.compte_client_id, new Money(row.held)]));
}

/** An account a pledged deposit holds money on is neither closed nor closed early: the hold would be left unbacked. */
export async function assertNotPledged(trx: Knex.Transaction, account: { id: string; number: string }): Promise<void> {
  const held = await heldAmount(trx, account.id);
  if (!held.isZero()) {
    const message =
      `${formatAmount(held)} XAF of account ${account.number} are held as pledged deposits: it is closed once ` +
      `they are released or their loans repaid.`;
    throw new AppError('conflict', 'account_pledged', message, [{ field: 'id', message }]);
  }
}
