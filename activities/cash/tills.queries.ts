import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { vaultAccount } from '../../domain/cash/tills';
import { AppError } from '../../domain/errors';
import { ledgerCall } from '../events/ledger-refusal';

/** The reads of tills, vaults and till sessions (issue 29, docs/domain.md §13.1). */

export interface TillRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  code: string;
  label: string;
  kind: 'till' | 'vault';
  account_code: string;
  cash_limit: string | null;
  cashier_id: string | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
  /**
   * Debits less credits of its account in its branch's entries: the vault's 5710 is every branch's, its lines are its
   * branch's.
   */
  balance: string;
}

/** The book balance of a till's or vault's account in its branch, every entry (a subquery of `tills as t`). */
const balanceSql = `COALESCE((SELECT sum(l.debit - l.credit) FROM journal_lines l
  JOIN company_chart_entries c ON c.id = l.chart_entry_id JOIN journal_entries e ON e.id = l.entry_id
  WHERE c.enterprise_id = t.enterprise_id AND c.code = t.account_code AND e.branch_id = t.branch_id), 0)::text`;

/** Tills and vaults with their book balance: the list's and the detail's rows. */
export const tillsQuery = (knex: Knex | Knex.Transaction): Knex.QueryBuilder =>
  knex('tills as t').select(
    't.id',
    't.enterprise_id',
    't.branch_id',
    't.code',
    't.label',
    't.kind',
    't.account_code',
    knex.raw('t.cash_limit::text AS cash_limit'),
    't.cashier_id',
    't.is_active',
    't.created_at',
    't.updated_at',
    knex.raw(`${balanceSql} AS balance`),
  );

export const tillById = (knex: Knex | Knex.Transaction, id: string) =>
  tillsQuery(knex).where('t.id', id).first() as Promise<TillRow | undefined>;

/** The book balance of a till now, read in the caller's transaction. */
export const tillBalance = async (trx: Knex.Transaction, tillId: string): Promise<string> =>
  (await tillById(trx, tillId))!.balance;

export interface TillSessionRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  till_id: string;
  till_code: string;
  account_code: string;
  cashier_id: string;
  business_date: string;
  status: 'open' | 'closed';
  opening_count: Record<string, number>;
  opening_total: string;
  opening_book_balance: string;
  opening_entry_id: string | null;
  closing_count: Record<string, number> | null;
  closing_total: string | null;
  closing_book_balance: string | null;
  closing_entry_id: string | null;
  opened_at: Date;
  closed_at: Date | null;
  closed_by: string | null;
}

/** Till sessions with their till's code and account, amounts as whole-franc text. */
export const tillSessionsQuery = (knex: Knex | Knex.Transaction): Knex.QueryBuilder =>
  knex('till_sessions as s')
    .join('tills as t', 't.id', 's.till_id')
    .select(
      's.id',
      's.enterprise_id',
      's.branch_id',
      's.till_id',
      't.code as till_code',
      't.account_code',
      's.cashier_id',
      knex.raw("to_char(s.business_date, 'YYYY-MM-DD') AS business_date"),
      's.status',
      's.opening_count',
      knex.raw('s.opening_total::text AS opening_total'),
      knex.raw('s.opening_book_balance::text AS opening_book_balance'),
      's.opening_entry_id',
      's.closing_count',
      knex.raw('s.closing_total::text AS closing_total'),
      knex.raw('s.closing_book_balance::text AS closing_book_balance'),
      's.closing_entry_id',
      's.opened_at',
      's.closed_at',
      's.closed_by',
    );

export const tillSessionById = (knex: Knex | Knex.Transaction, id: string) =>
  tillSessionsQuery(knex).where('s.id', id).first() as Promise<TillSessionRow | undefined>;

/**
 * The sessions of a branch's business date still open: what the branch's day close waits for (docs/domain.md
 * §13.1). Empty when every till of the branch has closed its day.
 */
export const openTillSessions = (
  knex: Knex | Knex.Transaction,
  branchId: string,
  date: IsoDate,
): Promise<TillSessionRow[]> =>
  tillSessionsQuery(knex)
    .where({ 's.branch_id': branchId, 's.business_date': date, 's.status': 'open' })
    .orderBy('t.code');

/**
 * The business date stays while a till session of the enterprise is open (issue 29): a session counts one day,
 * and its operations would be dated on the next. Checked where the date is moved, and when the move is asked.
 */
export async function assertNoOpenTillSession(knex: Knex | Knex.Transaction, enterpriseId: string): Promise<void> {
  const open = await knex('till_sessions')
    .where({ enterprise_id: enterpriseId, status: 'open' })
    .count({ n: '*' })
    .first();
  const count = Number(open?.n ?? 0);
  if (count > 0) {
    throw new AppError(
      'conflict',
      'business_date_till_sessions_open',
      `${count} till session${count === 1 ? ' is' : 's are'} open in the enterprise: ` +
        `they are closed before the business date moves.`,
      [{ field: 'business_date', message: 'till sessions are open' }],
    );
  }
}

/**
 * The account "the till" names for an operation of `actorId` in `branchId`, for the postings that name 5710 by
 * itself rather than through the `cash` role (a supplier paid from the till, a treasury transfer from or to it):
 * the same rule as the role's, from the same function (coopbank_cash_account). Any other account is kept.
 */
export async function cashAccountFor(
  trx: Knex.Transaction,
  branchId: string | null,
  actorId: string | null,
  account: string,
): Promise<string> {
  if (account !== vaultAccount) return account;
  return (
    await ledgerCall<{ account: string }>(
      trx.raw('SELECT coopbank_cash_account(?, ?, ?) AS account', [branchId, actorId, account]),
    )
  ).account;
}

/**
 * The till an event's entry posted its cash to, among `accounts` (the entry's lines), in the event's branch: the
 * event log keeps the accounts the request named (5710 for cash), the entry the till the operator's session gave.
 * A replay keeps that till, rather than moving the cash to the vault.
 */
export async function postedTill(
  knex: Knex | Knex.Transaction,
  branchId: string | null,
  accounts: readonly string[],
): Promise<string | undefined> {
  if (branchId === null || accounts.length === 0) return undefined;
  return (
    await knex('tills')
      .where({ branch_id: branchId, kind: 'till' })
      .whereIn('account_code', [...new Set(accounts)])
      .first('account_code')
  )?.account_code as string | undefined;
}
