import { balanceSheet, type StatementLine } from '../../domain/accounts/statements';
import { formatAmount, Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import type { DataContext } from '../context';
import { lockImport } from './imports.activity';
import { openingBalances, suspenseAccountOf } from './opening-entries';
import { lockValidating } from './validation';

/**
 * The dry run (docs/domain.md §15.1): what applying would produce, written nowhere but on the import. The rows
 * each kind creates per branch, the detail totals per branch and account (the tie-out's), the opening entry's
 * totals per branch, and the opening balance sheet: the opening entry's balances grouped as the balance sheet
 * report groups them (domain/accounts/statements.ts).
 */

const lineOf = (line: StatementLine) => ({ code: line.code, label: line.label, amount: formatAmount(line.amount) });

async function openingFigures(knex: DataContext['knex'], imported: { id: string; enterprise_id: string }) {
  const balances = await openingBalances(knex, imported.id, await suspenseAccountOf(knex, imported.enterprise_id));
  const byAccount = new Map<string, Money>();
  const byBranch = new Map<string, { debit: Money; credit: Money }>();
  for (const line of balances) {
    byAccount.set(line.account, (byAccount.get(line.account) ?? new Money(0)).plus(line.balance));
    const branch = byBranch.get(line.branchCode) ?? { debit: new Money(0), credit: new Money(0) };
    byBranch.set(
      line.branchCode,
      line.balance.isPositive()
        ? { ...branch, debit: branch.debit.plus(line.balance) }
        : { ...branch, credit: branch.credit.minus(line.balance) },
    );
  }
  const sheet = balanceSheet([...byAccount].map(([account, balance]) => ({ account, balance })));
  return {
    opening_entries: [...byBranch].map(([branch, sides]) => ({
      branch_code: branch,
      debit: formatAmount(sides.debit),
      credit: formatAmount(sides.credit),
    })),
    opening_balance_sheet: {
      assets: sheet.assets.filter((line) => !line.amount.isZero()).map(lineOf),
      liabilities: sheet.liabilities.filter((line) => !line.amount.isZero()).map(lineOf),
      totals: { assets: formatAmount(sheet.totals.assets), liabilities: formatAmount(sheet.totals.liabilities) },
    },
  };
}

/**
 * Computes and stores the dry run of a tied-out import, the last step of its validation: the import is then
 * `validated`; answers its status.
 */
export async function dryRunImport(context: DataContext, importId: string): Promise<{ status: string }> {
  return inTransaction(context.knex, async (trx) => {
    const imported = await lockValidating(trx, importId);
    if (imported === null) return { status: (await lockImport(trx, importId)).status };
    const rows = await trx('import_rows')
      .where({ import_id: importId })
      .groupBy('kind', 'branch_code')
      .orderBy(['kind', 'branch_code'])
      .select('kind', trx.raw("coalesce(data->>'branch_code', '') AS branch_code"), trx.raw('count(*)::int AS rows'));
    const detail = await trx('import_tie_outs')
      .where({ import_id: importId })
      .whereNot('detail', 0)
      .orderBy(['branch_code', 'account_code'])
      .select('branch_code', 'account_code', 'what', trx.raw('detail::text AS amount'));
    const dryRun = { rows, detail, ...(await openingFigures(trx, imported)) };
    await trx('imports')
      .where({ id: importId })
      .update({ dry_run: JSON.stringify(dryRun), status: 'validated', validated_at: trx.fn.now() });
    return { status: 'validated' };
  });
}
