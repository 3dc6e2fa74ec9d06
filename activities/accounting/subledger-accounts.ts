import type { Knex } from 'knex';
import { doubtfulAccounts, provisionAccounts } from '../../domain/loans/doubtful-accounts';
import { defaultRoleAccounts } from '../events/default-rules';

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
  'member deposits': (knex, enterpriseId) => knex('savings_products').where({ enterprise_id: enterpriseId }).select('deposit_account_code as code'),
  'accrued interest on deposits': (knex, enterpriseId) => knex('savings_products').where({ enterprise_id: enterpriseId }).select('accrued_interest_account_code as code'),
  // Loans: each product's portfolio and accrued interest, then the accounts a loan moves to as it ages.
  'loan portfolio': (knex, enterpriseId) => knex('loan_products').where({ enterprise_id: enterpriseId }).select('portfolio_account_code as code'),
  'accrued interest on loans': (knex, enterpriseId) => knex('loan_products').where({ enterprise_id: enterpriseId }).select('accrued_interest_account_code as code'),
  'overdue and doubtful loans': () => [defaultRoleAccounts.overdue_receivables, ...doubtfulAccounts],
  'loan provisions': () => provisionAccounts,
  // Share capital by member (docs/domain.md §2): subscribed, paid, owed by members, owed to them.
  'share capital': () => [defaultRoleAccounts.shares_paid, defaultRoleAccounts.shares_unpaid, defaultRoleAccounts.members_capital, defaultRoleAccounts.capital_to_refund],
  // Suppliers (§12.5): each supplier's own 40110 sub-account, whose detail is its invoices, payments and open items.
  'suppliers': (knex, enterpriseId) => knex('suppliers').where({ enterprise_id: enterpriseId }).select('account_code as code'),
  // Fixed assets (§12.4): each category's asset and accumulated-depreciation accounts, whose detail is the register.
  'fixed assets': (knex, enterpriseId) => knex('fixed_asset_categories').where({ enterprise_id: enterpriseId }).select('asset_account_code as code'),
  'accumulated depreciation': (knex, enterpriseId) => knex('fixed_asset_categories').where({ enterprise_id: enterpriseId }).select('depreciation_account_code as code'),
  // Tills (issue 29, §13.1): each till's own 5712 sub-account, whose detail is its sessions, their counts and differences.
  'tills': (knex, enterpriseId) => knex('tills').where({ enterprise_id: enterpriseId, kind: 'till' }).select('account_code as code'),
};

/** Every account code some subledger of the enterprise keeps, with the subledger's name. */
export async function subledgerAccounts(knex: Knex | Knex.Transaction, enterpriseId: string): Promise<Map<string, string>> {
  const accounts = new Map<string, string>();
  for (const [subledger, source] of Object.entries(subledgerSources)) {
    const found = source(knex, enterpriseId);
    const codes = Array.isArray(found) ? (found as readonly string[]) : ((await found) as { code: string }[]).map((row) => row.code);
    for (const code of codes) if (!accounts.has(code)) accounts.set(code, subledger);
  }
  return accounts;
}
