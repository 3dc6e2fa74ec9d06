import * as yup from 'yup';
import {
  createClientProfile,
  setClientStatus,
  setFounder,
  updateClientProfile,
  type ClientProfileFields,
  type StatusAction,
} from '../../../activities/members/client-profiles.activity';
import type { Role } from '../../../domain/access';
import { clientProfilesQuery, whereClientMatches } from '../../../activities/members/client-profiles.queries';
import {
  clientKinds,
  clientStatuses,
  genders,
  idDocumentTypes,
  riskLevels,
} from '../../../db/models/client-profile.model';
import { requireRole } from '../../auth/access';
import { listQuerySchema, pageSchema, paginate } from '../../pagination';
import { defineRoute } from '../../route';
import { enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { clientSchema, serializeClient } from './client-profiles.schemas';
import { visibleRows } from '../list-rows';
import { memberLoaders } from './members.queries';

const registrars: readonly Role[] = ['cashier', 'branch_head', 'direction', 'admin'];
const statusKeepers: readonly Role[] = ['branch_head', 'direction', 'admin'];
/**
 * Compliance flags: changed by branch heads and above only (they drive the 50 M related-party cap and write-off
 * approvals).
 */
const complianceFields = ['related_party', 'politically_exposed', 'risk_level'] as const;
const basePath = '/api/v1/members/clients/';

const text = (max: number) => yup.string().trim().max(max);

/** The member's own fields, each optional (a PATCH changes only those sent); creation adds defaults. */
const profileFieldSchemas = {
  first_name: text(100).meta({ description: 'Natural persons only.' }),
  last_name: text(100).meta({ description: 'Natural persons only.' }),
  legal_name: text(200).meta({ description: 'Legal entities only.' }),
  id_document_type: yup
    .string()
    .oneOf(idDocumentTypes)
    .meta({ description: 'business_register for legal entities, one of the others for persons.' }),
  id_document_number: yup
    .string()
    // Stored without spaces and in upper case, so "ab 12" and "AB12" are recognised as one document.
    .transform((value: unknown) => (typeof value === 'string' ? value.replace(/\s+/g, '').toUpperCase() : value))
    .min(3)
    .max(50)
    .matches(/^[A-Z0-9/.-]*$/, '${path} may hold letters, digits, /, . and - only'),
  id_document_expiry: isoDate().nullable(),
  birth_date: isoDate()
    .nullable()
    .test(
      'plausible',
      '${path} must be after 1900-01-01',
      (value) => value === undefined || value === null || value > '1900-01-01',
    )
    .meta({ description: 'Natural persons only: at least 16 years before the membership date.' }),
  gender: yup.string().oneOf(genders).nullable(),
  nationality: yup
    .string()
    .trim()
    .uppercase()
    .matches(/^[A-Z]{2}$/, '${path} must be a two-letter country code, e.g. CM'),
  phone: yup
    .string()
    .trim()
    .max(30)
    .matches(/^\+?[0-9][0-9 ]*$/, {
      message: '${path} may hold digits, spaces and a leading + only',
      excludeEmptyString: true,
    }),
  email: yup.string().trim().lowercase().email().max(254),
  address: text(300),
  city: text(100),
  occupation: text(100),
  membership_date: isoDate().meta({
    description: 'Not after the business date; absent at creation: the business date.',
  }),
  risk_level: yup.string().oneOf(riskLevels),
  politically_exposed: yup.boolean(),
  related_party: yup.boolean().meta({
    description: 'Board member, director, manager or employee: the 50 M XAF credit cap applies (COBAC R-2017/08).',
  }),
};
const patchBody = yup.object({
  ...profileFieldSchemas,
  branch: yup.string().uuid().meta({ description: 'Moves the member to this branch of the enterprise.' }),
});

const createBody = yup.object({
  ...profileFieldSchemas,
  enterprise: yup.string().uuid().required(),
  branch: yup.string().uuid().required().meta({ description: "The member's home branch." }),
  kind: yup.string().oneOf(clientKinds).required(),
  first_name: profileFieldSchemas.first_name.default(''),
  last_name: profileFieldSchemas.last_name.default(''),
  legal_name: profileFieldSchemas.legal_name.default(''),
  id_document_type: profileFieldSchemas.id_document_type.required(),
  id_document_number: profileFieldSchemas.id_document_number.required(),
  id_document_expiry: profileFieldSchemas.id_document_expiry.default(null),
  birth_date: profileFieldSchemas.birth_date.default(null),
  gender: profileFieldSchemas.gender.default(null),
  nationality: profileFieldSchemas.nationality.default('CM'),
  phone: profileFieldSchemas.phone.default(''),
  email: profileFieldSchemas.email.default(''),
  address: profileFieldSchemas.address.default(''),
  city: profileFieldSchemas.city.default(''),
  occupation: profileFieldSchemas.occupation.default(''),
  risk_level: profileFieldSchemas.risk_level.default('low'),
  politically_exposed: profileFieldSchemas.politically_exposed.default(false),
  related_party: profileFieldSchemas.related_party.default(false),
});

type CreateBody = yup.InferType<typeof createBody>;
type PatchBody = yup.InferType<typeof patchBody>;

/** The request's snake_case fields as the activity's; absent ones stay absent (a PATCH changes only those sent). */
function profileFields(body: CreateBody): ClientProfileFields;
function profileFields(body: PatchBody): Partial<ClientProfileFields>;
function profileFields(body: PatchBody): Partial<ClientProfileFields> {
  return {
    firstName: body.first_name,
    lastName: body.last_name,
    legalName: body.legal_name,
    idDocumentType: body.id_document_type,
    idDocumentNumber: body.id_document_number,
    idDocumentExpiry: body.id_document_expiry,
    birthDate: body.birth_date,
    gender: body.gender,
    nationality: body.nationality,
    phone: body.phone,
    email: body.email,
    address: body.address,
    city: body.city,
    occupation: body.occupation,
    riskLevel: body.risk_level,
    politicallyExposed: body.politically_exposed,
    relatedParty: body.related_party,
  };
}

const summaries: Record<StatusAction, string> = {
  suspend: 'Suspend an active member, with a reason',
  reactivate: 'Reactivate a suspended member',
  leave: 'Record that a member left the cooperative (final), with a reason',
};
const reason = yup.string().trim().max(500);

const statusChange = (action: StatusAction) =>
  defineRoute({
    method: 'post',
    path: `${basePath}{id}/${action}/`,
    module: 'members',
    operationId: `${action}Client`,
    summary: `${summaries[action]} (branch heads, direction, administrators)`,
    access: statusKeepers,
    load: memberLoaders.client,
    params: idParams,
    body: yup.object({ reason: action === 'reactivate' ? reason.default('') : reason.required().min(3) }),
    response: clientSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals:
      action === 'leave'
        ? ['invalid_status_transition', 'member_has_open_accounts', 'member_has_shares', 'member_refund_pending']
        : ['invalid_status_transition'],
    handler: async ({ resource: client, body, principal: actor, deps }) => {
      return serializeClient(await setClientStatus(deps.activities, actor, client.id, action, body.reason));
    },
  });

/** Members (client profiles): one per identity document in an enterprise, numbered per home branch. */
export const clientProfileRoutes = [
  defineRoute({
    method: 'get',
    path: basePath,
    module: 'members',
    operationId: 'listClients',
    summary: 'List the members the user may see',
    access: 'authenticated',
    query: listQuerySchema(['member_number', 'last_name', 'membership_date'], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional().meta({ description: 'Only members of this home branch.' }),
      status: yup.string().oneOf(clientStatuses).optional(),
      kind: yup.string().oneOf(clientKinds).optional(),
      search: yup.string().trim().max(100).optional().meta({ description: 'Part of a name or of the member number.' }),
    }),
    errorStatuses: [401],
    response: pageSchema(clientSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = visibleRows(clientProfilesQuery(deps.knex), principal, query, {
        enterprise: 'client_profiles.enterprise_id',
        branch: 'client_profiles.branch_id',
        status: 'status',
        kind: 'kind',
      });
      if (query.search !== undefined) whereClientMatches(builder, query.search);
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { member_number: 'member_number', last_name: 'last_name', membership_date: 'membership_date' },
        defaultOrdering: 'member_number',
      });
      return { ...page, results: page.results.map(serializeClient) };
    },
  }),
  defineRoute({
    method: 'post',
    path: basePath,
    module: 'members',
    operationId: 'createClient',
    summary: 'Register a member in a branch (cashiers, branch heads, direction, administrators of that branch)',
    access: registrars,
    status: 201,
    location: '/api/v1/members/clients/{id}/',
    body: createBody,
    response: clientSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['branch_closed', 'member_already_registered'],
    handler: async ({ body, principal: actor, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise, branchId: body.branch }, 'The branch');
      const client = await createClientProfile(deps.activities, actor, {
        ...profileFields(body),
        enterpriseId: body.enterprise,
        branchId: body.branch,
        kind: body.kind,
        membershipDate: body.membership_date,
      });
      return serializeClient(client);
    },
  }),
  defineRoute({
    method: 'get',
    path: `${basePath}{id}/`,
    module: 'members',
    operationId: 'getClient',
    summary: 'Member detail',
    access: 'authenticated',
    load: memberLoaders.client,
    params: idParams,
    response: clientSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeClient(resource),
  }),
  defineRoute({
    method: 'patch',
    path: `${basePath}{id}/`,
    module: 'members',
    operationId: 'updateClient',
    summary: 'Correct a member or move them to another branch (cashiers, branch heads, direction, administrators)',
    description:
      'The member number, enterprise and kind never change. A move needs the role at both branches. ' +
      'related_party, politically_exposed and risk_level are changed by branch heads, direction and ' +
      'administrators only (audited with the change).',
    access: registrars,
    load: memberLoaders.client,
    params: idParams,
    body: patchBody,
    response: clientSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['branch_closed', 'member_already_registered'],
    handler: async ({ resource: client, body, principal: actor, deps, authorize }) => {
      if (body.branch !== undefined)
        authorize({ enterpriseId: client.enterpriseId, branchId: body.branch }, 'The branch');
      // The flags behind the related-party cap and write-off approvals are the branch head's, not the till's.
      if (complianceFields.some((field) => body[field] !== undefined))
        requireRole(
          actor,
          statusKeepers,
          { enterpriseId: client.enterpriseId, branchId: client.branchId },
          'The member',
        );
      const updated = await updateClientProfile(deps.activities, actor, client.id, {
        ...profileFields(body),
        branchId: body.branch,
        membershipDate: body.membership_date,
      });
      return serializeClient(updated);
    },
  }),
  statusChange('suspend'),
  statusChange('reactivate'),
  statusChange('leave'),
  defineRoute({
    method: 'post',
    path: `${basePath}{id}/founder/`,
    module: 'members',
    operationId: 'setClientFounder',
    summary: 'Name a member among the founders (initiateurs), or remove them (direction)',
    description: 'Only founders subscribe founder shares (type 001). Audited with the reason.',
    access: ['direction'],
    load: memberLoaders.client,
    params: idParams,
    body: yup.object({ founder: yup.boolean().strict(true).required(), reason: reason.required().min(3) }),
    response: clientSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource: client, body, principal: actor, deps }) => {
      return serializeClient(await setFounder(deps.activities, actor, client.id, body.founder, body.reason));
    },
  }),
];
