import * as yup from 'yup';
import { createBranch, updateBranch, type BranchFields } from '../../../activities/enterprise/branches.activity';
import { branchesQuery } from '../../../activities/enterprise/branches.queries';
import { listQuerySchema, pageSchema, paginate, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { codeSchema, enterpriseFilter, idParams } from '../common.schemas';
import { scopeToVisible, withNestedVariant } from '../enterprise-scope';
import { enterpriseLoaders } from './enterprise.queries';
import { branchSchema, serializeBranch } from './branches.schemas';

interface BranchBody {
  code: string;
  name: string;
  is_head_office: boolean;
  address: string;
  city: string;
  phone: string;
}

/** The request's snake_case fields as the activity's; absent ones stay absent (a PATCH changes only those sent). */
function branchFields(body: BranchBody): BranchFields;
function branchFields(body: Partial<BranchBody>): Partial<BranchFields>;
function branchFields(body: Partial<BranchBody>): Partial<BranchFields> {
  return {
    code: body.code,
    name: body.name,
    isHeadOffice: body.is_head_office,
    address: body.address,
    city: body.city,
    phone: body.phone,
  };
}

const phoneSchema = yup
  .string()
  .trim()
  .max(30)
  .matches(/^\+?[0-9 ()-]*$/, '${path} may hold digits, spaces, +, (, ) and - only');

/** Branches (agences): code unique in the enterprise, exactly one head office. */
export const branchRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/branches/',
    module: 'enterprise',
    operationId: 'listBranches',
    summary: 'List the branches the user may see',
    access: 'authenticated',
    query: listQuerySchema(['code', 'name', 'created_at'], {
      enterprise: enterpriseFilter,
      status: yup.string().oneOf(['active', 'closed']).optional(),
      search: yup.string().trim().max(100).optional().meta({ description: 'Part of the code, name or city.' }),
    }),
    errorStatuses: [401],
    response: pageSchema(branchSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = scopeToVisible(branchesQuery(deps.knex), principal, {
        enterprise: 'enterprise_id',
        branch: 'branches.id',
      });
      whereFilters(builder, query, { enterprise: 'enterprise_id', status: 'status' });
      if (query.search !== undefined) {
        builder.where((b) =>
          b
            .whereILike('code', `%${query.search}%`)
            .orWhereILike('name', `%${query.search}%`)
            .orWhereILike('city', `%${query.search}%`),
        );
      }
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { code: 'code', name: 'name', created_at: 'branches.created_at' },
        defaultOrdering: 'code',
      });
      return { ...page, results: page.results.map(serializeBranch) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/enterprise/branches/',
    module: 'enterprise',
    operationId: 'createBranch',
    summary: 'Create a branch (direction, administrators)',
    access: ['direction', 'admin'],
    status: 201,
    location: '/api/v1/enterprise/branches/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      code: codeSchema(20),
      name: yup.string().trim().required().min(2).max(200),
      is_head_office: yup.boolean().default(false).meta({ description: 'true moves the head office here.' }),
      address: yup.string().trim().max(300).default(''),
      city: yup.string().trim().max(100).default(''),
      phone: phoneSchema.default(''),
    }),
    response: branchSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['branch_code_taken'],
    handler: async ({ body, principal: actor, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise }, 'The enterprise');
      const branch = await createBranch(deps.activities, actor, body.enterprise, branchFields(body));
      return serializeBranch(branch);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/branches/{id}/',
    module: 'enterprise',
    operationId: 'getBranch',
    summary: 'Branch detail',
    access: 'authenticated',
    load: enterpriseLoaders.branch,
    params: idParams,
    query: yup.object({ enterprise: enterpriseFilter }),
    response: branchSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeBranch(resource),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/enterprise/branches/{id}/',
    module: 'enterprise',
    operationId: 'updateBranch',
    summary: 'Modify a branch (direction, administrators)',
    access: ['direction', 'admin'],
    load: enterpriseLoaders.branch,
    params: idParams,
    query: yup.object({ enterprise: enterpriseFilter }),
    body: yup.object({
      code: codeSchema(20).optional().default(undefined),
      name: yup.string().trim().min(2).max(200).optional(),
      is_head_office: yup.boolean().optional(),
      address: yup.string().trim().max(300).optional(),
      city: yup.string().trim().max(100).optional(),
      phone: phoneSchema.optional(),
      status: yup.string().oneOf(['active', 'closed']).optional(),
    }),
    response: branchSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['branch_code_taken', 'head_office_cannot_close', 'head_office_required'],
    handler: async ({ resource: branch, body, principal: actor, deps }) => {
      const updated = await updateBranch(deps.activities, actor, branch.id, {
        ...branchFields(body),
        status: body.status,
      });
      return serializeBranch(updated);
    },
  }),
].flatMap(withNestedVariant);
