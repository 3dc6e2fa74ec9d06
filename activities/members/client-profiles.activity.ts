import type { Knex } from 'knex';
import { AppError, NotFoundError, ValidationError, type FieldError } from '../../domain/errors';
import { isUniqueViolation } from '../../db/errors';
import { Branch } from '../../db/models/branch.model';
import {
  ClientProfile,
  type ClientKind,
  type ClientStatus,
  type Gender,
  type IdDocumentType,
  type RiskLevel,
} from '../../db/models/client-profile.model';
import { nextSequenceValue } from '../../db/sequences';
import { inTransaction } from '../../db/transaction';
import { changedValues, recordAudit } from '../audit';
import { hasNoChanges } from '../changes';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';

export interface ClientProfileFields {
  firstName: string;
  lastName: string;
  legalName: string;
  idDocumentType: IdDocumentType;
  idDocumentNumber: string;
  idDocumentExpiry: string | null;
  birthDate: string | null;
  gender: Gender | null;
  nationality: string;
  phone: string;
  email: string;
  address: string;
  city: string;
  occupation: string;
  riskLevel: RiskLevel;
  politicallyExposed: boolean;
  relatedParty: boolean;
}

export interface NewClientProfile extends ClientProfileFields {
  enterpriseId: string;
  branchId: string;
  kind: ClientKind;
  /** Absent: the enterprise's business date. */
  membershipDate?: string;
}

/** The member number, the enterprise and the kind are what the member is: they never change. */
export type ClientProfileChanges = Partial<ClientProfileFields & { branchId: string; membershipDate: string }>;

export type StatusAction = 'suspend' | 'reactivate' | 'leave';

const minimumAge = 16;

function conflictOf(error: unknown): unknown {
  if (isUniqueViolation(error, 'client_profiles_identity_unique')) {
    return new AppError(
      'conflict',
      'member_already_registered',
      'A member with this identity document is already registered in the enterprise.',
    );
  }
  return error;
}

/** The branch a member joins or moves to: of the member's enterprise and open. */
async function openBranch(trx: Knex.Transaction, enterpriseId: string, branchId: string): Promise<Branch> {
  // FOR SHARE: the branch cannot be closed between this check and our commit.
  const branch = await Branch.query(trx).findById(branchId).forShare();
  if (branch === undefined || branch.enterpriseId !== enterpriseId) throw new NotFoundError('The branch');
  if (branch.status !== 'active')
    throw new AppError(
      'conflict',
      'branch_closed',
      `The branch ${branch.code} is closed: no member can be attached to it.`,
    );
  return branch;
}

type Profile = Pick<
  ClientProfile,
  | 'kind'
  | 'firstName'
  | 'lastName'
  | 'legalName'
  | 'idDocumentType'
  | 'idDocumentExpiry'
  | 'birthDate'
  | 'gender'
  | 'membershipDate'
>;
type KindField = 'first_name' | 'last_name' | 'legal_name' | 'birth_date' | 'gender';

/** What each kind must have and must not have (the database check says the same; this names the fields). */
const kindRules: Record<ClientKind, { label: string; required: KindField[]; forbidden: KindField[] }> = {
  natural_person: {
    label: 'a natural person',
    required: ['first_name', 'last_name', 'birth_date'],
    forbidden: ['legal_name'],
  },
  legal_entity: {
    label: 'a legal entity',
    required: ['legal_name'],
    forbidden: ['first_name', 'last_name', 'birth_date', 'gender'],
  },
};

function kindProblems(profile: Profile): FieldError[] {
  const values: Record<KindField, string | null> = {
    first_name: profile.firstName,
    last_name: profile.lastName,
    legal_name: profile.legalName,
    birth_date: profile.birthDate,
    gender: profile.gender,
  };
  const present = (field: KindField) => values[field] !== '' && values[field] !== null;
  const { label, required, forbidden } = kindRules[profile.kind];
  const problems: FieldError[] = [
    ...required
      .filter((field) => !present(field))
      .map((field) => ({ field, message: `${field} is required for ${label}` })),
    ...forbidden.filter(present).map((field) => ({ field, message: `${field} does not apply to ${label}` })),
  ];
  if ((profile.idDocumentType === 'business_register') !== (profile.kind === 'legal_entity')) {
    const expected =
      profile.kind === 'legal_entity'
        ? 'business_register'
        : 'national_id, passport, residence_permit or driving_licence';
    problems.push({ field: 'id_document_type', message: `id_document_type of ${label} must be ${expected}` });
  }
  return problems;
}

