import type { Knex } from 'knex';
import { reconcile, type ReconciliationFigures } from '../../domain/accounting/bank-reconciliation';
import type { IsoDate } from '../../domain/calendar';

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
  const balances = knex('journal_lines')
    .groupBy('chart_entry_id')
    .select('chart_entry_id', knex.raw('sum(debit - credit) AS balance'));
  return knex('bank_accounts as b')
    .leftJoin(balances.as('l'), 'l.chart_entry_id', 'b.chart_entry_id')
    .select(
      'b.id',
      'b.enterprise_id',
      'b.branch_id',
      'b.bank_name',
      'b.account_number',
      'b.bank_branch',
      'b.account_code',
      'b.is_active',
      'b.created_at',
      'b.updated_at',
      knex.raw('COALESCE(l.balance, 0)::text AS balance'),
    );
}

export const bankAccountById = (knex: Knex, id: string) =>
  bankAccountsQuery(knex).where('b.id', id).first() as Promise<BankAccountRow | undefined>;

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
export const transfersQuery = (knex: Knex): Knex.QueryBuilder =>
  knex('treasury_transfers as t').select(
    't.id',
    't.enterprise_id',
    't.branch_id',
    't.from_bank_account_id',
    't.to_bank_account_id',
    't.from_account_code',
    't.to_account_code',
    knex.raw("to_char(t.transfer_date, 'YYYY-MM-DD') AS transfer_date"),
    knex.raw('t.amount::text AS amount'),
    't.reference',
    't.entry_id',
    't.recorded_by',
    't.created_at',
  );

/**
 * The figures of a bank account's reconciliation at `date` (docs/domain.md §12.6): its book balance, the bank's
 * (the last statement line's balance at the date when it has one, else the sum of the lines), and the lines of
 * either side not matched by a line of the other dated up to `date`.
 */
export async function reconciliationAt(
  knex: Knex,
  account: { id: string; account_code: string },
  date: IsoDate,
): Promise<ReconciliationFigures> {
  const chartEntry = knex('bank_accounts').where({ id: account.id }).select('chart_entry_id');
  const ledger = knex('journal_lines as l')
    .join('journal_entries as e', 'e.id', 'l.entry_id')
    .whereIn('l.chart_entry_id', chartEntry)
    .where('e.entry_date', '<=', date);
  const book = await ledger.clone().first(knex.raw('COALESCE(sum(l.debit - l.credit), 0)::text AS balance'));
  const statement = knex('bank_statement_lines as s')
    .where('s.bank_account_id', account.id)
    .where('s.line_date', '<=', date);
  const last = await statement
    .clone()
    .join('bank_statements as b', 'b.id', 's.statement_id')
    .orderBy([
      { column: 's.line_date', order: 'desc' },
      { column: 'b.created_at', order: 'desc' },
      { column: 's.position', order: 'desc' },
    ])
    .first(knex.raw('s.balance::text AS balance'));
  const total = await statement.clone().first(knex.raw('COALESCE(sum(s.amount), 0)::text AS total'));
  const unmatchedLedger = await ledger
    .clone()
    .whereNotExists(
      knex('bank_statement_lines as m').whereRaw('m.journal_line_id = l.id').where('m.line_date', '<=', date),
    )
    .orderBy(['e.entry_date', 'l.id'])
    .select(
      knex.raw('l.id::text AS journal_line'),
      knex.raw("to_char(e.entry_date, 'YYYY-MM-DD') AS date"),
      'e.description',
      knex.raw('(l.debit - l.credit)::text AS amount'),
    );
  const unmatchedStatement = await statement
    .clone()
    .leftJoin('journal_lines as l', 'l.id', 's.journal_line_id')
    .leftJoin('journal_entries as e', 'e.id', 'l.entry_id')
    .where((open) => open.whereNull('s.journal_line_id').orWhere('e.entry_date', '>', date))
    .orderBy(['s.line_date', 's.position'])
    .select(
      's.id AS statement_line',
      knex.raw("to_char(s.line_date, 'YYYY-MM-DD') AS date"),
      's.label',
      's.reference',
      knex.raw('s.amount::text AS amount'),
    );
  return reconcile({
    date,
    account: account.account_code,
    book_balance: book.balance,
    bank_balance: last?.balance ?? total.total,
    unmatched_ledger_lines: unmatchedLedger,
    unmatched_statement_lines: unmatchedStatement,
  });
}
