import type { Knex } from 'knex';
import { AppError } from '../../domain/errors';

export interface PostableAccount {
  id: string;
  code: string;
}

/**
 * The enterprise's chart entries for `codes`, each checked postable: known in this enterprise's chart,
 * active, and a leaf (totals accounts are never posted to directly). Refuses with the first problem found.
 */
export async function postableAccounts(
  trx: Knex.Transaction | Knex,
  enterpriseId: string,
  codes: readonly string[],
): Promise<Map<string, PostableAccount>> {
  const rows: { id: string; code: string; is_active: boolean; is_leaf: boolean }[] = await trx(
    'company_chart_entries as c',
  )
    .where('c.enterprise_id', enterpriseId)
    .whereIn('c.code', [...new Set(codes)])
    // Key-share locks, the lightest that conflict with FOR UPDATE: an account cannot get a sub-account (stop
    // being a leaf) or be deactivated while we post to it, and concurrent postings do not wait for each other.
    .forKeyShare()

    .select(
      'c.id',
      'c.code',
      'c.is_active',
      // company_chart_leaves is the one definition of a leaf (see the chart migration).
      trx.raw('EXISTS (SELECT 1 FROM company_chart_leaves leaf WHERE leaf.id = c.id) AS is_leaf'),
    );
  const found = new Map(rows.map((row) => [row.code, row]));
  for (const code of codes) {
    const row = found.get(code);
    if (row === undefined)
      throw new AppError('unprocessable', 'account_unknown', `Account ${code} is not in the enterprise's chart.`);
    if (!row.is_active) throw new AppError('unprocessable', 'account_inactive', `Account ${code} is deactivated.`);
    if (!row.is_leaf)
      throw new AppError('unprocessable', 'account_not_leaf', `Account ${code} has sub-accounts: post to one of them.`);
  }
  return new Map(rows.map((row) => [row.code, { id: row.id, code: row.code }]));
}
