import * as yup from 'yup';
import type { CooperativeProfile } from '../../../db/models/cooperative-profile.model';
import { dateResponse, timestampResponse } from '../common.schemas';

/** COBAC EMF categories. */
export const categories = ['1', '2', '3'] as const;

export const profileSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    approval_number: yup.string().defined().meta({ description: 'COBAC approval (agrément) number.' }),
    category: yup.string().oneOf(categories).nullable().defined().meta({ description: 'COBAC EMF category.' }),
    founding_date: dateResponse().nullable(),
    head_office_address: yup.string().defined(),
    registration_number: yup.string().defined().meta({ description: 'RCCM or cooperative register number.' }),
    updated_at: timestampResponse(),
  })
  .meta({ component: 'Profile' });

export function serializeProfile(profile: CooperativeProfile) {
  return {
    id: profile.id,
    enterprise: profile.enterpriseId,
    approval_number: profile.approvalNumber,
    category: profile.category,
    founding_date: profile.foundingDate,
    head_office_address: profile.headOfficeAddress,
    registration_number: profile.registrationNumber,
    updated_at: profile.updatedAt.toISOString(),
  };
}
