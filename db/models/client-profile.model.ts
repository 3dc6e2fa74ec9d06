import { BaseModel } from './base.model';

export const clientKinds = ['natural_person', 'legal_entity'] as const;
export type ClientKind = (typeof clientKinds)[number];

/** Persons prove who they are with the first four; a legal entity with its business register (RCCM) number. */
export const idDocumentTypes = [
  'national_id',
  'passport',
  'residence_permit',
  'driving_licence',
  'business_register',
] as const;
export type IdDocumentType = (typeof idDocumentTypes)[number];

export const genders = ['female', 'male'] as const;
export type Gender = (typeof genders)[number];

export const clientStatuses = ['active', 'suspended', 'left'] as const;
export type ClientStatus = (typeof clientStatuses)[number];

export const riskLevels = ['low', 'medium', 'high'] as const;
export type RiskLevel = (typeof riskLevels)[number];

/** A member of the cooperative, attached to a home branch; `memberNumber` is given once and never changes. */
export class ClientProfile extends BaseModel {
  static override tableName = 'client_profiles';

  enterpriseId!: string;
  branchId!: string;
  memberNumber!: string;
  kind!: ClientKind;
  /** Natural persons only ('' for legal entities). */
  firstName!: string;
  lastName!: string;
  /** Legal entities only ('' for natural persons). */
  legalName!: string;
  idDocumentType!: IdDocumentType;
  idDocumentNumber!: string;
  idDocumentExpiry!: string | null;
  birthDate!: string | null;
  gender!: Gender | null;
  nationality!: string;
  phone!: string;
  email!: string;
  address!: string;
  city!: string;
  occupation!: string;
  membershipDate!: string;
  status!: ClientStatus;
  /** Why the member is suspended or left; '' while active. */
  statusReason!: string;
  riskLevel!: RiskLevel;
  politicallyExposed!: boolean;
  relatedParty!: boolean;
  /** Named among the initiateurs by direction: may hold founder shares. */
  founder!: boolean;
  createdBy!: string;
}
