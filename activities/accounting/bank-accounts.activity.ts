import {
  bankParentAccounts,
  defaultBankParentAccount,
  isBankParentAccount,
  nextSubAccountCode,
} from '../../domain/accounting/banks';
import { AppError, NotFoundError } from '../../domain/errors';
import { isUniqueViolation } from '../../db/errors';
import { BankAccount } from '../../db/models/bank-account.model';
import { inTransaction } from '../../db/transaction';
import { addSubAccount } from '../accounts/chart-entries.activity';
import { changedValues, recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { assertBranchOf } from './suppliers.activity';

export interface BankAccountFields {
  bankName: string;
  accountNumber: string;
  bankBranch: string | null;
}

export interface BankAccountChanges extends Partial<BankAccountFields> {
  isActive?: boolean;
}

const numberTaken = (accountNumber: string | undefined) =>
  new AppError(
    'conflict',
    'bank_account_number_taken',
    `Another bank account of the enterprise has the number ${accountNumber ?? ''}.`,
    [{ field: 'account_number', message: 'account_number is taken' }],
  );

const parentRefused = (code: string) =>
  new AppError(
    'unprocessable',
    'bank_parent_account_refused',
    `parent_account ${code} is not a leaf of 560 (comptes à vue nostri): one of ${bankParentAccounts.join(', ')}.`,
    [{ field: 'parent_account', message: `parent_account must be one of ${bankParentAccounts.join(', ')}` }],
  );

/**
 * Registers a bank account and opens its treasury account, the next free sub-account of the 560 leaf named
 * (5603 by default; docs/domain.md §12.6), in one transaction. The parent is locked while the code is chosen, so
 * two accounts opened at once take two codes.
 */
export async function createBankAccount(
  context: ActivityContext,
  actor: Actor,
  input: BankAccountFields & { enterpriseId: string; branchId: string | null; parentAccount: string | null },
): Promise<BankAccount> {
  const parentCode = input.parentAccount ?? defaultBankParentAccount;
  if (!isBankParentAccount(parentCode)) throw parentRefused(parentCode);
  try {
    return await inTransaction(context.knex, async (trx) => {
      const parent = await trx('company_chart_entries')
        .where({ enterprise_id: input.enterpriseId, code: parentCode })
        .forUpdate()
        .first('chart_id');
      if (parent === undefined)
        throw new AppError('unprocessable', 'account_unknown', `The enterprise's chart has no account ${parentCode}.`);
      if (input.branchId !== null) await assertBranchOf(trx, input.enterpriseId, input.branchId);
      const code = nextSubAccountCode(
        parentCode,
        await trx('company_chart_entries').where({ chart_id: parent.chart_id, parent_code: parentCode }).pluck('code'),
      );
      if (code === null)
        throw new AppError('conflict', 'bank_accounts_full', `The 999 bank accounts under ${parentCode} are taken.`);
      const label = `${input.bankName} ${input.accountNumber}`.slice(0, 200);
      const account = await addSubAccount({ ...context, knex: trx }, actor, parent.chart_id, {
        parentCode,
        code,
        label,
      });
      const bankAccount = await BankAccount.query(trx).insertAndFetch({
        enterpriseId: input.enterpriseId,
        branchId: input.branchId,
        bankName: input.bankName,
        accountNumber: input.accountNumber,
        bankBranch: input.bankBranch,
        chartEntryId: account.id,
        accountCode: code,
        isActive: true,
        createdBy: actor.userId,
      });
      await recordAudit(trx, actor, {
        action: 'bank_account.create',
        entityType: 'bank_account',
        entityId: bankAccount.id,
        enterpriseId: bankAccount.enterpriseId,
        details: { bank_name: bankAccount.bankName, account_number: bankAccount.accountNumber, account: code },
      });
      return bankAccount;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'bank_accounts_number_unique')) throw numberTaken(input.accountNumber);
    throw error;
  }
}

/**
 * Changes a bank account's bank, number or agency (the account's label follows), or deactivates it: no new
 * transfer names it, while its chart account stays open for the entries that empty or correct it.
 */
export async function updateBankAccount(
  context: ActivityContext,
  actor: Actor,
  bankAccountId: string,
  changes: BankAccountChanges,
): Promise<BankAccount> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      const bankAccount = await BankAccount.query(trx).findById(bankAccountId).forUpdate();
      if (bankAccount === undefined) throw new NotFoundError('The bank account');
      // A PATCH of no field changes nothing (Objection would patch nothing and answer no row).
      const patch = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      if (Object.keys(patch).length === 0) return bankAccount;
      const updated = await BankAccount.query(trx).patchAndFetchById(bankAccount.id, patch);
      const label = `${updated.bankName} ${updated.accountNumber}`.slice(0, 200);
      if (label !== `${bankAccount.bankName} ${bankAccount.accountNumber}`.slice(0, 200))
        await trx('company_chart_entries').where({ id: bankAccount.chartEntryId }).update({ label });
      const action =
        changes.isActive === false && bankAccount.isActive ? 'bank_account.deactivate' : 'bank_account.update';
      await recordAudit(trx, actor, {
        action,
        entityType: 'bank_account',
        entityId: bankAccount.id,
        enterpriseId: bankAccount.enterpriseId,
        ...changedValues(changes, bankAccount, updated),
      });
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'bank_accounts_number_unique')) throw numberTaken(changes.accountNumber);
    throw error;
  }
}
