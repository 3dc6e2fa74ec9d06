import { NotFoundError } from '../../domain/errors';
import { CooperativeProfile } from '../../db/models/cooperative-profile.model';
import { inTransaction } from '../../db/transaction';
import { changedValues, recordAudit } from '../audit';
import { hasNoChanges } from '../changes';
import type { ActivityContext, Actor } from '../context';

export type ProfileChanges = Partial<
  Pick<CooperativeProfile, 'approvalNumber' | 'category' | 'foundingDate' | 'headOfficeAddress' | 'registrationNumber'>
>;

/** Changes the cooperative's legal identity (approval, category, register), with its audit entry. */
export async function updateProfile(
  context: ActivityContext,
  actor: Actor,
  enterpriseId: string,
  changes: ProfileChanges,
): Promise<CooperativeProfile> {
  return inTransaction(context.knex, async (trx) => {
    const profile = await CooperativeProfile.query(trx).findOne({ enterprise_id: enterpriseId }).forUpdate();
    if (profile === undefined) throw new NotFoundError('The cooperative profile');
    if (hasNoChanges(changes)) return profile;
    const updated = await CooperativeProfile.query(trx).patchAndFetchById(profile.id, changes);
    await recordAudit(trx, actor, {
      action: 'profile.update',
      entityType: 'profile',
      entityId: profile.id,
      enterpriseId,
      details: { ...changes },
      ...changedValues(changes, profile, updated),
    });
    return updated;
  });
}
