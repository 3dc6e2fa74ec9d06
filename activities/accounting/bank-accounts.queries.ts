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

export interface TransferRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  from_bank_account_id: string | null;
  to_bank_account_id: string | null;
  from_account_code: string;
  to_account_code: string;
  transfer_date: string;
  amount: string;
  reference: string;
  entry_id: string;
  recorded_by: string;
  created_at: Date;
}

/** Treasury transfers, dates as ISO text and amounts as whole-franc text. */
export const transfersQuery = (knex: Knex): Knex.QueryBuilder => knex('treasury_transfers as t').select(
  't.id', 't.enterprise_id', 't.branch_id', 't.from_bank_account_id', 't.to_bank_account_id', 't.from_account_code', 't.to_account_code',
  knex.raw('to_char(t.transfer_date, \'YYYY-MM-DD\') AS transfer_date'), knex.raw('t.amount::text AS amount'), 't.reference', 't.entry_id', 't.recorded_by', 't.created_at',
);
