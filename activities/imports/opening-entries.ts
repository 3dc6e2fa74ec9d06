import type { Knex } from 'knex';
import { Money } from '../../domain/money';
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
  return (await knex('enterprise_configurations').where({ enterprise_id: enterpriseId }).first('opening_suspense_account_code')).opening_suspense_account_code as string;
}

/**
 * What the opening entry posts per branch and account: the trial balance but the off-balance class 9 (its own
 * commitments' entries), each tie-out difference moved from its account to the suspense account.
 */
export async function openingBalances(knex: Knex | Knex.Transaction, importId: string, suspenseAccount: string): Promise<OpeningBalance[]> {
  const balances = new Map<string, OpeningBalance>();
  const add = (branchCode: string, account: string, amount: Money) => {
    const key = `${branchCode} ${account}`;
    const found = balances.get(key) ?? { branchCode, account, balance: new Money(0) };
    balances.set(key, { ...found, balance: found.balance.plus(amount) });
  };
  for (const line of await trialBalanceLines(knex, importId)) if (!line.account_code.startsWith('9')) add(line.branch_code, line.account_code, new Money(line.balance));
  const differences = await knex('import_tie_outs').where({ import_id: importId }).whereNot('difference', 0)
    .select('branch_code', 'account_code', 'difference') as { branch_code: string; account_code: string; difference: string }[];
  for (const row of differences) {
    add(row.branch_code, row.account_code, new Money(row.difference).negated());
    add(row.branch_code, suspenseAccount, new Money(row.difference));
  }
  return [...balances.values()].filter((line) => !line.balance.isZero());
}
