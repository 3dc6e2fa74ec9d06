import * as yup from 'yup';
import {
  type ClientProfile,
  clientKinds,
  clientStatuses,
  genders,
  idDocumentTypes,
  riskLevels,
} from '../../../db/models/client-profile.model';
import { dateResponse, timestampResponse } from '../common.schemas';

/** A member (client profile) as the API answers it. */
export const clientSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    branch: yup.string().uuid().required(),
    member_number: yup.string().required(),
    kind: yup.string().oneOf(clientKinds).required(),
    first_name: yup.string().defined(),
    last_name: yup.string().defined(),
    legal_name: yup.string().defined(),
    id_document_type: yup.string().oneOf(idDocumentTypes).required(),
    id_document_number: yup.string().required(),
    id_document_expiry: yup.string().nullable().defined(),
    birth_date: dateResponse().nullable(),
    gender: yup.string().oneOf(genders).nullable().defined(),
    nationality: yup.string().required(),
    phone: yup.string().defined(),
    email: yup.string().defined(),
    address: yup.string().defined(),
    city: yup.string().defined(),
    occupation: yup.string().defined(),
    membership_date: dateResponse(),
    status: yup.string().oneOf(clientStatuses).required(),
    status_reason: yup
      .string()
      .defined()
      .meta({ description: "Why the member is suspended or left; '' while active." }),
    risk_level: yup.string().oneOf(riskLevels).required(),
    politically_exposed: yup.boolean().required(),
    related_party: yup.boolean().required(),
    founder: yup
      .boolean()
      .required()
      .meta({ description: 'Named among the founders (initiateurs) by direction: may hold founder shares.' }),
    created_by: yup.string().uuid().required(),
    created_at: timestampResponse(),
    updated_at: timestampResponse(),
  })
  .meta({ component: 'Client' });

export function serializeClient(client: ClientProfile) {
  return {
    id: client.id,
    enterprise: client.enterpriseId,
    branch: client.branchId,
    member_number: client.memberNumber,
    kind: client.kind,
    first_name: client.firstName,
    last_name: client.lastName,
    legal_name: client.legalName,
    id_document_type: client.idDocumentType,
    id_document_number: client.idDocumentNumber,
    id_document_expiry: client.idDocumentExpiry,
    birth_date: client.birthDate,
    gender: client.gender,
    nationality: client.nationality,
    phone: client.phone,
    email: client.email,
    address: client.address,
    city: client.city,
    occupation: client.occupation,
    membership_date: client.membershipDate,
    status: client.status,
    status_reason: client.statusReason,
    risk_level: client.riskLevel,
    politically_exposed: client.politicallyExposed,
    related_party: client.relatedParty,
    founder: client.founder,
    created_by: client.createdBy,
    created_at: client.createdAt.toISOString(),
    updated_at: client.updatedAt.toISOString(),
  };
}
