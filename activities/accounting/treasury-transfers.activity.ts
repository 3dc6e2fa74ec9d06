import type { Knex } from 'knex';
import { assertTransferSides, cashAccount, transferEntryLines, type TransferSide } from '../../domain/accounting/banks';
import type { IsoDate } from '../../domain/calendar';
import { AppError } from '../../domain/errors';
import { Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { cashAccountFor } from '../cash/tills.queries';
import { postJournalEntry } from '../events/post-entry';
import { assertNotAfterBusinessDate } from './supplier-books';

/** A treasury transfer as a four-eyes request carries it: JSON, the amount as whole-franc text. */
export interface TreasuryTransferInput {
  enterpriseId: string;
  branchId: string;
  /** null: the till (5710). */
  fromBankAccountId: string | null;
  toBankAccountId: string | null;
  transferDate: IsoDate;
  amount: string;
  reference: string;
  idempotencyKey?: string | null;
}

/**
 * One side: the till, or an active bank account of the enterprise, of the transfer's branch or of the whole
 * enterprise. The bank account's row is locked (a deactivation waits for the transfer).
 */
async function sideOf(
  trx: Knex.Transaction,
  maker: Actor,
  input: TreasuryTransferInput,
  bankAccountId: string | null,
  field: string,
): Promise<TransferSide> {
  // The till: the maker's in a branch under till control (docs/domain.md §13.1).
  if (bankAccountId === null)
    return { bankAccountId: null, account: await cashAccountFor(trx, input.branchId, maker.userId, cashAccount) };
  const row = await trx('bank_accounts')
    .where({ id: bankAccountId, enterprise_id: input.enterpriseId })
    .forUpdate()
    .first('account_code', 'branch_id', 'is_active');
  if (row === undefined || (row.branch_id !== null && row.branch_id !== input.branchId)) {
    throw new AppError(
      'unprocessable',
      'bank_account_unknown',
      `${field} is not a bank account of the enterprise or of the branch.`,
      [{ field, message: `${field} is not a bank account of the branch` }],
    );
  }
  if (!row.is_active)
    throw new AppError('unprocessable', 'bank_account_inactive', `${field} is deactivated.`, [
      { field, message: `${field} is deactivated` },
    ]);
  return { bankAccountId, account: row.account_code as string };
}

/**
 * Moves money between the till and a bank, or two banks, on the transfer's date: the receiving account debited,
 * the giving one credited, journal BQ (docs/domain.md §12.6). The executor of `treasury.transfer`.
 */
export async function recordTreasuryTransfer(
  context: DataContext,
  maker: Actor,
  input: TreasuryTransferInput,
): Promise<{ id: string }> {
  return inTransaction(context.knex, async (trx) => {
    assertTransferSides(input.fromBankAccountId, input.toBankAccountId);
    const from = await sideOf(trx, maker, input, input.fromBankAccountId, 'from_bank_account');
    const to = await sideOf(trx, maker, input, input.toBankAccountId, 'to_bank_account');
    await assertNotAfterBusinessDate(trx, input.enterpriseId, context.clock(), input.transferDate, 'transfer_date');
    const entryId = await postJournalEntry(trx, {
      enterpriseId: input.enterpriseId,
      branchId: input.branchId,
      entryDate: input.transferDate,
      lines: transferEntryLines(from, to, new Money(input.amount)),
      description:
        `Virement ${from.account} → ${to.account}${input.reference === '' ? '' : ` (${input.reference})`}`.slice(
          0,
          500,
        ),
      journal: 'BQ',
      createdBy: maker.userId,
    });
    const [transfer] = await trx('treasury_transfers')
      .insert({
        enterprise_id: input.enterpriseId,
        branch_id: input.branchId,
        from_bank_account_id: from.bankAccountId,
        to_bank_account_id: to.bankAccountId,
        from_account_code: from.account,
        to_account_code: to.account,
        transfer_date: input.transferDate,
        amount: input.amount,
        reference: input.reference,
        entry_id: entryId,
        recorded_by: maker.userId,
        idempotency_key: input.idempotencyKey ?? null,
      })
      .returning('id');
    await recordAudit(trx, maker, {
      action: 'treasury_transfer.record',
      entityType: 'treasury_transfer',
      entityId: transfer.id,
      enterpriseId: input.enterpriseId,
      details: { from: from.account, to: to.account, amount: input.amount, entry: entryId },
    });
    return { id: transfer.id as string };
  });
}
