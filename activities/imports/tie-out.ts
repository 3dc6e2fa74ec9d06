import type { Knex } from 'knex';
import { formatAmount, Money } from '../../domain/money';
import { importKinds } from '../../domain/imports/templates';
import { inTransaction } from '../../db/transaction';
import { subledgerAccounts } from '../accounting/subledger-accounts';
import type { DataContext } from '../context';
import { amountSql } from './import-sql';
import type { DetailTotal, ImportScope } from './import-steps';
import { importKindSteps } from './kinds';
import { lockValidating } from './validation';

/**
 * The tie-out (docs/domain.md §15.1): for every branch and account that a kind's detail names, or that a subledger
 * of the chart keeps and the trial balance carries, the trial balance's debit − credit beside the detail's. The
 * pairs are stored (`import_tie_outs`) for the report; a difference blocks apply unless direction accepts it.
 */

export const scopeOf = (imported: { id: string; enterprise_id: string; cut_over_date: string }): ImportScope => ({
  importId: imported.id,
  enterpriseId: imported.enterprise_id,
  cutOverDate: imported.cut_over_date,
});

/** The trial balance's debit − credit by branch and account. */
export async function trialBalanceLines(
  knex: Knex | Knex.Transaction,
  importId: string,
): Promise<{ branch_code: string; account_code: string; balance: string }[]> {
  const rows = await knex.raw(
    `SELECT r.data->>'branch_code' AS branch_code, r.data->>'account_code' AS account_code,
      sum(${amountSql("r.data->>'debit'")} - ${amountSql("r.data->>'credit'")})::text AS balance
    FROM import_rows r WHERE r.import_id = ? AND r.kind = 'trial-balance' GROUP BY 1, 2 ORDER BY 1, 2`,
    [importId],
  );
  return rows.rows as { branch_code: string; account_code: string; balance: string }[];
}

interface Pair {
  branchCode: string;
  accountCode: string;
  what: string[];
  trialBalance: Money;
  detail: Money;
}

/** Every kind's detail totals, in the order of the kinds. */
async function detailTotals(trx: Knex.Transaction, scope: ImportScope): Promise<DetailTotal[]> {
  const totals: DetailTotal[] = [];
  for (const kind of importKinds) totals.push(...((await importKindSteps[kind]?.detailTotals?.(trx, scope)) ?? []));
  return totals;
}

/** The pairs compared: the detail's (branch, account) and the trial balance's lines on an account a subledger keeps. */
async function pairsOf(trx: Knex.Transaction, scope: ImportScope): Promise<Pair[]> {
  const pairs = new Map<string, Pair>();
  const pair = (branchCode: string, accountCode: string) => {
    const key = `${branchCode} ${accountCode}`;
    if (!pairs.has(key))
      pairs.set(key, { branchCode, accountCode, what: [], trialBalance: new Money(0), detail: new Money(0) });
    return pairs.get(key)!;
  };
  for (const total of await detailTotals(trx, scope)) {
    const found = pair(total.branchCode, total.accountCode);
    found.detail = found.detail.plus(total.balance);
    found.what.push(total.what);
  }
  const kept = await subledgerAccounts(trx, scope.enterpriseId);
  for (const line of await trialBalanceLines(trx, scope.importId)) {
    const subledger = kept.get(line.account_code);
    const key = `${line.branch_code} ${line.account_code}`;
    if (subledger === undefined && !pairs.has(key)) continue;
    const found = pair(line.branch_code, line.account_code);
    found.trialBalance = new Money(line.balance);
    if (found.what.length === 0) found.what.push(`${subledger!} (no detail imported)`);
  }
  return [...pairs.values()].sort(
    (a, b) => a.branchCode.localeCompare(b.branchCode) || a.accountCode.localeCompare(b.accountCode),
  );
}

/**
 * Compares and stores the pairs of an import its validation found clean; answers how many differ. Replaces an earlier
 * tie-out.
 */
export async function tieOutImport(context: DataContext, importId: string): Promise<{ differences: number }> {
  return inTransaction(context.knex, async (trx) => {
    const imported = await lockValidating(trx, importId);
    if (imported === null) return { differences: 0 };
    const scope = scopeOf(imported);
    await trx('import_tie_outs').where({ import_id: importId }).delete();
    const pairs = await pairsOf(trx, scope);
    const rows = pairs.map((found) => ({
      enterprise_id: scope.enterpriseId,
      import_id: importId,
      branch_code: found.branchCode,
      account_code: found.accountCode,
      what: found.what.join('; '),
      trial_balance: formatAmount(found.trialBalance),
      detail: formatAmount(found.detail),
      difference: formatAmount(found.trialBalance.minus(found.detail)),
    }));
    for (let start = 0; start < rows.length; start += 1000)
      await trx('import_tie_outs').insert(rows.slice(start, start + 1000));
    return { differences: pairs.filter((found) => !found.trialBalance.eq(found.detail)).length };
  });
}
