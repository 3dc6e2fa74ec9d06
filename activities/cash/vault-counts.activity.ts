import { countTotal, differenceLines, fullCount, type CashCount } from '../../domain/cash/till-counts';
import { vaultAccount } from '../../domain/cash/tills';
import { AppError, NotFoundError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import { isUniqueViolation } from '../../db/errors';
import { Till } from '../../db/models/till.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { postJournalEntry } from '../events/post-entry';
import { tillBalance } from './tills.queries';

/**
 * The branch head's count of the vault (billetage) for the business date (issue 29, docs/domain.md §13.2): its
 * difference with the vault's book balance is posted as a till's is (a shortage debit 4631 credit 5710, an excess
 * debit 5710 credit 4632), then settled the same way. One count per branch and business date.
 */
export async function recordVaultCount(
  context: ActivityContext,
  actor: Actor,
  branch: { enterpriseId: string; branchId: string },
  count: CashCount,
): Promise<string> {
  const { enterpriseId, branchId } = branch;
  try {
    return await inTransaction(context.knex, async (trx) => {
      // The vault's row locked: a transfer's request, which reads its balance, waits for the count.
      const vault = await Till.query(trx)
        .findOne({ enterprise_id: enterpriseId, branch_id: branchId, kind: 'vault' })
        .forUpdate();
      if (vault === undefined) throw new NotFoundError('The branch');
      const businessDate = await businessDateOf(trx, vault.enterpriseId, context.clock());
      const total = countTotal(count);
      const bookBalance = new Money(await tillBalance(trx, vault.id));
      const lines = differenceLines(vaultAccount, total.minus(bookBalance));
      const description = `${total.lt(bookBalance) ? 'Manquant' : 'Excédent'} au comptage du coffre`;
      const draft = {
        enterpriseId: vault.enterpriseId,
        branchId,
        entryDate: businessDate,
        lines,
        journal: 'CAI' as const,
        createdBy: actor.userId,
        description,
      };
      const entryId = lines.length === 0 ? null : await postJournalEntry(trx, draft);
      const [row] = await trx('vault_counts')
        .insert({
          enterprise_id: vault.enterpriseId,
          branch_id: branchId,
          business_date: businessDate,
          count: JSON.stringify(fullCount(count)),
          total: formatAmount(total),
          book_balance: formatAmount(bookBalance),
          entry_id: entryId,
          counted_by: actor.userId,
        })
        .returning('id');
      await recordAudit(trx, actor, {
        action: 'vault_count.record',
        entityType: 'vault_count',
        entityId: row.id,
        enterpriseId: vault.enterpriseId,
        details: {
          business_date: businessDate,
          counted: formatAmount(total),
          book_balance: formatAmount(bookBalance),
          entry: entryId,
        },
      });
      return row.id as string;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'vault_counts_one_a_day'))
      throw new AppError(
        'conflict',
        'vault_counted',
        'The vault of the branch is counted for the business date already.',
      );
    throw error;
  }
}