/** The same day `years` earlier, as text: compared as YYYY-MM-DD, even from a 29 February it orders right. */
function yearsBefore(date: string, years: number): string {
  return `${String(Number(date.slice(0, 4)) - years).padStart(4, '0')}${date.slice(4)}`;
}

/** Rules of the business date: nobody joins in the future, a member is 16 when joining, documents are valid. */
function dateProblems(profile: Profile, businessDate: string, documentRecorded: boolean): FieldError[] {
  const problems: FieldError[] = [];
  if (profile.membershipDate > businessDate) {
    problems.push({
      field: 'membership_date',
      message: `membership_date cannot be after the business date ${businessDate}`,
    });
  }
  if (profile.birthDate !== null && profile.birthDate > yearsBefore(profile.membershipDate, minimumAge)) {
    problems.push({
      field: 'birth_date',
      message: `the member must be at least ${minimumAge} on the membership date ${profile.membershipDate}`,
    });
  }
  // Checked when a document is recorded only: a document expiring later does not block other corrections.
  if (documentRecorded && profile.idDocumentExpiry !== null && profile.idDocumentExpiry < businessDate) {
    problems.push({
      field: 'id_document_expiry',
      message: `the identity document expired before the business date ${businessDate}`,
    });
  }
  return problems;
}

function assertValid(profile: Profile, businessDate: string, documentRecorded: boolean): void {
  const problems = [...kindProblems(profile), ...dateProblems(profile, businessDate, documentRecorded)];
  if (problems.length > 0) throw new ValidationError(problems);
}

/** Registers a member, numbered `{branch code}-{n}` from the branch's gap-free counter. */
export async function createClientProfile(
  context: ActivityContext,
  actor: Actor,
  input: NewClientProfile,
): Promise<ClientProfile> {
  const { enterpriseId, branchId } = input;
  try {
    return await inTransaction(context.knex, async (trx) => {
      const branch = await openBranch(trx, enterpriseId, branchId);
      const businessDate = await businessDateOf(trx, enterpriseId, context.clock());
      const profile = { ...input, membershipDate: input.membershipDate ?? businessDate };
      assertValid(profile, businessDate, true);
      // Numbered once everything else is checked; a duplicate document refused by the insert rolls the
      // number back with the rest, so the branch's numbers stay gap-free.
      const number = await nextSequenceValue(trx, { name: 'member', enterpriseId, branchId });
      const memberNumber = `${branch.code}-${String(number).padStart(6, '0')}`;
      const client = await ClientProfile.query(trx).insertAndFetch({
        ...profile,
        memberNumber,
        createdBy: actor.userId,
      });
      await recordAudit(trx, actor, {
        action: 'client_profile.create',
        entityType: 'client_profile',
        entityId: client.id,
        enterpriseId,
        details: { memberNumber, kind: input.kind, branchId },
      });
      return client;
    });
  } catch (error) {
    throw conflictOf(error);
  }
}

function definedOnly<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * Corrects a member's record or moves the member to another branch of the enterprise (audited with the branch left).
 */
export async function updateClientProfile(
  context: ActivityContext,
  actor: Actor,
  clientId: string,
  changes: ClientProfileChanges,
): Promise<ClientProfile> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      const client = await ClientProfile.query(trx).findById(clientId).forUpdate();
      if (client === undefined) throw new NotFoundError('The member');
      if (hasNoChanges(changes)) return client;
      const target = changes.branchId;
      const moved = target !== undefined && target !== client.branchId;
      if (moved) await openBranch(trx, client.enterpriseId, target);
      const businessDate = await businessDateOf(trx, client.enterpriseId, context.clock());
      assertValid({ ...client, ...definedOnly(changes) }, businessDate, changes.idDocumentExpiry !== undefined);
      const updated = await ClientProfile.query(trx).patchAndFetchById(clientId, changes);
      const details = moved ? { ...changes, previousBranchId: client.branchId } : { ...changes };
      await recordAudit(trx, actor, {
        action: 'client_profile.update',
        entityType: 'client_profile',
        entityId: clientId,
        enterpriseId: client.enterpriseId,
        details,
        ...changedValues(changes, client, updated),
      });
      return updated;
    });
  } catch (error) {
    throw conflictOf(error);
  }
}

