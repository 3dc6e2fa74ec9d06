import type { Knex } from 'knex';
import type { DraftLine } from '../../domain/accounting/manual-entries';
import { Money } from '../../domain/money';
import { createManualEntry, draftReversal, postManualEntry } from '../accounting/manual-entries.activity';
import type { Actor } from '../context';
import { trialBalanceLines } from './tie-out';

/**
 * The general ledger's side of an import (docs/domain.md §15.1): the trial balance as one opening entry of the
 * opening-balances journal (`AN`), dated at the cut-over, which posts one journal entry per branch: the manual
 * entries' opening entry (issue 28), marked as the import's so it may name the subledger accounts whose detail the
 * import creates. An accepted tie-out difference moves to the suspense account: the account keeps its detail's
 * balance, so the subledger equals the general ledger, and the suspense holds what is left to justify.
 */

export interface OpeningBalance {
  branchCode: string;
  account: string;
  /** Debit minus credit. */
  balance: Money;
}

/** The suspense account of the enterprise's opening entries (configuration, default 4780). */
export async function suspenseAccountOf(knex: Knex | Knex.Transaction, enterpriseId: string): Promise<string> {
  return (
    await knex('enterprise_configurations')
      .where({ enterprise_id: enterpriseId })
      .first('opening_suspense_account_code')
  ).opening_suspense_account_code as string;
}

/**
 * What the opening entry posts per branch and account: the trial balance but the off-balance class 9 (its own
 * commitments' entries), each tie-out difference moved from its account to the suspense account.
 */
export async function openingBalances(
  knex: Knex | Knex.Transaction,
  importId: string,
  suspenseAccount: string,
): Promise<OpeningBalance[]> {
  const balances = new Map<string, OpeningBalance>();
  const add = (branchCode: string, account: string, amount: Money) => {
    const key = `${branchCode} ${account}`;
    const found = balances.get(key) ?? { branchCode, account, balance: new Money(0) };
    balances.set(key, { ...found, balance: found.balance.plus(amount) });
  };
  for (const line of await trialBalanceLines(knex, importId))
    if (!line.account_code.startsWith('9')) add(line.branch_code, line.account_code, new Money(line.balance));
  const differences = (await knex('import_tie_outs')
    .where({ import_id: importId })
    .whereNot('difference', 0)
    .select('branch_code', 'account_code', 'difference')) as {
    branch_code: string;
    account_code: string;
    difference: string;
  }[];
  for (const row of differences) {
    add(row.branch_code, row.account_code, new Money(row.difference).negated());
    add(row.branch_code, suspenseAccount, new Money(row.difference));
  }
  return [...balances.values()].filter((line) => !line.balance.isZero());
}

const zero = new Money(0);

/** Posts the import's opening entry once: a rerun finds it on the import. Runs in the caller's transaction. */
type ImportRow = { id: string; enterprise_id: string; cut_over_date: string };

export async function postOpeningEntry(
  trx: Knex.Transaction,
  clock: () => Date,
  actor: Actor,
  imported: ImportRow,
): Promise<void> {
  const { opening_entry_id: done } = await trx('imports').where({ id: imported.id }).first('opening_entry_id');
  if (done !== null) return;
  const branches = new Map(
    (
      (await trx('branches').where({ enterprise_id: imported.enterprise_id }).select('code', 'id')) as {
        code: string;
        id: string;
      }[]
    ).map((row) => [row.code, row.id]),
  );
  const balances = await openingBalances(trx, imported.id, await suspenseAccountOf(trx, imported.enterprise_id));
  if (balances.length === 0) return;
  const lines: DraftLine[] = balances.map((line) => ({
    account: line.account,
    branchId: branches.get(line.branchCode)!,
    label: null,
    debit: line.balance.isPositive() ? line.balance : zero,
    credit: line.balance.isNegative() ? line.balance.negated() : zero,
  }));
  const context = { knex: trx, clock };
  const id = await createManualEntry(context, actor, {
    enterpriseId: imported.enterprise_id,
    kind: 'opening',
    journal: 'AN',
    entryDate: imported.cut_over_date,
    importId: imported.id,
    reference: `IMPORT-${imported.cut_over_date}`,
    label: 'Reprise des soldes à la bascule (import)',
    lines,
  });
  await postManualEntry(context, actor, { manualEntryId: id, version: 1 });
  await trx('imports').where({ id: imported.id }).update({ opening_entry_id: id });
}

/** Cancelling: the opening entry reversed by its reversing entry, posted at once (the cancellation was approved). */
export async function reverseOpeningEntry(
  trx: Knex.Transaction,
  clock: () => Date,
  actor: Actor,
  imported: { id: string; cut_over_date: string },
): Promise<void> {
  const { opening_entry_id: entryId } = await trx('imports').where({ id: imported.id }).first('opening_entry_id');
  if (entryId === null) return;
  const context = { knex: trx, clock };
  const id = await draftReversal(context, actor, {
    id: entryId as string,
    entryDate: imported.cut_over_date,
    reference: `IMPORT-CANCEL-${imported.cut_over_date}`,
    label: null,
  });
  await postManualEntry(context, actor, { manualEntryId: id, version: 1 });
}
