import * as yup from 'yup';
import { createEnterprise, updateEnterprise } from '../../../activities/enterprise/enterprises.activity';
import { isValidTimeZone } from '../../../domain/calendar';
import { enterprisesQuery } from '../../../activities/enterprise/enterprises.queries';
import { listQuerySchema, pageSchema, paginate, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { codeSchema, idParams } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { enterpriseLoaders } from './enterprise.queries';
import { cemacCountries, enterpriseSchema, serializeEnterprise } from './enterprises.schemas';
import { refreshEnterpriseSchedules } from './schedules.temporal';

/** The cooperative itself: the root every other resource belongs to. */
export const enterpriseRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/enterprises/',
    module: 'enterprise',
    operationId: 'listEnterprises',
    summary: 'List the enterprises where the user holds a role',
    access: 'authenticated',
    query: listQuerySchema(['code', 'name', 'created_at'], {
      status: yup.string().oneOf(['active', 'suspended']).optional(),
      search: yup.string().trim().max(100).optional().meta({ description: 'Part of the code or name.' }),
    }),
    errorStatuses: [401],
    response: pageSchema(enterpriseSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = scopeToVisible(enterprisesQuery(deps.knex), principal, { enterprise: 'enterprises.id' });
      whereFilters(builder, query, { status: 'status' });
      if (query.search !== undefined)
        builder.where((b) => b.whereILike('code', `%${query.search}%`).orWhereILike('name', `%${query.search}%`));
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { code: 'code', name: 'name', created_at: 'enterprises.created_at' },
        defaultOrdering: 'code',
      });
      return { ...page, results: page.results.map(serializeEnterprise) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/enterprise/enterprises/',
    module: 'enterprise',
    operationId: 'createEnterprise',
    summary: 'Create an enterprise, ready to use: head office, open accounting year, default configuration',
    access: ['admin'],
    status: 201,
    location: '/api/v1/enterprise/enterprises/{id}/',
    body: yup.object({
      code: codeSchema(20),
      name: yup.string().trim().required().min(2).max(200),
      legal_form: yup
        .string()
        .trim()
        .required()
        .max(100)
        .meta({ example: 'Coopérative avec conseil d’administration' }),
      country: yup.string().oneOf(cemacCountries).required(),
      time_zone: yup
        .string()
        .default('Africa/Douala')
        .test(
          'time-zone',
          '${path} must be an IANA time zone',
          (value) => value === undefined || isValidTimeZone(value),
        ),
      head_office: yup
        .object({
          code: codeSchema(20).default('HQ'),
          name: yup.string().trim().max(200).default('Siège'),
          address: yup.string().trim().max(300).default(''),
          city: yup.string().trim().max(100).default(''),
        })
        .default({}),
    }),
    response: enterpriseSchema,
    errorStatuses: [401, 403, 409],
    refusals: ['enterprise_code_taken'],
    handler: async ({ body, principal, deps, ctx }) => {
      const enterprise = await createEnterprise(deps.activities, principal, {
        code: body.code,
        name: body.name,
        legalForm: body.legal_form,
        country: body.country,
        timeZone: body.time_zone,
        headOffice: body.head_office,
      });
      await refreshEnterpriseSchedules(deps, enterprise.id, ctx.state.log);
      return serializeEnterprise(enterprise);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/enterprises/{id}/',
    module: 'enterprise',
    operationId: 'getEnterprise',
    summary: 'Enterprise detail',
    access: 'authenticated',
    load: enterpriseLoaders.enterprise,
    params: idParams,
    response: enterpriseSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeEnterprise(resource),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/enterprise/enterprises/{id}/',
    module: 'enterprise',
    operationId: 'updateEnterprise',
    summary: 'Modify an enterprise (direction, administrators)',
    access: ['direction', 'admin'],
    load: enterpriseLoaders.enterprise,
    params: idParams,
    body: yup.object({
      name: yup.string().trim().min(2).max(200).optional(),
      legal_form: yup.string().trim().max(100).optional(),
      status: yup.string().oneOf(['active', 'suspended']).optional(),
    }),
    response: enterpriseSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource: enterprise, body, principal: actor, deps }) => {
      const updated = await updateEnterprise(deps.activities, actor, enterprise.id, {
        name: body.name,
        legalForm: body.legal_form,
        status: body.status,
      });
      return serializeEnterprise(updated);
    },
  }),
];
