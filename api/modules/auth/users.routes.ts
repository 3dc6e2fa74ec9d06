import type { Knex } from 'knex';
import * as yup from 'yup';
import { acceptInvitation, createStaffUser, inviteUser } from '../../../activities/auth/create-user.activity';
import { grantRole, revokeGrant, setUserActive, type GrantRoleInput } from '../../../activities/auth/users.activity';
import { isPlatformAdmin, roles, type Role } from '../../../domain/access';
import { NotFoundError } from '../../../domain/errors';
import { RoleGrant } from '../../../db/models/role-grant.model';
import { User } from '../../../db/models/user.model';
import type { Principal } from '../../auth/principal';
import { listQuerySchema, pageSchema, paginate, whereFilters } from '../../pagination';
import { AcceptedForApproval, defineRoute } from '../../route';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { requestOrigin, type AppContext } from '../../context';
import type { RouteDeps } from '../../deps';
import {
  createdUserSchema,
  grantSchema,
  invitationSchema,
  passwordSchema,
  serializeGrant,
  serializeUser,
  usernameSchema,
  userSchema,
} from './auth.schemas';
import { nullableId } from '../common.schemas';

const userIdParams = yup.object({ id: yup.string().uuid().required() });

/**
 * Users an administrator may manage: all for a platform administrator; otherwise those whose every active
 * grant lies inside what the administrator administers (their enterprises whole, or their branches), and, for
 * an administrator of a whole enterprise, users without any role yet (newly registered, waiting for one), but
 * those an import of another enterprise brought in (docs/domain.md §15.3). A user holding a platform grant is a
 * platform administrator's only.
 */
function manageableUsers(knex: Knex, principal: Principal) {
  const query = User.query(knex);
  if (isPlatformAdmin(principal.grants)) return query;
  const adminGrants = principal.grants.filter((grant) => grant.role === 'admin' && grant.enterpriseId !== null);
  const enterprises = adminGrants.filter((grant) => grant.branchId === null).map((grant) => grant.enterpriseId!);
  const branches = adminGrants.filter((grant) => grant.branchId !== null).map((grant) => grant.branchId!);
  const activeGrants = () =>
    knex('role_grants as g').select(1).whereRaw('g.user_id = users.id').whereNull('g.revoked_at');
  const outside = activeGrants().where((grant) =>
    grant
      .whereNull('g.enterprise_id')
      .orWhere((scoped) =>
        scoped
          .whereNotIn('g.enterprise_id', enterprises)
          .where((branch) => branch.whereNull('g.branch_id').orWhereNotIn('g.branch_id', branches)),
      ),
  );
  query.whereNotExists(outside);
  if (enterprises.length === 0) return query.whereExists(activeGrants());
  return query.where((roleless) =>
    roleless
      .whereExists(activeGrants())
      .orWhereNull('users.import_id')
      .orWhereExists(
        knex('imports as i').select(1).whereRaw('i.id = users.import_id').whereIn('i.enterprise_id', enterprises),
      ),
  );
}

async function userWithGrants(knex: Knex, principal: Principal, userId: string) {
  const user = await manageableUsers(knex, principal).findById(userId);
  if (user === undefined) throw new NotFoundError('The user');
  const grants = await RoleGrant.activeOf(knex, [userId]);
  return serializeUser(user, grants);
}

const grantBody = {
  role: yup.string().oneOf(roles).required(),
  enterprise: nullableId(),
  branch: yup.string().uuid().nullable().default(null),
};

/**
 * Roles granted at once: the till and read-only auditing decide nothing and weaken no control. Any other role is
 * granted under four eyes (docs/domain.md §11).
 */
const grantsAtOnce: readonly Role[] = ['cashier', 'auditor'];

/**
 * Made at once: the roles above, and a platform grant, which has no enterprise whose policy applies (platform
 * administrators only make one).
 */
const grantedAtOnce = (grant: Omit<GrantRoleInput, 'userId'>) =>
  grantsAtOnce.includes(grant.role) || grant.enterpriseId === null;

/**
 * A grant as the enterprise's policy wants it: at once, or a `role_grant.above_cashier` request. Where no one but the
 * maker could decide it (a new cooperative's first administrator), it is made at once and the waiver audited.
 */
