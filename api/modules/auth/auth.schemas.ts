import * as yup from 'yup';
import { roles } from '../../../domain/access';
import { passwordLengthMax } from '../../../domain/password-policy';
import type { RoleGrant } from '../../../db/models/role-grant.model';
import type { User } from '../../../db/models/user.model';
import { timestampResponse, nullableId } from '../common.schemas';
import { approvalRequestSchema } from '../approvals/approval-requests.schemas';

export const usernameSchema = yup
  .string()
  .trim()
  .lowercase()
  .required()
  .matches(/^[a-z0-9._-]{3,150}$/, 'username must be 3 to 150 letters, digits, dots, dashes or underscores');
export const passwordSchema = yup.string().required().max(passwordLengthMax);

export const credentialsSchema = yup.object({ username: usernameSchema, password: passwordSchema });

export const grantSchema = yup
  .object({
    id: yup.string().uuid().required(),
    user: yup.string().uuid().required(),
    role: yup.string().oneOf(roles).required(),
    enterprise: nullableId('null: every enterprise (platform administrator).'),
    branch: nullableId('null: the whole enterprise.'),
    granted_at: timestampResponse(),
  })
  .meta({ component: 'RoleGrant' });

export const userSchema = yup
  .object({
    id: yup.string().uuid().required(),
    username: yup.string().required(),
    full_name: yup.string().required(),
    email: yup.string().defined(),
    is_active: yup.boolean().required(),
    last_login_at: timestampResponse().nullable(),
    created_at: timestampResponse(),
    roles: yup.array(grantSchema).required(),
  })
  .meta({ component: 'User' });

/** A user just created by an administrator, with the one-time invitation that lets its person set a password. */
const invitationObject = () =>
  yup.object({
    token: yup.string().required().meta({
      description:
        'Shown once: give it to the person, who sets their password with it (POST /api/v1/auth/invitations/accept/).',
    }),
    expires_at: timestampResponse(),
  });

export const invitationSchema = invitationObject().meta({ component: 'Invitation' });

export const createdUserSchema = yup
  .object({
    ...userSchema.fields,
    pending_roles: yup
      .array(approvalRequestSchema)
      .required()
      .meta({ description: "The roles awaiting a second administrator's approval, one request each." }),
    invitation: invitationObject().required(),
  })
  .meta({ component: 'CreatedUser' });

export const tokenPairSchema = yup
  .object({ access: yup.string().required(), refresh: yup.string().required() })
  .meta({ component: 'TokenPair' });

export function serializeGrant(
  grant: Pick<RoleGrant, 'id' | 'userId' | 'role' | 'enterpriseId' | 'branchId' | 'createdAt'>,
) {
  return {
    id: grant.id,
    user: grant.userId,
    role: grant.role,
    enterprise: grant.enterpriseId,
    branch: grant.branchId,
    granted_at: grant.createdAt.toISOString(),
  };
}

export function serializeUser(user: User, grants: readonly RoleGrant[]) {
  return {
    id: user.id,
    username: user.username,
    full_name: user.fullName,
    email: user.email,
    is_active: user.isActive,
    last_login_at: user.lastLoginAt?.toISOString() ?? null,
    created_at: user.createdAt.toISOString(),
    roles: grants.map(serializeGrant),
  };
}
