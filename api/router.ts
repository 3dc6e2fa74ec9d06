import Router from '@koa/router';
import type { AppState } from './context';
import type { RouteDeps } from './deps';
import { readJsonBody } from './json-body';
import { AcceptedForApproval, type AnyRoute, type Loader, type RouteAccess } from './route';
import type { AppContext } from './context';
import type { Scope } from '../domain/access';
import { AppError, NotFoundError } from '../domain/errors';
import { requireRole, requireVisible, requireWholeEnterprise } from './auth/access';
import { assertCsrfProof } from './auth/cookies';
import type { Principal } from './auth/principal';
import { changeIfMatch, entityTagOf } from './conditional';
import { idempotencyKeyOf } from './idempotency-key';
import { validateInput } from './validation';

/** `/loans/{id}/` (OpenAPI) to `/loans/:id/` (router). */
function toRouterPath(path: string): string {
  return path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

export function buildRouter(routes: readonly AnyRoute[], deps: RouteDeps): Router<AppState> {
  const router = new Router<AppState>();
  const details = new Map(routes.filter((route) => route.method === 'get').map((route) => [route.path, route]));
  const editable = new Set(routes.filter((route) => route.method === 'patch').map((route) => route.path));
  for (const route of routes) {
    assertDeclaration(route);
    // Only what a PATCH may change carries a version: lists and read-only details are not hashed.
    const versioned = route.method === 'get' && editable.has(route.path);
    // A PATCH edits what the GET of the same path shows: that representation's ETag is the version If-Match names.
    const detail = route.method === 'patch' ? details.get(route.path) : undefined;
    router[route.method](toRouterPath(route.path), async (ctx) => {
      ctx.state.route = route.path;
      if (route.access !== 'public') assertAccess(ctx, route.access, deps.auth.jwtSecret);
      const params = route.params ? await validateInput(route.params, ctx.params, 'path') : undefined;
      const query = route.query ? await validateInput(route.query, ctx.query, 'query') : undefined;
      const body = route.body
        ? await validateInput(route.body, await readJsonBody(ctx, deps.bodyLimitBytes), 'body')
        : undefined;
      const idempotencyKey = route.idempotent === true ? idempotencyKeyOf(ctx) : null;
      const authorize = (scope: Scope, what: string) => authorizeAt(ctx.state.principal, route.access, scope, what);
      const load = async <T>(loader: Loader<T>, id: string, enterprise?: string) =>
        loadAuthorized(loader, { deps, id, enterprise, principal: ctx.state.principal, access: route.access });
      const input = {
        params,
        query,
        body,
        deps,
        ctx,
        principal: ctx.state.principal,
        idempotencyKey,
        authorize,
        load,
        resource: undefined,
      };
      const ifMatch = ctx.get('If-Match');
      const change = async () => handle(route, input);
      // The detail's own loader and access: reading the current version needs only to see the resource.
      const readCurrent = async () =>
        handle(detail!, {
          ...input,
          query: detail!.query ? await validateInput(detail!.query, ctx.query, 'query') : undefined,
          body: undefined,
        });
      // The lock key: the resource's id, the same under the flat and the enterprise-nested path.
      const resourceKey = (params as { id?: string } | undefined)?.id ?? ctx.path;
      const result =
        detail !== undefined && ifMatch !== ''
          ? await changeIfMatch(deps.knex, resourceKey, ifMatch, readCurrent, change)
          : await change();
      respond(ctx, route, result, versioned || (detail !== undefined && route.response === detail.response));
    });
  }
  return router;
}

/** Refuses, at start-up, a route declared against the router's rules. */
function assertDeclaration(route: AnyRoute): void {
  const param = route.load?.param;
  if (
    route.load !== undefined &&
    (param === undefined ? !/\{(id|enterprise_pk)\}/.test(route.path) : !route.path.includes(`{${param}}`))
  )
    throw new Error(
      `${route.operationId}: a route that loads its resource has an {${param ?? 'id'}} in its path` +
        (param === undefined ? " (or the enterprise's own {enterprise_pk})" : " (its loader's parameter)"),
    );
  if (
    route.downloadable === true &&
    !Object.hasOwn((route.query?.describe() as { fields?: object } | undefined)?.fields ?? {}, 'format')
  )
    throw new Error(`${route.operationId}: a downloadable route's query has format`);
}

/** Answers a handler's result: 202 for a request to approve, else the route's status, ETag and Location. */
function respond(ctx: AppContext, route: AnyRoute, result: unknown, tagged: boolean): void {
  if (result instanceof AcceptedForApproval) {
    ctx.status = 202;
    ctx.body = result.request;
    ctx.set('Location', result.location);
  } else if (result !== undefined) {
    ctx.status = route.status ?? 200;
    ctx.body = result;
    if (tagged) ctx.set('ETag', entityTagOf(result));
    if (route.location !== undefined)
      ctx.set('Location', locationOf(route.location, result as Record<string, unknown>));
  } else if (route.status === 204) {
    ctx.status = 204;
  }
}

type Input = Parameters<AnyRoute['handler']>[0];

/**
 * Runs a route's handler, with the resource of its `load` found and authorized first (at each run: under If-Match's
 * lock too).
 */
async function handle(route: AnyRoute, input: Input): Promise<unknown> {
  if (route.load === undefined) return route.handler(input);
  const { params, query } = input as {
    params: Record<string, string | undefined> & { id?: string; enterprise_pk?: string };
    query: { enterprise?: string } | undefined;
  };
  // The enterprise the request names (the flat `enterprise` filter, or the nested path's): a resource of another is not
  // there.
  const enterprise = query?.enterprise ?? params.enterprise_pk;
  // The path's resource; the enterprise itself for its own settings (`…/enterprises/{enterprise_pk}/configuration/`).
  const param = route.load.param;
  const id = (param === undefined ? (params.id ?? params.enterprise_pk) : params[param])!;
  const resource = await loadAuthorized(route.load, {
    deps: input.deps,
    id,
    enterprise,
    principal: input.principal,
    access: route.access,
  });
  return route.handler({ ...input, resource });
}

interface LoadRequest {
  deps: RouteDeps;
  id: string;
  /** The enterprise the request names, if any: a resource of another one is not there. */
  enterprise: string | undefined;
  principal: Principal | undefined;
  access: RouteAccess;
}

/**
 * 404 (the loader's name) when absent, of another enterprise or not visible; 403 when the roles (the loader's, else the
 * route's) do not hold there.
 */
async function loadAuthorized<T>(loader: Loader<T>, request: LoadRequest): Promise<T> {
  const row = await loader.load(request.deps, request.id);
  if (row === undefined || (request.enterprise !== undefined && loader.scope(row).enterpriseId !== request.enterprise))
    throw new NotFoundError(loader.name);
  const seen = loader.scope(row);
  if (request.principal !== undefined) {
    requireVisible(request.principal, seen, loader.name);
    if (loader.wholeEnterprise?.(row) === true)
      requireWholeEnterprise(request.principal, seen.enterpriseId, loader.name);
  }
  authorizeAt(request.principal, loader.roles ?? request.access, loader.changeScope?.(row) ?? seen, loader.name);
  return row;
}

/** The `Location` of a created resource: its template filled from the answer's fields. */
function locationOf(template: string, answer: Record<string, unknown>): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, field: string) => {
    const value = answer[field];
    if (typeof value !== 'string') throw new Error(`Location ${template}: the answer has no field ${field}`);
    return encodeURIComponent(value);
  });
}