function grantUnderFourEyes(input: { deps: RouteDeps; principal: Principal; ctx: AppContext }, grant: GrantRoleInput) {
  const apply = async () => serializeGrant(await grantRole(input.deps.activities, input.principal, grant));
  if (grantedAtOnce(grant)) return apply();
  return runOrRequest(
    input,
    {
      operation: 'role_grant.above_cashier',
      payload: grant,
      scope: { enterpriseId: grant.enterpriseId!, branchId: grant.branchId },
      summary: `Grant the ${grant.role} role${grant.branchId === null ? ' in the whole enterprise' : ' in a branch'}`,
      whenNoOtherDecider: 'run_now',
    },
    apply,
  );
}

/** Administration of users: creation, list, detail, roles, deactivation; the invitation a new user accepts. */
export const userRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/v1/auth/users/',
    module: 'auth',
    operationId: 'createUser',
    summary: "Create a staff user with their roles; the answer's one-time invitation lets them set their password",
    description:
      'Each role must lie within what the caller administers (403 otherwise). The user has no password until they ' +
      'accept the invitation (`POST /api/v1/auth/invitations/accept/`, ' +
      'within 7 days). Audited; not throttled as sign-ups are. ' +
      'Cashier and auditor roles are granted with the account; any ' +
      'other is granted as `POST …/roles/` grants it: under the ' +
      "policy's four eyes (`role_grant.above_cashier`), its request listed " +
      'in `pending_roles`, unless no one but the caller could decide it.',
    access: ['admin'],
    status: 201,
    location: '/api/v1/auth/users/{id}/',
    body: yup.object({
      username: usernameSchema,
      full_name: yup.string().trim().required().min(2).max(200),
      email: yup.string().trim().required().email().max(254),
      roles: yup.array(yup.object(grantBody).required()).required().min(1).max(20),
    }),
    response: createdUserSchema,
    errorStatuses: [401, 403, 409, 422],
    refusals: [
      'not_allowed',
      'platform_grant_admin_only',
      'auditor_grant_whole_enterprise',
      'username_taken',
      'email_taken',
      ...fourEyesRefusals,
    ],
    handler: async ({ body, principal: actor, deps, ctx }) => {
      const maker = { ...actor, ...requestOrigin(ctx) };
      const roles = body.roles.map((grant) => ({
        role: grant.role,
        enterpriseId: grant.enterprise,
        branchId: grant.branch,
      }));
      const { user, invitation } = await createStaffUser(deps.activities, maker, {
        username: body.username,
        fullName: body.full_name,
        email: body.email,
        grants: roles.filter(grantedAtOnce),
        grantsAfterwards: roles.filter((grant) => !grantedAtOnce(grant)),
      });
      const pending: Record<string, unknown>[] = [];
      for (const grant of roles.filter((one) => !grantedAtOnce(one))) {
        const answer = await grantUnderFourEyes({ deps, principal: maker, ctx }, { ...grant, userId: user.id });
        if (answer instanceof AcceptedForApproval) pending.push(answer.request);
      }
      return {
        ...serializeUser(user, await RoleGrant.activeOf(deps.knex, [user.id])),
        pending_roles: pending,
        invitation: { token: invitation.token, expires_at: invitation.expiresAt.toISOString() },
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/auth/invitations/accept/',
    module: 'auth',
    operationId: 'acceptInvitation',
    summary: "Set one's password with the invitation of a user an administrator created; then sign in",
    access: 'public',
    status: 204,
    body: yup.object({ token: yup.string().required().max(100), password: passwordSchema }),
    errorStatuses: [],
    refusals: ['invalid_invitation'],
    handler: async ({ body, deps, ctx }) => {
      await acceptInvitation(deps.activities, { token: body.token, password: body.password, ...requestOrigin(ctx) });
      return undefined;
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/auth/users/{id}/invitation/',
    module: 'auth',
    operationId: 'inviteUser',
    summary:
      'A new one-time invitation for a user without a password ' +
      'yet (one an import brought in, or whose invitation expired)',
    description:
      'The user sets their first password with it (`POST ' +
      '/api/v1/auth/invitations/accept/`, within 7 days); an earlier invitation ' +
      'not yet used stops working. Audited. Refused for a user who has ' +
      'a password (an invitation never resets one) or who is deactivated.',
    access: ['admin'],
    params: userIdParams,
    response: invitationSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['not_allowed', 'user_has_password', 'user_deactivated'],
    handler: async ({ params, principal: actor, deps, ctx }) => {
      await userWithGrants(deps.knex, actor, params.id);
      const invitation = await inviteUser(deps.activities, { ...actor, ...requestOrigin(ctx) }, params.id);
      return { token: invitation.token, expires_at: invitation.expiresAt.toISOString() };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/auth/users/',
    module: 'auth',
    operationId: 'listUsers',
    summary: 'List the users an administrator manages',
    access: ['admin'],
    query: listQuerySchema(['username', 'full_name', 'created_at'], {
      search: yup.string().trim().max(100).optional().meta({ description: 'Part of the username or full name.' }),
      is_active: yup.boolean().optional(),
    }),
    errorStatuses: [401, 403],
    response: pageSchema(userSchema),
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const builder = manageableUsers(deps.knex, principal);
      if (query.search !== undefined)
        builder.where((b) =>
          b.whereILike('username', `%${query.search}%`).orWhereILike('full_name', `%${query.search}%`),
        );
      whereFilters(builder, query, { is_active: 'is_active' });
      const page = await paginate(builder, {
        query,
        url: new URL(ctx.href),
        orderingColumns: { username: 'username', full_name: 'full_name', created_at: 'users.created_at' },
        defaultOrdering: 'username',
      });
      const grants = await RoleGrant.activeOf(
        deps.knex,
        page.results.map((user) => user.id),
      );
      return {
        ...page,
        results: page.results.map((user) =>
          serializeUser(
            user,
            grants.filter((grant) => grant.userId === user.id),
          ),
        ),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/auth/users/{id}/',
    module: 'auth',
    operationId: 'getUser',
    summary: 'User detail, with active roles',
    access: ['admin'],
    params: userIdParams,
    response: userSchema,
    errorStatuses: [401, 403, 404],
    handler: ({ params, principal, deps }) => userWithGrants(deps.knex, principal, params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/auth/users/{id}/roles/',
    module: 'auth',
    operationId: 'grantRole',
    summary: 'Grant a role in a branch, a whole enterprise, or (admin only) every enterprise',
    access: ['admin'],
    status: 201,
    location: '/api/v1/auth/users/{user}/',
    params: userIdParams,
    body: yup.object(grantBody),
    response: grantSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      'not_allowed',
      'platform_grant_admin_only',
      'auditor_grant_whole_enterprise',
      'role_already_granted',
      ...fourEyesRefusals,
    ],
    handler: async ({ params, body, principal: actor, deps, ctx }) => {
      await userWithGrants(deps.knex, actor, params.id);
      const grant = { userId: params.id, role: body.role, enterpriseId: body.enterprise, branchId: body.branch };
      return grantUnderFourEyes({ deps, principal: { ...actor, ...requestOrigin(ctx) }, ctx }, grant);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/v1/auth/users/{id}/roles/{grant_id}/',
    module: 'auth',
    operationId: 'revokeRole',
    summary: 'Revoke a role grant (effective on the next request)',
    access: ['admin'],
    status: 204,
    params: yup.object({ id: yup.string().uuid().required(), grant_id: yup.string().uuid().required() }),
    errorStatuses: [401, 403, 404],
    refusals: ['not_allowed'],
    handler: async ({ params, principal: actor, deps }) => {
      await userWithGrants(deps.knex, actor, params.id);
      await revokeGrant(deps.activities, actor, params.id, params.grant_id);
      return undefined;
    },
  }),
  ...(['deactivate', 'activate'] as const).map((action) =>
    defineRoute({
      method: 'post',
      path: `/api/v1/auth/users/{id}/${action}/`,
      module: 'auth',
      operationId: `${action}User`,
      summary: action === 'deactivate' ? 'Deactivate a user: every session ends at once' : 'Reactivate a user',
      access: ['admin'],
      params: userIdParams,
      response: userSchema,
      errorStatuses: [401, 403, 404, 409],
      refusals: action === 'deactivate' ? ['not_allowed', 'cannot_deactivate_self'] : ['not_allowed'],
      handler: async ({ params, principal: actor, deps }) => {
        await userWithGrants(deps.knex, actor, params.id);
        await setUserActive(deps.activities, actor, params.id, action === 'activate');
        return userWithGrants(deps.knex, actor, params.id);
      },
    }),
  ),
];
