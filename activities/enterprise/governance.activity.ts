import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import { isUniqueViolation } from '../../db/errors';
import { Enterprise } from '../../db/models/enterprise.model';
import { GovernanceMember, type Office } from '../../db/models/governance-member.model';
import { GovernanceOrgan, type OrganKind } from '../../db/models/governance-organ.model';
import { inTransaction } from '../../db/transaction';
import { changedValues, recordAudit } from '../audit';
import { hasNoChanges } from '../changes';
import type { ActivityContext, Actor } from '../context';

export interface OrganFields {
  kind: OrganKind;
  name: string;
  description: string;
}

/** The kind is what the organ is: a wrong one is fixed by creating the right organ, not by relabelling. */
export type OrganChanges = Partial<Pick<OrganFields, 'name' | 'description'>>;

export interface MemberFields {
  fullName: string;
  office: Office;
  memberNumber: string;
  termStart: string;
}

export interface TermEnd {
  termEnd: string;
  reason: string;
}

function conflictOf(error: unknown): unknown {
  if (isUniqueViolation(error, 'governance_organs_kind_unique')) {
    return new AppError('conflict', 'organ_kind_taken', 'The enterprise already has an organ of this kind.');
  }
  if (isUniqueViolation(error, 'governance_members_one_chair')) {
    return new AppError(
      'conflict',
      'chair_already_serving',
      'The organ already has a serving chair: end that term first.',
    );
  }
  return error;
}

function assertTermOrdered(termStart: string, termEnd: string | null): void {
  if (termEnd !== null && termEnd < termStart) {
    throw new AppError(
      'conflict',
      'term_end_before_start',
      `The term cannot end (${termEnd}) before it starts (${termStart}).`,
    );
  }
}

export async function createOrgan(
  context: ActivityContext,
  actor: Actor,
  enterpriseId: string,
  fields: OrganFields,
): Promise<GovernanceOrgan> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      // An unknown enterprise (a platform administrator's typo) is a 404, not a foreign-key failure.
      if ((await Enterprise.query(trx).findById(enterpriseId)) === undefined) throw new NotFoundError('The enterprise');
      const organ = await GovernanceOrgan.query(trx).insertAndFetch({ enterpriseId, ...fields });
      await recordAudit(trx, actor, {
        action: 'governance_organ.create',
        entityType: 'governance_organ',
        entityId: organ.id,
        enterpriseId,
        details: { kind: fields.kind, name: fields.name },
      });
      return organ;
    });
  } catch (error) {
    throw conflictOf(error);
  }
}

export async function updateOrgan(
  context: ActivityContext,
  actor: Actor,
  organId: string,
  changes: OrganChanges,
): Promise<GovernanceOrgan> {
  return inTransaction(context.knex, async (trx) => {
    const organ = await GovernanceOrgan.query(trx).findById(organId).forUpdate();
    if (organ === undefined) throw new NotFoundError('The governance organ');
    if (hasNoChanges(changes)) return organ;
    const updated = await GovernanceOrgan.query(trx).patchAndFetchById(organId, changes);
    await recordAudit(trx, actor, {
      action: 'governance_organ.update',
      entityType: 'governance_organ',
      entityId: organId,
      enterpriseId: organ.enterpriseId,
      details: { ...changes },
      ...changedValues(changes, organ, updated),
    });
    return updated;
  });
}

export async function appointMember(
  context: ActivityContext,
  actor: Actor,
  organId: string,
  fields: MemberFields,
): Promise<GovernanceMember> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      const organ = await GovernanceOrgan.query(trx).findById(organId);
      if (organ === undefined) throw new NotFoundError('The governance organ');
      const member = await GovernanceMember.query(trx).insertAndFetch({
        enterpriseId: organ.enterpriseId,
        organId,
        ...fields,
      });
      await recordAudit(trx, actor, {
        action: 'governance_member.appoint',
        entityType: 'governance_member',
        entityId: member.id,
        enterpriseId: organ.enterpriseId,
        details: { organ: organId, ...fields },
      });
      return member;
    });
  } catch (error) {
    throw conflictOf(error);
  }
}

/** The mandate, locked against concurrent changes, with its enterprise (the audit trail is per enterprise). */
async function lockMember(
  trx: Knex.Transaction,
  memberId: string,
): Promise<{ member: GovernanceMember; enterpriseId: string }> {
  const member = await GovernanceMember.query(trx).findById(memberId).forUpdate();
  if (member === undefined) throw new NotFoundError('The governance member');
  const organ = await GovernanceOrgan.query(trx).findById(member.organId).throwIfNotFound();
  return { member, enterpriseId: organ.enterpriseId };
}

/** Corrects a mandate (a misspelt name, a wrong start date), ended ones included: the record must be right. */
export async function updateMember(
  context: ActivityContext,
  actor: Actor,
  memberId: string,
  changes: Partial<MemberFields>,
): Promise<GovernanceMember> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      const { member, enterpriseId } = await lockMember(trx, memberId);
      if (hasNoChanges(changes)) return member;
      assertTermOrdered(changes.termStart ?? member.termStart, member.termEnd);
      const updated = await GovernanceMember.query(trx).patchAndFetchById(memberId, changes);
      await recordAudit(trx, actor, {
        action: 'governance_member.update',
        entityType: 'governance_member',
        entityId: memberId,
        enterpriseId,
        details: { ...changes },
        ...changedValues(changes, member, updated),
      });
      return updated;
    });
  } catch (error) {
    throw conflictOf(error);
  }
}

/** Ends a mandate once; a later return to the organ is a new appointment, so the history keeps both. */
export async function endMemberTerm(
  context: ActivityContext,
  actor: Actor,
  memberId: string,
  end: TermEnd,
): Promise<GovernanceMember> {
  return inTransaction(context.knex, async (trx) => {
    const { member, enterpriseId } = await lockMember(trx, memberId);
    if (member.termEnd !== null) {
      throw new AppError('conflict', 'term_already_ended', `This term already ended on ${member.termEnd}.`);
    }
    assertTermOrdered(member.termStart, end.termEnd);
    const updated = await GovernanceMember.query(trx).patchAndFetchById(memberId, {
      termEnd: end.termEnd,
      endedReason: end.reason,
    });
    await recordAudit(trx, actor, {
      action: 'governance_member.end_term',
      entityType: 'governance_member',
      entityId: memberId,
      enterpriseId,
      details: { ...end },
    });
    return updated;
  });
}
