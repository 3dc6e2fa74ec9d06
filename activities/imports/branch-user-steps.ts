import type { Knex } from 'knex';
import { branchUserProblems, rolesGrantedAtOnce } from '../../domain/imports/branch-user-rules';
import type { ImportKindSteps, ImportScope } from './import-steps';
import { anotherRow, checkAcrossRows, checkEachRow, type CrossCheck } from './row-checks';

/**
 * The branches-users kind's steps (docs/domain.md §15.3): a row names a branch (new to the enterprise, or one it has
 * under the same name) and, if any, one user of it with one role. Nothing is posted: a branch comes with its vault
 * (a trigger of the branches table) and has no balance until the opening entries.
 */

const sameBranchCode = `o.import_id = r.import_id AND o.kind = r.kind
  AND o.data->>'branch_code' = r.data->>'branch_code'`;

const branchUserChecks: readonly CrossCheck[] = [
  {
    column: 'branch_name',
    problem: 'the branch code is given another name in another row',
    where: `EXISTS (SELECT 1 FROM import_rows o WHERE ${sameBranchCode}
      AND o.data->>'branch_name' <> r.data->>'branch_name')`,
  },
  {
    column: 'branch_code',
    problem: 'already a branch of the enterprise, under another name',
    where: `EXISTS (SELECT 1 FROM branches b WHERE b.enterprise_id = i.enterprise_id AND b.code = r.data->>'branch_code'
      AND b.name <> r.data->>'branch_name')`,
  },
  {
    column: 'username',
    problem: 'twice in the file (one row per user)',
    where: anotherRow(`lower(o.data->>'username') = lower(r.data->>'username')`),
  },
  {
    column: 'username',
    problem: 'already a user of the platform',
    where: `EXISTS (SELECT 1 FROM users u WHERE u.username = lower(r.data->>'username'))`,
  },
];

/** The branch of the code, created by this import when the enterprise has none of that code. */
async function branchOf(trx: Knex.Transaction, scope: ImportScope, data: Record<string, string>): Promise<string> {
  await trx('branches')
    .insert({
      enterprise_id: scope.enterpriseId,
      code: data.branch_code,
      name: data.branch_name,
      import_id: scope.importId,
    })
    .onConflict(['enterprise_id', 'code'])
    .ignore();
  return (
    (await trx('branches').where({ enterprise_id: scope.enterpriseId, code: data.branch_code }).first('id')) as {
      id: string;
    }
  ).id;
}

export const branchUserSteps: ImportKindSteps = {
  async validate(trx: Knex.Transaction, scope: ImportScope) {
    await checkEachRow(trx, scope, 'branches-users', branchUserProblems);
    await checkAcrossRows(trx, scope, 'branches-users', branchUserChecks);
  },

  /**
   * The branches, then each user with no password (they set theirs through an invitation) and, for a cashier, the
   * role at once. A role above cashier is left to an administrator under `role_grant.above_cashier`: its deciders
   * are not the import's, so the import's approval does not stand for theirs.
   */
  async applyBatch(trx, _context, scope, afterRow, limit) {
    const rows = (await trx('import_rows')
      .where({ import_id: scope.importId, kind: 'branches-users' })
      .where('row_number', '>', afterRow)
      .orderBy('row_number')
      .limit(limit)
      .select('row_number', 'data')) as { row_number: number; data: Record<string, string> }[];
    if (rows.length === 0) return null;
    const { uploaded_by: grantedBy } = (await trx('imports').where({ id: scope.importId }).first('uploaded_by')) as {
      uploaded_by: string;
    };
    for (const { data } of rows) {
      const branchId = await branchOf(trx, scope, data);
      if ((data.username ?? '') === '') continue;
      // 'invited': never a password hash, so no password signs in until the user sets one
      // (activities/auth/create-user.activity.ts).
      const [user] = (await trx('users')
        .insert({
          username: data.username!.toLowerCase(),
          password_hash: 'invited',
          full_name: data.full_name,
          import_id: scope.importId,
        })
        .returning('id')) as { id: string }[];
      if (rolesGrantedAtOnce.includes(data.role!))
        await trx('role_grants').insert({
          user_id: user!.id,
          role: data.role,
          enterprise_id: scope.enterpriseId,
          branch_id: branchId,
          granted_by: grantedBy,
        });
    }
    return rows.at(-1)!.row_number;
  },

  /** The import's users deactivated, its branches closed; those the enterprise had before are left as they were. */
  async cancel(trx: Knex.Transaction, scope: ImportScope) {
    await trx('users').where({ import_id: scope.importId }).update({ is_active: false });
    await trx('branches').where({ import_id: scope.importId }).update({ status: 'closed' });
  },
};
