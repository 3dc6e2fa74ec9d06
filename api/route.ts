import type { Schema } from 'yup';
import type { Role, Scope } from '../domain/access';
import type { ErrorCode } from '../domain/error-catalogue';
import type { Principal } from './auth/principal';
import type { AppContext } from './context';
import type { RouteDeps } from './deps';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call a route: anyone, any signed-in user, or a user holding one of the roles somewhere. The
 * handler then checks the role at the resource's own enterprise or branch (api/auth/access.ts).
 */
export type RouteAccess = 'public' | 'authenticated' | readonly Role[];

/**
 * How a route finds the resource its path's `{id}` names (koa-router's `param`): its name in a 404, its row, and
 * the enterprise and branch it belongs to. It only reads: the router answers the 404 and checks access, in one
 * place, so a loader never decides who may see the row. Loaders live in the module's `.queries.ts`.
 */
export interface Loader<R> {
  /** `The share type`: the 404 says "The share type was not found.". */
  name: string;
  load(deps: RouteDeps, id: string): Promise<R | undefined>;
  /** Where it is seen: who holds no role there gets the 404. */
  scope(row: R): Scope;
  /**
   * Where the route's roles are checked, when not where it is seen (a branch: seen by its staff, changed at its
   * enterprise).
   */
  changeScope?(row: R): Scope;
  /** The roles that act on it whatever the route's own (money moved through an account at the counter: a teller's). */
  roles?: readonly Role[];
  /** The path's parameter that names it, when not `{id}` (a chart's reports and accounts: `{chart_pk}`). */
  param?: string;
  /**
   * True when it is the enterprise's document, seen only with a role over the whole enterprise (a consolidated
   * report; an approval request of no branch): to a user of some branches, 404.
   */
  wholeEnterprise?(row: R): boolean;
}

export interface RouteInput<P, Q, B, A extends RouteAccess = RouteAccess, R = undefined> {
  params: P;
  query: Q;
  body: B;
  deps: RouteDeps;
  ctx: AppContext;
  /** The signed-in user: always there on a guarded route (the router refuses the request otherwise). */
  principal: A extends 'public' ? Principal | undefined : Principal;
  /** The client's Idempotency-Key on a route declared `idempotent` (null when none was sent, or not declared). */
  idempotencyKey: string | null;
  /**
   * Checks the route's own `access` roles at the resource's enterprise and branch (on an `authenticated` route,
   * only that the caller sees it): 404 for a resource the caller cannot see, 403 for one they may not change.
   * The roles are declared once, in `access`; a handler needing a narrower role calls requireRole itself.
   */
  authorize(scope: Scope, what: string): void;
  /** The resource of the route's `load`, found and authorized by the router before the handler runs. */
  resource: R;
  /**
   * Another resource the request names (a body's `subscription`…), found and authorized as the path's one is:
   * 404 when absent, of another `enterprise` (when given) or not visible, 403 when the route's roles do not
   * hold at its enterprise and branch.
   */
  load<T>(loader: Loader<T>, id: string, enterprise?: string): Promise<T>;
}

/**
 * One route, declared once: the router is built from these declarations and so is the OpenAPI document,
 * so what is documented is exactly what is validated.
 */
export interface RouteSpec<P = unknown, Q = unknown, B = unknown, A extends RouteAccess = RouteAccess, R = undefined> {
  method: HttpMethod;
  /** OpenAPI-style template ending with `/`, e.g. `/api/v1/loans/products/{id}/`. */
  path: string;
  /** The API module (`auth`, `loans`…): groups the route in per-module schema and docs pages. */
  module: string;
  /** Unique, camelCase: the OpenAPI operationId that client generators turn into method names. */
  operationId: string;
  summary: string;
  description?: string;
  access: A;
  /**
   * The resource the path's `{id}` names (the enterprise's own settings: its `{enterprise_pk}`; else the loader's
   * `param`): the router loads it,
   * answers 404 when it is absent, of another enterprise than the `enterprise` filter or the nested path's, or not
   * visible, checks `access` at its enterprise and branch (403), and hands it to the handler as `resource`.
   */
  load?: Loader<R>;
  params?: Schema<P>;
  query?: Schema<Q>;
  body?: Schema<B>;
  /**
   * The media types of a raw file body (an import's upload): the route declares no `body`, and its handler streams
   * the request itself through api/upload-body.ts. Documented as a binary request body.
   */
  upload?: readonly string[];
  /** Success status (default 200) and the schema of its JSON body. */
  status?: number;
  response?: Schema<unknown>;
  /**
   * Where the created (201) or accepted (202) resource can be read: a path template filled from the answer's
   * fields, e.g. `/api/v1/shares/types/{id}/`. Sent as the `Location` header.
   */
  location?: string;
  /**
   * The route moves money and reads an `Idempotency-Key` header: a retry with the same key and body answers the
   * first result (with `Idempotent-Replayed: true`) and moves nothing. Documented as a header parameter.
   */
  idempotent?: true;
  /** Media type of the success body when it is not JSON (metrics text, HTML), or the media types it may have. */
  produces?: string | readonly string[];
  /**
   * A report: its query has `format` (api/report-download.ts), and besides its JSON it answers the same figures
   * as CSV or XLSX. Documented as the success's other media types.
   */
  downloadable?: true;
  /** Error statuses worth documenting beyond the generic ones. */
  errorStatuses?: number[];
  /**
   * The catalogue codes of the refusals the handler can answer besides the generic ones every route can
   * (api/openapi.ts): documented per status as `x-error-codes`, so a client can switch on them.
   */
  refusals?: readonly ErrorCode[];
  /**
   * The route's change may need a second person (four eyes): the schema of the approval request it then answers
   * with 202, when its handler returns an `AcceptedForApproval` (api/modules/approvals/four-eyes.ts).
   */
  accepted?: Schema<unknown>;
  /** Other statuses whose body is the success schema, not a problem (readiness: 503 names the failing check). */
  sameBodyStatuses?: number[];
  /** Left out of the OpenAPI document (the docs pages themselves). */
  hidden?: boolean;
  /** Returns the JSON body; returns undefined when it has set `ctx.body` itself (non-JSON answers). */
  handler(input: RouteInput<P, Q, B, A, R>): Promise<unknown> | unknown;
}

/** A change held for another user's approval: the router answers 202 with the request, `Location` its detail. */
export class AcceptedForApproval {
  constructor(
    readonly request: Record<string, unknown>,
    readonly location: string,
  ) {}
}

/** Identity with inference: lets TypeScript derive the handler's input types from the schemas and the loader. */
export function defineRoute<
  P = undefined,
  Q = undefined,
  B = undefined,
  const A extends RouteAccess = RouteAccess,
  R = undefined,
>(spec: RouteSpec<P, Q, B, A, R>): RouteSpec<P, Q, B, A, R> {
  return spec;
}

// Route lists hold routes of different input types; the router only needs their common shape.
export type AnyRoute = RouteSpec<any, any, any, any, any>;
