import type { Knex } from 'knex';
import { formatAmount, Money } from '../../domain/money';
import { inTransaction } from '../../db/transaction';
import type { DataContext } from '../context';
import { lockImport } from './imports.activity';
import { openingBalances, suspenseAccountOf } from './opening-entries';

/**
 * The reconciliation that ends an import's apply (docs/domain.md §15.1): each subledger pair of the tie-out read
 * again from what was created (member deposits: the accounts' balances) beside the general ledger, and the general
 * ledger at the cut-over beside the trial balance (each accepted difference on the suspense account). Stored with
 * the import, which is then `applied`.
 */

interface Compared {
  branch_code: string;
  account_code: string;
  ledger: string;
  expected: string;
}

const key = (branch: string, account: string) => `${branch} ${account}`;

/** The general ledger's debit − credit by branch and account, up to the cut-over, off-balance apart. */
async function ledgerAt(trx: Knex.Transaction, enterpriseId: string, date: string): Promise<Map<string, Money>> {
  const rows = (await trx('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .join('branches as b', 'b.id', 'e.branch_id')
    .where('e.enterprise_id', enterpriseId)
    .where('e.entry_date', '<=', date)
    .whereNot('c.class', 9)
    .groupBy('b.code', 'c.code')
    .select('b.code as branch', 'c.code as account', trx.raw('sum(l.debit - l.credit)::text AS balance'))) as {
    branch: string;
    account: string;
    balance: string;
  }[];
  return new Map(rows.map((row) => [key(row.branch, row.account), new Money(row.balance)]));
}

/** The members' deposits as the accounts hold them, by branch and product deposit account (debit − credit). */
async function depositDetail(trx: Knex.Transaction, enterpriseId: string): Promise<Map<string, Money>> {
  const rows = (await trx('comptes_clients as a')
    .join('savings_products as p', 'p.id', 'a.product_id')
    .join('branches as b', 'b.id', 'a.branch_id')
    .where('a.enterprise_id', enterpriseId)
    .groupBy('b.code', 'p.deposit_account_code')
    .select(
      'b.code as branch',
      'p.deposit_account_code as account',
      trx.raw('(-sum(a.balance))::text AS balance'),
    )) as { branch: string; account: string; balance: string }[];
  return new Map(rows.map((row) => [key(row.branch, row.account), new Money(row.balance)]));
}

const differing = (pairs: Compared[]) => pairs.filter((pair) => pair.ledger !== pair.expected);

async function reconciliationOf(
  trx: Knex.Transaction,
  imported: { id: string; enterprise_id: string; cut_over_date: string },
) {
  const ledger = await ledgerAt(trx, imported.enterprise_id, imported.cut_over_date);
  const ledgerOf = (branch: string, account: string) => formatAmount(ledger.get(key(branch, account)) ?? new Money(0));
  const deposits = await depositDetail(trx, imported.enterprise_id);
  const tieOuts = (await trx('import_tie_outs')
    .where({ import_id: imported.id })
    .orderBy(['branch_code', 'account_code'])
    .select('branch_code', 'account_code', trx.raw('detail::text AS detail'))) as {
    branch_code: string;
    account_code: string;
    detail: string;
  }[];
  const subledgers = tieOuts.map((pair) => ({
    branch_code: pair.branch_code,
    account_code: pair.account_code,
    ledger: ledgerOf(pair.branch_code, pair.account_code),
    expected: formatAmount(deposits.get(key(pair.branch_code, pair.account_code)) ?? new Money(pair.detail)),
  }));
  const opening = await openingBalances(trx, imported.id, await suspenseAccountOf(trx, imported.enterprise_id));
  const lines = opening.map((line) => ({
    branch_code: line.branchCode,
    account_code: line.account,
    ledger: ledgerOf(line.branchCode, line.account),
    expected: formatAmount(line.balance),
  }));
  const [{ suspense }] = (await trx('import_tie_outs')
    .where({ import_id: imported.id })
    .sum({ suspense: 'difference' })) as [{ suspense: string | null }];
  return {
    subledgers: { pairs: subledgers.length, differing: differing(subledgers) },
    trial_balance: { lines: lines.length, differing: differing(lines) },
    suspense: formatAmount(new Money(suspense ?? 0)),
    reconciled: differing(subledgers).length === 0 && differing(lines).length === 0,
  };
}

export type ImportReconciliation = Awaited<ReturnType<typeof reconciliationOf>>;

/** Reconciles an import being applied, stores the report and marks it applied; a rerun answers the stored report. */
export async function reconcileImport(context: DataContext, importId: string): Promise<ImportReconciliation> {
  return inTransaction(context.knex, async (trx) => {
    const imported = await lockImport(trx, importId);
    if (imported.status !== 'applying')
      return (await trx('imports').where({ id: importId }).first('reconciliation'))
        .reconciliation as ImportReconciliation;
    const report = await reconciliationOf(trx, imported);
    await trx('imports')
      .where({ id: importId })
      .update({ status: 'applied', reconciliation: JSON.stringify(report) });
    return report;
  });
}