const failureMessages = {
  token_expired: 'The access token has expired: refresh it or sign in again.',
  token_invalid: 'The access token is not valid.',
  token_revoked: 'This session was revoked or the account deactivated: sign in again.',
} as const;

/** 401 without a valid session, 403 without a CSRF proof (cookie sessions) or without any of the roles. */
function authorizeAt(principal: Principal | undefined, access: RouteAccess, scope: Scope, what: string): void {
  // A public route has no resource of a caller's to check: declaring it public was the access decision.
  if (access === 'public' || principal === undefined) throw new Error('authorize() called on a public route');
  if (access === 'authenticated') requireVisible(principal, scope, what);
  else requireRole(principal, access, scope, what);
}

function assertAccess(ctx: AppContext, access: Exclude<RouteAccess, 'public'>, secret: string): void {
  const principal = ctx.state.principal;
  if (principal === undefined) {
    const failure = ctx.state.authFailure;
    throw new AppError(
      'unauthenticated',
      failure ?? 'not_authenticated',
      failure ? failureMessages[failure] : 'Sign in first.',
    );
  }
  if (principal.via === 'cookie') assertCsrfProof(ctx, principal.familyId, secret);
  if (access !== 'authenticated' && !principal.grants.some((grant) => access.includes(grant.role))) {
    throw new AppError('forbidden', 'role_required', `This requires one of the roles: ${access.join(', ')}.`);
  }
}
