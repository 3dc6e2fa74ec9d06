import { isPlatformAdmin } from '../../domain/access';
import { AppError } from '../../domain/errors';
import { isUniqueViolation } from '../../db/errors';
import { AccountPlan } from '../../db/models/account-plan.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';

export interface AccountPlanFields {
  code: string;
  name: string;
  description: string;
}

/**
 * Registers a standard plan, empty: plans are shared by every enterprise, so platform administrators only.
 * Loading the records of a custom plan is not offered yet; the PCEMF 2010 comes with its records.
 */
export async function createAccountPlan(
  context: ActivityContext,
  actor: Actor,
  fields: AccountPlanFields,
): Promise<AccountPlan> {
  if (!isPlatformAdmin(actor.grants)) {
    throw new AppError('forbidden', 'role_required', 'Only a platform administrator may create an account plan.');
  }
  try {
    return await inTransaction(context.knex, async (trx) => {
      const plan = await AccountPlan.query(trx).insertAndFetch(fields);
      await recordAudit(trx, actor, {
        action: 'account_plan.create',
        entityType: 'account_plan',
        entityId: plan.id,
        enterpriseId: null,
        details: { code: fields.code },
      });
      return plan;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'account_plans_code_unique')) {
      throw new AppError('conflict', 'plan_code_taken', `An account plan with code ${fields.code} already exists.`);
    }
    throw error;
  }
}
