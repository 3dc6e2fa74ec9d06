import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { formatAmount, Money } from '../../domain/money';
import { accountTotals, provisionalOf, type StatementScope } from '../accounts/financial-statements';
import { statementScopeAt } from '../accounts/year-balances';
import { supplierAccountsQuery, suppliersWithBalances, type SupplierRow } from './suppliers.queries';

const sum = (values: readonly string[]) =>
  formatAmount(values.reduce((total, value) => total.plus(value), new Money(0)));

/**
 * The supplier balances at a date (docs/domain.md §12.5), per branch or consolidated: per supplier what was invoiced,
 * paid and remains owed from its invoices and payments, beside what the ledger says its account owes (credit minus
 * debit, earlier years not closed carried by computation), and the whole of 401 in the ledger. The totals of the
 * suppliers equal 401's while only their operations post to it.
 */
export async function supplierBalancesAt(knex: Knex, scope: StatementScope, date: IsoDate) {
  const branches = scope.branch === null ? scope.branches : [scope.branch];
  const at = await statementScopeAt(knex, scope.enterpriseId, date, branches);
  const ledger: { id: string; code: string; balance: string }[] = await accountTotals(knex, at.scope).whereRaw(
    'starts_with(c.code, ?)',
    ['401'],
  );
  const supplierAccounts = new Set<string>(
    await supplierAccountsQuery(knex, scope.enterpriseId).pluck('chart_entry_id'),
  );
  const owed = new Map(
    ledger
      .filter((row) => supplierAccounts.has(row.id))
      .map((row) => [row.code, formatAmount(new Money(row.balance).negated())]),
  );
  const rows: SupplierRow[] = await suppliersWithBalances(knex, { date, branches })
    .where('s.enterprise_id', scope.enterpriseId)
    .orderBy('s.account_code');
  const suppliers = rows.map((row) => ({
    supplier: row.id,
    account: row.account_code,
    name: row.name,
    invoiced: row.invoiced,
    paid: row.paid,
    balance: row.balance,
    ledger_balance: owed.get(row.account_code) ?? '0',
  }));
  return {
    date,
    branch: scope.branch,
    ...provisionalOf(at.openExercices),
    suppliers,
    totals: {
      invoiced: sum(suppliers.map((row) => row.invoiced)),
      paid: sum(suppliers.map((row) => row.paid)),
      balance: sum(suppliers.map((row) => row.balance)),
      ledger_balance: sum(suppliers.map((row) => row.ledger_balance)),
      account_401: sum(ledger.map((row) => new Money(row.balance).negated().toString())),
    },
  };
}
