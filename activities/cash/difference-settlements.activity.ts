import type { Knex } from 'knex';
import {
  differenceOf,
  modeAllowed,
  settlementAccount,
  settlementLines,
  type SettlementMode,
} from '../../domain/cash/settlements';
import { AppError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import { isUniqueViolation } from '../../db/errors';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { postJournalEntry } from '../events/post-entry';

/** A settlement as the branch head asks it, and as the four-eyes request carries it (JSON). */
export interface SettlementInput {
  enterpriseId: string;
  /** The difference's entry: a till session's opening or closing one, or a vault count's. */
  differenceEntryId: string;
  mode: SettlementMode;
  /** A shortage written off: the expense account; null: the default, 6798. */
  expenseAccount: string | null;
}

const unknownDifference = () =>
  new AppError(
    'unprocessable',
    'cash_difference_unknown',
    'The entry is no difference of a till session or of a vault count.',
    [
      {
        field: 'difference_entry',
        message: 'difference_entry must be the difference entry of a till session or a vault count',
      },
    ],
  );

/** The difference an entry records, and its branch, when it is a till session's or a vault count's difference entry. */
export async function differenceOfEntry(knex: Knex | Knex.Transaction, enterpriseId: string, entryId: string) {
  const source = await knex('journal_entries as e')
    .where({ 'e.id': entryId, 'e.enterprise_id': enterpriseId })
    .where((of) =>
      of
        .whereExists(knex('till_sessions as s').whereRaw('e.id IN (s.opening_entry_id, s.closing_entry_id)'))
        .orWhereExists(knex('vault_counts as v').whereRaw('v.entry_id = e.id')),
    )
    .first('e.branch_id');
  if (source === undefined) throw unknownDifference();
  const lines = await knex('journal_lines as l')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where('l.entry_id', entryId)
    .select('c.code as account', knex.raw('l.debit::text AS debit'), knex.raw('l.credit::text AS credit'));
  const difference = differenceOf(
    lines.map((line) => ({
      account: line.account as string,
      debit: new Money(line.debit),
      credit: new Money(line.credit),
    })),
  );
  if (difference === null) throw unknownDifference();
  return { branchId: source.branch_id as string, ...difference };
}

/**
 * Settles one cash difference, once (docs/domain.md §13.2): a shortage recovered from the cashier (debit the vault
 * 5710, credit 4631) or written off (debit the expense, 6798 by default, credit 4631); an excess written off (debit
 * 4632, credit 7786) or returned (debit 4632, credit the vault). Runs as the maker, when a second person approves.
 */
export async function settleDifference(
  context: DataContext,
  maker: Actor,
  input: SettlementInput,
): Promise<{ id: string }> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      const difference = await differenceOfEntry(trx, input.enterpriseId, input.differenceEntryId);
      if (!modeAllowed(difference.kind, input.mode)) {
        throw new AppError(
          'unprocessable',
          'cash_settlement_mode_refused',
          `A ${difference.kind} is not ${input.mode}.`,
          [{ field: 'mode', message: `mode does not apply to a ${difference.kind}` }],
        );
      }
      const account = settlementAccount(difference.kind, input.mode, input.expenseAccount);
      const entryId = await postJournalEntry(trx, {
        enterpriseId: input.enterpriseId,
        branchId: difference.branchId,
        entryDate: await businessDateOf(trx, input.enterpriseId, context.clock()),
        journal: 'CAI',
        lines: settlementLines(difference.kind, account, difference.amount),
        createdBy: maker.userId,
        description: `Régularisation ${difference.kind === 'shortage' ? 'manquant' : 'excédent'} de caisse`,
      });
      const [row] = await trx('cash_settlements')
        .insert({
          enterprise_id: input.enterpriseId,
          branch_id: difference.branchId,
          difference_entry_id: input.differenceEntryId,
          kind: difference.kind,
          mode: input.mode,
          amount: formatAmount(difference.amount),
          account_code: account,
          entry_id: entryId,
          settled_by: maker.userId,
        })
        .returning('id');
      await recordAudit(trx, maker, {
        action: 'cash_difference.settle',
        entityType: 'cash_settlement',
        entityId: row.id,
        enterpriseId: input.enterpriseId,
        details: {
          difference_entry: input.differenceEntryId,
          kind: difference.kind,
          mode: input.mode,
          amount: formatAmount(difference.amount),
          account,
          entry: entryId,
        },
      });
      return { id: row.id as string };
    });
  } catch (error) {
    if (isUniqueViolation(error, 'cash_settlements_once'))
      throw new AppError('conflict', 'cash_difference_settled', 'The difference is settled already.');
    throw error;
  }
}
