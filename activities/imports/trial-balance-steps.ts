import type { Knex } from 'knex';
import { trialBalanceProblems } from '../../domain/imports/trial-balance-rules';
import { amountSql } from './import-sql';
import type { ImportKindSteps, ImportScope } from './import-steps';
import { anotherRow, checkAcrossRows, checkEachRow } from './row-checks';

/**
 * The trial-balance kind's steps (docs/domain.md §15.1): the general ledger's balances at the cut-over, by branch
 * and account. It has no detail of its own: it is what the other kinds' detail ties out to.
 */

/** The branches the trial balance may name: the enterprise's and those the import's branches-users file brings. */
async function importBranchCodes(trx: Knex.Transaction, scope: ImportScope): Promise<Set<string>> {
  const existing = (await trx('branches').where({ enterprise_id: scope.enterpriseId }).pluck('code')) as string[];
  const imported = (await trx('import_rows')
    .where({ import_id: scope.importId, kind: 'branches-users' })
    .distinct(trx.raw("data->>'branch_code' AS code"))) as { code: string }[];
  return new Set([...existing, ...imported.map((row) => row.code)]);
}

/** The accounts of the enterprise's chart a line may be posted to: active, without sub-accounts. */
async function postableAccounts(trx: Knex.Transaction, enterpriseId: string): Promise<Set<string>> {
  return new Set(
    (await trx('company_chart_entries as c')
      .join('company_chart_leaves as leaf', 'leaf.id', 'c.id')
      .where({ 'c.enterprise_id': enterpriseId, 'c.is_active': true })
      .pluck('c.code')) as string[],
  );
}

const lineSides = `SELECT r.row_number, r.data->>'branch_code' AS branch_code,
  left(r.data->>'account_code', 1) = '9' AS off_balance,
  ${amountSql("r.data->>'debit'")} AS debit, ${amountSql("r.data->>'credit'")} AS credit
  FROM import_rows r WHERE r.import_id = ? AND r.kind = 'trial-balance'`;

/**
 * Each branch's lines balanced, the off-balance ones (class 9) among themselves: one problem per branch on its first
 * line.
 */
async function checkBalancedBranches(trx: Knex.Transaction, scope: ImportScope): Promise<void> {
  await trx.raw(
    `INSERT INTO import_problems (enterprise_id, import_id, kind, row_number, "column", value, problem)
    SELECT ?, ?, 'trial-balance', min(row_number), 'branch_code', branch_code,
      format('the branch''s %s lines are not balanced: debit %s, credit %s', CASE WHEN off_balance
        THEN 'off-balance (class 9)' ELSE 'balance-sheet and result' END, sum(debit), sum(credit))
    FROM (${lineSides}) line WHERE coalesce(branch_code, '') <> '' GROUP BY branch_code, off_balance
      HAVING sum(debit) <> sum(credit)`,
    [scope.enterpriseId, scope.importId, scope.importId],
  );
}

export const trialBalanceSteps: ImportKindSteps = {
  async validate(trx: Knex.Transaction, scope: ImportScope) {
    const branchCodes = await importBranchCodes(trx, scope);
    const postable = await postableAccounts(trx, scope.enterpriseId);
    const yearStart =
      (await trx('exercices_comptables')
        .where({ enterprise_id: scope.enterpriseId, start_date: scope.cutOverDate })
        .first('id')) !== undefined;
    await checkEachRow(trx, scope, 'trial-balance', (data) =>
      trialBalanceProblems(data, { branchCodes, postable, yearStart }),
    );
    await checkAcrossRows(trx, scope, 'trial-balance', [
      {
        column: 'account_code',
        problem: 'the same branch and account as another line of the file',
        where: anotherRow(
          `o.data->>'branch_code' = r.data->>'branch_code' AND o.data->>'account_code' = r.data->>'account_code'`,
        ),
      },
    ]);
    await checkBalancedBranches(trx, scope);
  },
};
