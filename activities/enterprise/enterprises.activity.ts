import { isPlatformAdmin } from '../../domain/access';
import { civilYearOf, dateIn } from '../../domain/calendar';
import { AppError } from '../../domain/errors';
import { defaultProvisioningLadder } from '../../domain/provisioning-ladder';
import { isUniqueViolation } from '../../db/errors';
import { Branch } from '../../db/models/branch.model';
import { CooperativeProfile } from '../../db/models/cooperative-profile.model';
import { Enterprise } from '../../db/models/enterprise.model';
import { EnterpriseConfiguration } from '../../db/models/enterprise-configuration.model';
import { ExerciceComptable } from '../../db/models/exercice-comptable.model';
import { inTransaction } from '../../db/transaction';
import { createCompanyChart } from '../accounts/company-chart';
import { seedDefaultRules } from '../events/default-rules';
import { changedValues, recordAudit } from '../audit';
import { hasNoChanges } from '../changes';
import type { ActivityContext, Actor } from '../context';

export interface CreateEnterpriseInput {
  code: string;
  name: string;
  legalForm: string;
  country: string;
  timeZone: string;
  headOffice: { code: string; name: string; address: string; city: string };
}

/**
 * Creates a cooperative ready to use, in one transaction: the enterprise, its chart of accounts, its
 * head-office branch, an open accounting year for the current civil year (in its time zone), its default
 * configuration, an empty profile and the default accounting rules (one per event kind). Platform administrators only.
 */
export async function createEnterprise(
  context: ActivityContext,
  actor: Actor,
  input: CreateEnterpriseInput,
): Promise<Enterprise> {
  if (!isPlatformAdmin(actor.grants)) {
    throw new AppError('forbidden', 'role_required', 'Only a platform administrator may create an enterprise.');
  }
  const year = civilYearOf(dateIn(input.timeZone, context.clock()));
  try {
    return await inTransaction(context.knex, async (trx) => {
      const enterprise = await Enterprise.query(trx).insertAndFetch({
        code: input.code,
        name: input.name,
        legalForm: input.legalForm,
        country: input.country,
      });
      const enterpriseId = enterprise.id;
      await createCompanyChart(trx, enterpriseId);
      await Branch.query(trx).insert({ enterpriseId, ...input.headOffice, isHeadOffice: true });
      await ExerciceComptable.query(trx).insert({
        enterpriseId,
        code: year.code,
        startDate: year.startDate,
        endDate: year.endDate,
      });
      await EnterpriseConfiguration.query(trx).insert({
        enterpriseId,
        timeZone: input.timeZone,
        provisioningLadder: [...defaultProvisioningLadder],
      });
      await CooperativeProfile.query(trx).insert({ enterpriseId });
      await seedDefaultRules(trx, enterpriseId);
      await recordAudit(trx, actor, {
        action: 'enterprise.create',
        entityType: 'enterprise',
        entityId: enterpriseId,
        enterpriseId,
        details: { code: input.code },
      });
      return enterprise;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'enterprises_code_unique')) {
      throw new AppError('conflict', 'enterprise_code_taken', `An enterprise with code ${input.code} already exists.`);
    }
    throw error;
  }
}

export interface UpdateEnterpriseInput {
  name?: string;
  legalForm?: string;
  status?: 'active' | 'suspended';
}

export async function updateEnterprise(
  context: ActivityContext,
  actor: Actor,
  enterpriseId: string,
  changes: UpdateEnterpriseInput,
): Promise<Enterprise> {
  return inTransaction(context.knex, async (trx) => {
    const current = await Enterprise.query(trx).findById(enterpriseId).forUpdate().throwIfNotFound();
    if (hasNoChanges(changes)) return current;
    const updated = await Enterprise.query(trx).patchAndFetchById(enterpriseId, changes);
    await recordAudit(trx, actor, {
      action: 'enterprise.update',
      entityType: 'enterprise',
      entityId: enterpriseId,
      enterpriseId,
      details: { ...changes },
      ...changedValues(changes, current, updated),
    });
    return updated;
  });
}
