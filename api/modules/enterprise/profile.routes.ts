import type { Knex } from 'knex';
import * as yup from 'yup';
import { updateProfile } from '../../../activities/enterprise/profile.activity';
import { NotFoundError } from '../../../domain/errors';
import { CooperativeProfile } from '../../../db/models/cooperative-profile.model';
import { defineRoute } from '../../route';
import { enterpriseLoaders } from './enterprise.queries';
import { dateResponse, isoDate, timestampResponse } from '../common.schemas';

const writers = ['direction', 'admin'] as const;
const categories = ['1', '2', '3'] as const;
// One profile per enterprise, reached through it: no flat variant, no id in the path.
const path = '/api/v1/enterprise/enterprises/{enterprise_pk}/profile/';
const params = yup.object({ enterprise_pk: yup.string().uuid().required().meta({ description: 'The enterprise.' }) });

const profileSchema = yup.object({
  id: yup.string().uuid().required(),
  enterprise: yup.string().uuid().required(),
  approval_number: yup.string().defined().meta({ description: 'COBAC approval (agrément) number.' }),
  category: yup.string().oneOf(categories).nullable().defined().meta({ description: 'COBAC EMF category.' }),
  founding_date: dateResponse().nullable(),
  head_office_address: yup.string().defined(),
  registration_number: yup.string().defined().meta({ description: 'RCCM or cooperative register number.' }),
  updated_at: timestampResponse(),
}).meta({ component: 'Profile' });

function serializeProfile(profile: CooperativeProfile) {
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

async function profileOf(knex: Knex, enterpriseId: string): Promise<CooperativeProfile> {
  const profile = await CooperativeProfile.query(knex).findOne({ enterprise_id: enterpriseId });
  if (profile === undefined) throw new NotFoundError('The cooperative profile');
  return profile;
}

/** The cooperative's legal identity: COBAC approval and category, founding, register, head office. */
export const profileRoutes = [
  defineRoute({
    method: 'get',
    path,
    module: 'enterprise',
    operationId: 'getCooperativeProfile',
    summary: 'The enterprise\'s cooperative profile',
    access: 'authenticated',
    load: enterpriseLoaders.enterprise,
    params,
    response: profileSchema,
    errorStatuses: [401, 404],
    handler: async ({ params, deps }) => {
      return serializeProfile(await profileOf(deps.knex, params.enterprise_pk));
    },
  }),
  defineRoute({
    method: 'patch',
    path,
    module: 'enterprise',
    operationId: 'updateCooperativeProfile',
    summary: 'Modify the enterprise\'s cooperative profile (direction, administrators)',
    access: writers,
    load: enterpriseLoaders.enterprise,
    params,
    body: yup.object({
      approval_number: yup.string().trim().max(50).optional(),
      category: yup.string().oneOf(categories).nullable().optional(),
      founding_date: isoDate().nullable().optional(),
      head_office_address: yup.string().trim().max(300).optional(),
      registration_number: yup.string().trim().max(50).optional(),
    }),
    response: profileSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ params, body, principal: actor, deps }) => {
      const profile = await updateProfile(deps.activities, actor, params.enterprise_pk, {
        approvalNumber: body.approval_number,
        category: body.category,
        foundingDate: body.founding_date,
        headOfficeAddress: body.head_office_address,
        registrationNumber: body.registration_number,
      });
      return serializeProfile(profile);
    },
  }),
];
