import * as yup from 'yup';
import { changePassword } from '../../../activities/auth/change-password.activity';
import { registerUser } from '../../../activities/auth/register.activity';
import { signIn } from '../../../activities/auth/sign-in.activity';
import { endSignIn, familyOfToken, rotateRefreshToken, verifyToken } from '../../../activities/auth/tokens';
import { AppError } from '../../../domain/errors';
import { RoleGrant } from '../../../db/models/role-grant.model';
import { User } from '../../../db/models/user.model';
import { presentedAccessToken } from '../../auth/access-token';
import { assertCsrfProof, clearSessionCookies, cookieNames, setSessionCookies } from '../../auth/cookies';
import { requestOrigin, type AppContext } from '../../context';
import type { RouteDeps } from '../../deps';
import { defineRoute } from '../../route';
import {
  credentialsSchema,
  passwordSchema,
  serializeUser,
  tokenPairSchema,
  usernameSchema,
  userSchema,
} from './auth.schemas';

/** Sign-up, sign-in and sessions: cookies for browsers, JSON token pairs for other clients. */
export const authRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/v1/auth/register/',
    module: 'auth',
    operationId: 'register',
    summary: 'Sign up: a user with no role until an administrator grants one',
    access: 'public',
    status: 201,
    location: '/api/v1/auth/users/{id}/',
    body: yup.object({
      username: usernameSchema,
      password: passwordSchema,
      full_name: yup.string().trim().required().min(2).max(200),
      email: yup.string().trim().email().max(254).default(''),
    }),
    response: userSchema,
    errorStatuses: [409, 429],
    refusals: ['too_many_attempts', 'username_taken'],
    handler: async ({ body, deps, ctx }) => {
      const user = await registerUser(
        deps.activities,
        {
          username: body.username,
          password: body.password,
          fullName: body.full_name,
          email: body.email,
          clientAddress: ctx.ip,
        },
        requestOrigin(ctx),
      );
      return serializeUser(user, []);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/auth/login/',
    module: 'auth',
    operationId: 'login',
    summary: 'Sign in: sets the access token in an HttpOnly cookie (and the refresh and CSRF cookies)',
    description:
      'Send the `csrf_token` cookie value in `X-CSRF-Token` with ' +
      'every cookie-authenticated POST, PATCH, PUT or DELETE.',
    access: 'public',
    body: credentialsSchema,
    response: yup.object({ user: userSchema, csrf_token: yup.string().required() }),
    errorStatuses: [401, 429],
    refusals: ['invalid_credentials', 'too_many_attempts'],
    handler: async ({ body, deps, ctx }) => {
      const { user, tokens } = await signIn(deps.activities, { ...body, clientAddress: ctx.ip });
      const csrfToken = setSessionCookies(ctx, tokens, deps.secureCookies, deps.auth.jwtSecret);
      return { user: serializeUser(user, await RoleGrant.activeOf(deps.knex, [user.id])), csrf_token: csrfToken };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/auth/logout/',
    module: 'auth',
    operationId: 'logout',
    summary: 'Sign out: revokes this sign-in (its refresh and access tokens) and clears the cookies',
    description:
      'Works once the access token has expired too: the sign-in is then found ' +
      'through the refresh token (the refresh cookie, or `refresh` in the body), ' +
      'else through the expired access token itself. Cookies are always cleared.',
    access: 'public',
    status: 204,
    body: yup.object({ refresh: yup.string().max(4096).optional() }),
    errorStatuses: [403],
    handler: async ({ body, principal, deps, ctx }) => {
      const session =
        principal === undefined
          ? signInOfPresentedTokens(ctx, deps, body.refresh)
          : { familyId: principal.familyId, viaCookie: principal.via === 'cookie' };
      // A cookie session proves the request is its own, as for any change: no foreign site signs a user out.
      if (session !== undefined && session.viaCookie) assertCsrfProof(ctx, session.familyId, deps.auth.jwtSecret);
      if (session !== undefined) await endSignIn(deps.knex, session.familyId, deps.clock());
      clearSessionCookies(ctx, deps.secureCookies);
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/auth/users/me/',
    module: 'auth',
    operationId: 'getCurrentUser',
    summary: 'The signed-in user, with roles read from the database now',
    access: 'authenticated',
    response: userSchema,
    errorStatuses: [401],
    handler: async ({ principal, deps }) => {
      const { userId } = principal;
      const user = await User.query(deps.knex).findById(userId).throwIfNotFound();
      return serializeUser(user, await RoleGrant.activeOf(deps.knex, [userId]));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/auth/users/me/password/',
    module: 'auth',
    operationId: 'changePassword',
    summary: "Change one's password; every other session of the user is revoked",
    access: 'authenticated',
    status: 204,
    body: yup.object({ current_password: passwordSchema, new_password: passwordSchema }),
    errorStatuses: [401, 403, 429],
    refusals: ['too_many_attempts'],
    handler: async ({ body, principal, deps, ctx }) => {
      const { userId, familyId } = principal;
      await changePassword(deps.activities, {
        userId,
        keepFamilyId: familyId,
        currentPassword: body.current_password,
        newPassword: body.new_password,
        ...requestOrigin(ctx),
      });
      return undefined;
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/token/',
    module: 'auth',
    operationId: 'obtainTokenPair',
    summary: 'Obtain {access, refresh} as JSON (non-browser clients)',
    access: 'public',
    body: credentialsSchema,
    response: tokenPairSchema,
    errorStatuses: [401, 429],
    refusals: ['invalid_credentials', 'too_many_attempts'],
    handler: async ({ body, deps, ctx }) => {
      const { tokens } = await signIn(deps.activities, { ...body, clientAddress: ctx.ip });
      return { access: tokens.access, refresh: tokens.refresh };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/token/refresh/',
    module: 'auth',
    operationId: 'refreshTokenPair',
    summary: 'Rotate: a new {access, refresh}; the refresh token presented is spent',
    description:
      'Send `refresh` in the body (JSON clients), or no body with the refresh cookie and the CSRF header (browsers, ' +
      'which get new cookies). Presenting a spent refresh token revokes every token of its sign-in.',
    access: 'public',
    body: yup.object({ refresh: yup.string().optional() }),
    response: tokenPairSchema,
    errorStatuses: [401, 403],
    refusals: ['session_expired', 'token_reused'],
    handler: async ({ body, deps, ctx }) => {
      const fromCookie = body.refresh === undefined;
      const presented = body.refresh ?? ctx.cookies.get(cookieNames(deps.secureCookies).refresh);
      if (presented === undefined) throw new AppError('unauthenticated', 'not_authenticated', 'Send a refresh token.');
      if (fromCookie)
        assertCsrfProof(ctx, verifyToken(presented, deps.auth, deps.clock(), 'refresh').fam, deps.auth.jwtSecret);
      const tokens = await rotateRefreshToken(deps.activities, presented);
      if (fromCookie) setSessionCookies(ctx, tokens, deps.secureCookies, deps.auth.jwtSecret);
      return { access: tokens.access, refresh: tokens.refresh };
    },
  }),
];

/**
 * The sign-in a logout without a live access token ends: that of the refresh token (body, else cookie), else that
 * of the expired access token presented. Either is ours when its signature is, expired or not, and ends its
 * sign-in all the same; undefined when there is none or it is not ours.
 */
function signInOfPresentedTokens(
  ctx: AppContext,
  deps: RouteDeps,
  fromBody: string | undefined,
): { familyId: string; viaCookie: boolean } | undefined {
  const refresh = fromBody ?? ctx.cookies.get(cookieNames(deps.secureCookies).refresh);
  const presented =
    refresh === undefined
      ? presentedAccessToken(ctx, cookieNames(deps.secureCookies).access)
      : { token: refresh, via: fromBody === undefined ? 'cookie' : 'bearer' };
  const familyId = presented === undefined ? undefined : familyOfToken(presented.token, deps.auth);
  return familyId === undefined ? undefined : { familyId, viaCookie: presented!.via === 'cookie' };
}
