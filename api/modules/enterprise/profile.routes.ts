import * as yup from 'yup';
import { updateProfile } from '../../../activities/enterprise/profile.activity';
import { NotFoundError } from '../../../domain/errors';
import { profileOf } from '../../../activities/enterprise/profile.queries';
import { defineRoute } from '../../route';
import { enterpriseLoaders } from './enterprise.queries';
import { isoDate } from '../common.schemas';
import { categories, profileSchema, serializeProfile } from './profile.schemas';

const writers = ['direction', 'admin'] as const;
// One profile per enterprise, reached through it: no flat variant, no id in the path.
const path = '/api/v1/enterprise/enterprises/{enterprise_pk}/profile/';
const params = yup.object({ enterprise_pk: yup.string().uuid().required().meta({ description: 'The enterprise.' }) });

/** The cooperative's legal identity: COBAC approval and category, founding, register, head office. */
export const profileRoutes = [
  defineRoute({
    method: 'get',
    path,
    module: 'enterprise',
    operationId: 'getCooperativeProfile',
    summary: "The enterprise's cooperative profile",
    access: 'authenticated',
    load: enterpriseLoaders.enterprise,
    params,
    response: profileSchema,
    errorStatuses: [401, 404],
    handler: async ({ params, deps }) => {
      const profile = await profileOf(deps.knex, params.enterprise_pk);
      if (profile === undefined) throw new NotFoundError('The cooperative profile');
      return serializeProfile(profile);
    },
  }),
  defineRoute({
    method: 'patch',
    path,
    module: 'enterprise',
    operationId: 'updateCooperativeProfile',
    summary: "Modify the enterprise's cooperative profile (direction, administrators)",
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
