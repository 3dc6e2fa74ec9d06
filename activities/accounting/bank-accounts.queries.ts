import type { Knex } from 'knex';

/** The reads of bank accounts (docs/domain.md §12.6). */

export interface BankAccountRow {
  id: string;
  enterprise_id: string;
  branch_id: string | null;
  bank_name: string;
  account_number: string;
  bank_branch: string | null;
  account_code: string;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
  /** The book balance: debits less credits of its chart account, every entry. */
  balance: string;
}

/** Bank accounts with their book balance: the list's and the detail's rows. */
export function bankAccountsQuery(knex: Knex): Knex.QueryBuilder {
  const balances = knex('journal_lines').groupBy('chart_entry_id').select('chart_entry_id', knex.raw('sum(debit - credit) AS balance'));
  return knex('bank_accounts as b')
    .leftJoin(balances.as('l'), 'l.chart_entry_id', 'b.chart_entry_id')
    .select('b.id', 'b.enterprise_id', 'b.branch_id', 'b.bank_name', 'b.account_number', 'b.bank_branch', 'b.account_code', 'b.is_active', 'b.created_at', 'b.updated_at',
      knex.raw('COALESCE(l.balance, 0)::text AS balance'));
}

export const bankAccountById = (knex: Knex, id: string) => bankAccountsQuery(knex).where('b.id', id).first() as Promise<BankAccountRow | undefined>;
