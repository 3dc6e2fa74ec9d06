import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import { isUniqueViolation } from '../../db/errors';
import { Branch } from '../../db/models/branch.model';
import { inTransaction } from '../../db/transaction';
import { changedValues, recordAudit } from '../audit';
import { hasNoChanges } from '../changes';
import type { ActivityContext, Actor } from '../context';

export interface BranchFields {
  code: string;
  name: string;
  isHeadOffice: boolean;
  address: string;
  city: string;
  phone: string;
}

function conflictOf(error: unknown, code: string | undefined): unknown {
  if (isUniqueViolation(error, 'branches_code_unique')) {
    return new AppError('conflict', 'branch_code_taken', `The enterprise already has a branch with code ${code}.`);
  }
  return error;
}

/**
 * Before a branch becomes the head office, the current one stops being it, in the same transaction: an
 * enterprise has exactly one (a partial unique index guarantees it).
 */
async function demoteHeadOffice(trx: Knex.Transaction, enterpriseId: string): Promise<void> {
  await Branch.query(trx).where({ enterprise_id: enterpriseId, is_head_office: true }).patch({ isHeadOffice: false });
}

export async function createBranch(
  context: ActivityContext,
  actor: Actor,
  enterpriseId: string,
  fields: BranchFields,
): Promise<Branch> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      if (fields.isHeadOffice) await demoteHeadOffice(trx, enterpriseId);
      const branch = await Branch.query(trx).insertAndFetch({ enterpriseId, ...fields });
      await recordAudit(trx, actor, {
        action: 'branch.create',
        entityType: 'branch',
        entityId: branch.id,
        enterpriseId,
        details: { code: fields.code },
      });
      return branch;
    });
  } catch (error) {
    throw conflictOf(error, fields.code);
  }
}

export async function updateBranch(
  context: ActivityContext,
  actor: Actor,
  branchId: string,
  changes: Partial<BranchFields> & { status?: 'active' | 'closed' },
): Promise<Branch> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      const branch = await Branch.query(trx).findById(branchId).forUpdate();
      if (branch === undefined) throw new NotFoundError('The branch');
      if (hasNoChanges(changes)) return branch;
      if (changes.isHeadOffice === false && branch.isHeadOffice) {
        throw new AppError(
          'conflict',
          'head_office_required',
          'An enterprise keeps one head office: make another branch the head office instead.',
        );
      }
      if (changes.status === 'closed' && (changes.isHeadOffice ?? branch.isHeadOffice)) {
        throw new AppError('conflict', 'head_office_cannot_close', 'The head office cannot be closed.');
      }
      if (changes.isHeadOffice === true && !branch.isHeadOffice) await demoteHeadOffice(trx, branch.enterpriseId);
      const updated = await Branch.query(trx).patchAndFetchById(branchId, changes);
      await recordAudit(trx, actor, {
        action: 'branch.update',
        entityType: 'branch',
        entityId: branchId,
        enterpriseId: branch.enterpriseId,
        details: { ...changes },
        ...changedValues(changes, branch, updated),
      });
      return updated;
    });
  } catch (error) {
    throw conflictOf(error, changes.code);
  }
}
