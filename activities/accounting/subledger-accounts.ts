import type { Knex } from 'knex';
import { doubtfulAccounts, provisionAccounts } from '../../domain/loans/doubtful-accounts';
import { defaultRoleAccounts } from '../events/default-rules';
import { fixedAssetAccountsQuery } from './fixed-assets.queries';

/**
 * The accounts a subledger keeps (docs/domain.md §12.1): each moves only through its own operations, which keep
 * the detail (an account's balance, a loan's outstanding, a member's capital) in the same transaction, so the
 * subledgers always equal the general ledger. Manual entries, the opening entry included, may not touch them.
 *
 * Adding a subledger is one line: its name and the query of its account codes for an enterprise (a `code` column),
 * or the fixed codes it always keeps.
 */
type SubledgerSource = (knex: Knex | Knex.Transaction, enterpriseId: string) => Knex.QueryBuilder | readonly string[];

const subledgerSources: Readonly<Record<string, SubledgerSource>> = {
  // Member deposits: each savings product's deposits and the interest accrued on them (savings_interest_accruals).
  'member deposits': (knex, enterpriseId) =>
    knex('savings_products').where({ enterprise_id: enterpriseId }).select('deposit_account_code as code'),
  'accrued interest on deposits': (knex, enterpriseId) =>
    knex('savings_products').where({ enterprise_id: enterpriseId }).select('accrued_interest_account_code as code'),
  // Loans: each product's portfolio and accrued interest, then the accounts a loan moves to as it ages.
  'loan portfolio': (knex, enterpriseId) =>
    knex('loan_products').where({ enterprise_id: enterpriseId }).select('portfolio_account_code as code'),
  'accrued interest on loans': (knex, enterpriseId) =>
    knex('loan_products').where({ enterprise_id: enterpriseId }).select('accrued_interest_account_code as code'),
  'overdue and doubtful loans': () => [defaultRoleAccounts.overdue_receivables, ...doubtfulAccounts],
  'loan provisions': () => provisionAccounts,
  // Share capital by member (docs/domain.md §2): subscribed, paid, owed by members, owed to them.
  'share capital': () => [
    defaultRoleAccounts.shares_paid,
    defaultRoleAccounts.shares_unpaid,
    defaultRoleAccounts.members_capital,
    defaultRoleAccounts.capital_to_refund,
  ],
  // Suppliers (§12.5): each supplier's own 40110 sub-account, whose detail is its invoices, payments and open items.
  suppliers: (knex, enterpriseId) =>
    knex('suppliers').where({ enterprise_id: enterpriseId }).select('account_code as code'),
  // Fixed assets (§12.4): each category's asset and accumulated-depreciation accounts, whose detail is the register.
  'fixed assets': fixedAssetAccountsQuery,
  // Tills (issue 29, §13.1): each till's own 5712 sub-account, whose detail is its sessions, their counts and
  // differences.
  tills: (knex, enterpriseId) =>
    knex('tills').where({ enterprise_id: enterpriseId, kind: 'till' }).select('account_code as code'),
};

/** One source as rows of (position, subledger, code): a query's codes, or the fixed codes unnested. */
function sourceRows(
  knex: Knex | Knex.Transaction,
  position: number,
  subledger: string,
  found: Knex.QueryBuilder | readonly string[],
): Knex.QueryBuilder {
  const named = [knex.raw('?::int AS position', [position]), knex.raw('?::text AS subledger', [subledger])];
  return Array.isArray(found)
    ? knex.select(...named, knex.raw('unnest(?::text[]) AS code', [found]))
    : knex.from((found as Knex.QueryBuilder).as('source')).select(...named, 'source.code');
}

/**
 * Every account code some subledger of the enterprise keeps, with the subledger's name (the first listed): one query.
 */
export async function subledgerAccounts(
  knex: Knex | Knex.Transaction,
  enterpriseId: string,
): Promise<Map<string, string>> {
  const sources = Object.entries(subledgerSources).map(([subledger, source], position) =>
    sourceRows(knex, position, subledger, source(knex, enterpriseId)),
  );
  const rows: { subledger: string; code: string }[] = await knex
    .from(knex.raw(`(${sources.map(() => '?').join(' UNION ALL ')}) AS kept`, sources))
    .whereNotNull('code')
    .orderBy('position')
    .select('subledger', 'code');
  const accounts = new Map<string, string>();
  for (const row of rows) if (!accounts.has(row.code)) accounts.set(row.code, row.subledger);
  return accounts;
}
