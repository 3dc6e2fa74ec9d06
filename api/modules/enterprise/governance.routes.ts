import * as yup from 'yup';
import {
  appointMember,
  createOrgan,
  endMemberTerm,
  updateMember,
  updateOrgan,
} from '../../../activities/enterprise/governance.activity';
import {
  mandatesQuery,
  organWithMembers,
  organsQuery,
  withCurrentMembers,
} from '../../../activities/enterprise/governance.queries';
import { offices } from '../../../db/models/governance-member.model';
import { organKinds } from '../../../db/models/governance-organ.model';
import { listQuerySchema, pageSchema, paginate, whereFilters } from '../../pagination';
import { defineRoute, type AnyRoute } from '../../route';
import { enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { scopeToVisible, withNestedVariant } from '../enterprise-scope';
import { enterpriseLoaders } from './enterprise.queries';
import { memberSchema, organSchema, serializeMember, serializeOrgan } from './governance.schemas';

const writers = ['direction', 'admin'] as const;
const enterpriseQuery = yup.object({ enterprise: enterpriseFilter });

const fullName = yup.string().trim().min(2).max(200);
const office = yup.string().oneOf(offices);
const memberNumber = yup
  .string()
  .trim()
  .max(30)
  .meta({ description: "The person's member number in the cooperative, if a member." });
const organName = yup.string().trim().min(2).max(200).meta({ example: "Conseil d'administration" });
const organDescription = yup.string().trim().max(1000);

/** A mandate's fields as the API names them, to the activities' names. */
function mandateFields<
  T extends { full_name?: string; office?: string; member_number?: string | null; term_start?: string },
>(
  body: T,
): { fullName: T['full_name']; office: T['office']; memberNumber: T['member_number']; termStart: T['term_start'] } {
  return {
    fullName: body.full_name,
    office: body.office,
    memberNumber: body.member_number,
    termStart: body.term_start,
  };
}

const organRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/governance/',
    module: 'enterprise',
    operationId: 'listGovernanceOrgans',
    summary: 'List the governance organs, each with its serving members',
    access: 'authenticated',
    query: listQuerySchema(['kind', 'name', 'created_at'], {
      enterprise: enterpriseFilter,
      kind: yup.string().oneOf(organKinds).optional(),
    }),
    errorStatuses: [401],
    response: pageSchema(organSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = scopeToVisible(organsQuery(deps.knex), principal, {
        enterprise: 'governance_organs.enterprise_id',
      });
      whereFilters(builder, query, { enterprise: 'enterprise_id', kind: 'kind' });
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { kind: 'kind', name: 'name', created_at: 'governance_organs.created_at' },
        defaultOrdering: 'kind',
      });
      return { ...page, results: (await withCurrentMembers(deps.knex, page.results)).map(serializeOrgan) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/enterprise/governance/',
    module: 'enterprise',
    operationId: 'createGovernanceOrgan',
    summary: 'Set up a governance organ (one of each kind per enterprise)',
    access: writers,
    status: 201,
    location: '/api/v1/enterprise/governance/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      kind: yup.string().oneOf(organKinds).required(),
      name: organName.required(),
      description: organDescription.default(''),
    }),
    response: organSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['chair_already_serving', 'organ_kind_taken'],
    handler: async ({ body, principal: actor, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise }, 'The enterprise');
      const organ = await createOrgan(deps.activities, actor, body.enterprise, {
        kind: body.kind,
        name: body.name,
        description: body.description,
      });
      return serializeOrgan({ organ, members: [] });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/governance/{id}/',
    module: 'enterprise',
    operationId: 'getGovernanceOrgan',
    summary: 'Governance organ detail, with its serving members',
    access: 'authenticated',
    load: enterpriseLoaders.organ,
    params: idParams,
    query: enterpriseQuery,
    response: organSchema,
    errorStatuses: [401, 404],
    handler: async ({ resource, deps }) => serializeOrgan(await organWithMembers(deps.knex, resource)),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/enterprise/governance/{id}/',
    module: 'enterprise',
    operationId: 'updateGovernanceOrgan',
    summary: 'Rename or describe a governance organ (its kind is fixed)',
    access: writers,
    load: enterpriseLoaders.organ,
    params: idParams,
    query: enterpriseQuery,
    body: yup.object({ name: organName.optional(), description: organDescription.optional() }),
    response: organSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource, body, principal: actor, deps }) => {
      const organ = await updateOrgan(deps.activities, actor, resource.id, {
        name: body.name,
        description: body.description,
      });
      return serializeOrgan(await organWithMembers(deps.knex, organ));
    },
  }),
];

const memberRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/governance/{id}/members/',
    module: 'enterprise',
    operationId: 'listGovernanceMembers',
    summary: "List an organ's mandates, serving and past",
    access: 'authenticated',
    load: enterpriseLoaders.organ,
    params: idParams,
    query: listQuerySchema(['full_name', 'term_start', 'created_at'], {
      enterprise: enterpriseFilter,
      current: yup.boolean().optional().meta({ description: 'true: serving members only; false: past mandates only.' }),
    }),
    errorStatuses: [401, 404],
    response: pageSchema(memberSchema),
    refusals: ['page_not_found'],
    handler: async ({ resource: organ, query, deps, ctx }) => {
      const builder = mandatesQuery(deps.knex, organ.id);
      if (query.current !== undefined) builder[query.current ? 'whereNull' : 'whereNotNull']('term_end');
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: {
          full_name: 'full_name',
          term_start: 'term_start',
          created_at: 'governance_members.created_at',
        },
        defaultOrdering: 'term_start',
      });
      return { ...page, results: page.results.map(serializeMember) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/enterprise/governance/{id}/members/',
    module: 'enterprise',
    operationId: 'appointGovernanceMember',
    summary: 'Appoint a member to an organ (one serving chair per organ)',
    access: writers,
    status: 201,
    location: '/api/v1/enterprise/governance/members/{id}/',
    load: enterpriseLoaders.organ,
    params: idParams,
    query: enterpriseQuery,
    body: yup.object({
      full_name: fullName.required(),
      office: office.required(),
      member_number: memberNumber.default(''),
      term_start: isoDate().required(),
    }),
    response: memberSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['chair_already_serving', 'organ_kind_taken'],
    handler: async ({ resource: organ, body, principal: actor, deps }) => {
      const member = await appointMember(deps.activities, actor, organ.id, mandateFields(body));
      return serializeMember(member);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/governance/members/{id}/',
    module: 'enterprise',
    operationId: 'getGovernanceMember',
    summary: 'A mandate: who, which office, from when to when',
    access: 'authenticated',
    load: enterpriseLoaders.mandate,
    params: idParams,
    query: enterpriseQuery,
    response: memberSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeMember(resource.member),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/enterprise/governance/members/{id}/',
    module: 'enterprise',
    operationId: 'updateGovernanceMember',
    summary: 'Correct a mandate (ending it is a separate action)',
    access: writers,
    load: enterpriseLoaders.mandate,
    params: idParams,
    query: enterpriseQuery,
    body: yup.object({
      full_name: fullName.optional(),
      office: office.optional(),
      member_number: memberNumber.optional(),
      term_start: isoDate().optional(),
    }),
    response: memberSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['chair_already_serving', 'organ_kind_taken', 'term_end_before_start'],
    handler: async ({ resource: { member: mandate }, body, principal: actor, deps }) => {
      const member = await updateMember(deps.activities, actor, mandate.id, mandateFields(body));
      return serializeMember(member);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/enterprise/governance/members/{id}/end-term/',
    module: 'enterprise',
    operationId: 'endGovernanceMemberTerm',
    summary: 'End a mandate (final: a return to the organ is a new appointment)',
    access: writers,
    load: enterpriseLoaders.mandate,
    params: idParams,
    query: enterpriseQuery,
    body: yup.object({
      term_end: isoDate().required(),
      reason: yup
        .string()
        .trim()
        .required()
        .min(2)
        .max(300)
        .meta({ example: 'Mandate expired at the general assembly' }),
    }),
    response: memberSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['term_already_ended', 'term_end_before_start'],
    handler: async ({ resource: { member: mandate }, body, principal: actor, deps }) => {
      const member = await endMemberTerm(deps.activities, actor, mandate.id, {
        termEnd: body.term_end,
        reason: body.reason,
      });
      return serializeMember(member);
    },
  }),
];

/** The cooperative's governance organs and their members' mandates, flat and nested under the enterprise. */
export const governanceRoutes: AnyRoute[] = [...organRoutes, ...memberRoutes].flatMap(withNestedVariant);