const transitions: Record<StatusAction, { from: readonly ClientStatus[]; to: ClientStatus; verb: string }> = {
  suspend: { from: ['active'], to: 'suspended', verb: 'be suspended' },
  reactivate: { from: ['suspended'], to: 'active', verb: 'be reactivated' },
  leave: { from: ['active', 'suspended'], to: 'left', verb: 'leave' },
};

/**
 * A member leaves with nothing left here: their accounts closed (emptied), their shares withdrawn and refunded.
 * Opening an account, subscribing or withdrawing shares lock the member row too, so nothing can appear between
 * these checks and the change of status.
 */
async function assertNothingLeft(trx: Knex.Transaction, client: ClientProfile): Promise<void> {
  if (
    (await trx('comptes_clients').where({ client_id: client.id }).whereNot('status', 'closed').first('id')) !==
    undefined
  ) {
    throw new AppError(
      'conflict',
      'member_has_open_accounts',
      `The member ${client.memberNumber} still has open accounts: close them first.`,
    );
  }
  if (
    (await trx('share_subscriptions')
      .where({ client_id: client.id })
      .whereRaw('shares > withdrawn_shares')
      .first('id')) !== undefined
  ) {
    throw new AppError(
      'conflict',
      'member_has_shares',
      `The member ${client.memberNumber} still holds shares: withdraw them first.`,
    );
  }
  if (
    (await trx('share_withdrawals')
      .where({ client_id: client.id })
      .whereIn('status', ['notice', 'effective'])
      .first('id')) !== undefined
  ) {
    throw new AppError(
      'conflict',
      'member_refund_pending',
      `A withdrawal of the member ${client.memberNumber} is in notice or awaits its refund.`,
    );
  }
}

/**
 * Names a member among the founders (initiateurs) or removes them, with a reason: only founders hold founder shares.
 * Audited.
 */
export async function setFounder(
  context: ActivityContext,
  actor: Actor,
  clientId: string,
  founder: boolean,
  reason: string,
): Promise<ClientProfile> {
  return inTransaction(context.knex, async (trx) => {
    const client = await ClientProfile.query(trx).findById(clientId).forUpdate();
    if (client === undefined) throw new NotFoundError('The member');
    if (client.founder === founder) return client;
    const updated = await ClientProfile.query(trx).patchAndFetchById(clientId, { founder });
    await recordAudit(trx, actor, {
      action: founder ? 'client_profile.name_founder' : 'client_profile.unname_founder',
      entityType: 'client_profile',
      entityId: clientId,
      enterpriseId: client.enterpriseId,
      details: { reason },
    });
    return updated;
  });
}

/** Suspends (with a reason), reactivates, or records that the member left: final. Audited with the reason. */
export async function setClientStatus(
  context: ActivityContext,
  actor: Actor,
  clientId: string,
  action: StatusAction,
  reason: string,
): Promise<ClientProfile> {
  const { from, to, verb } = transitions[action];
  if (to !== 'active' && reason.trim() === '')
    throw new ValidationError([{ field: 'reason', message: 'reason is required' }]);
  return inTransaction(context.knex, async (trx) => {
    const client = await ClientProfile.query(trx).findById(clientId).forUpdate();
    if (client === undefined) throw new NotFoundError('The member');
    if (!from.includes(client.status)) {
      throw new AppError(
        'conflict',
        'invalid_status_transition',
        `The member ${client.memberNumber} is ${client.status}: they cannot ${verb}.`,
      );
    }
    if (to === 'left') await assertNothingLeft(trx, client);
    // The stored reason explains the status in force, so an active member has none; the audit keeps them all.
    const updated = await ClientProfile.query(trx).patchAndFetchById(clientId, {
      status: to,
      statusReason: to === 'active' ? '' : reason,
    });
    await recordAudit(trx, actor, {
      action: `client_profile.${action}`,
      entityType: 'client_profile',
      entityId: clientId,
      enterpriseId: client.enterpriseId,
      details: { from: client.status, to, reason },
    });
    return updated;
  });
}
