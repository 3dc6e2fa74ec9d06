import * as yup from 'yup';
import { canSee, visibility, type Scope } from '../../domain/access';
import type { Knex } from 'knex';
import type { RouteDeps } from '../deps';
import type { AnyRoute, Loader } from '../route';
import type { Principal } from '../auth/principal';
import { requireVisible } from '../auth/access';
import { NotFoundError } from '../../domain/errors';

/**
 * Limits a list query (Objection or plain knex) to what the principal may see: every row for a platform
 * administrator; otherwise rows of enterprises where they hold a role and, for a user whose roles are in some
 * branches only, rows of those branches (when the resource has a branch column).
 */
export function scopeToVisible<B extends { whereRaw(sql: string, bindings: readonly string[]): B }>(
  builder: B,
  principal: Principal,
  columns: { enterprise: string; branch?: string },
): B {
  const seen = visibility(principal.grants);
  if (seen.all) return builder;
  const clauses: string[] = [];
  const bindings: string[] = [];
  for (const [enterpriseId, access] of seen.enterprises) {
    if (columns.branch === undefined || access.wholeEnterprise) {
      clauses.push('?? = ?');
      bindings.push(columns.enterprise, enterpriseId);
    } else {
      clauses.push(`(?? = ? AND ?? IN (${[...access.branchIds].map(() => '?').join(', ')}))`);
      bindings.push(columns.enterprise, enterpriseId, columns.branch, ...access.branchIds);
    }
  }
  return builder.whereRaw(clauses.length === 0 ? 'false' : `(${clauses.join(' OR ')})`, bindings);
}

/**
 * Limits a list of rows that lie in two branches (an operation's counter and account, a transfer's two sides) to
 * those the principal sees on either side.
 */
export function scopeToEitherBranch<B extends Knex.QueryBuilder>(
  rows: B,
  principal: Principal,
  columns: { enterprise: string; branches: readonly [string, string] },
): B {
  const [first, second] = columns.branches;
  return rows.where((either) =>
    either
      .where((side) => {
        scopeToVisible(side, principal, { enterprise: columns.enterprise, branch: first });
      })
      .orWhere((side) => {
        scopeToVisible(side, principal, { enterprise: columns.enterprise, branch: second });
      }),
  ) as B;
}

/** A list filter on two columns (a branch or an account on either side): rows where either is the value. */
export function whereEither(rows: Knex.QueryBuilder, columns: readonly [string, string], value: string | undefined) {
  if (value !== undefined) rows.where((either) => either.where(columns[0], value).orWhere(columns[1], value));
}

/** Whether the principal sees a row that lies in two branches, on either side (its detail's branch isolation). */
export const seesEitherBranch = (principal: Principal, enterpriseId: string, branchIds: readonly string[]) =>
  branchIds.some((branchId) => canSee(principal.grants, { enterpriseId, branchId }));

/**
 * Limits a list of enterprise-wide documents (month ends, provisioning runs) to the enterprises the principal
 * sees whole (api/auth/access.ts, requireWholeEnterprise): a user of some branches lists none of them.
 */
export function scopeToWholeEnterprises<B extends { whereRaw(sql: string, bindings: readonly string[]): B }>(
  builder: B,
  principal: Principal,
  enterpriseColumn: string,
): B {
  const seen = visibility(principal.grants);
  if (seen.all) return builder;
  const whole = [...seen.enterprises]
    .filter(([, access]) => access.wholeEnterprise)
    .map(([enterpriseId]) => enterpriseId);
  if (whole.length === 0) return builder.whereRaw('false', []);
  return builder.whereRaw(`?? IN (${whole.map(() => '?').join(', ')})`, [enterpriseColumn, ...whole]);
}

const flatPrefix = '/api/v1/enterprise/';
const nestedPrefix = '/api/v1/enterprise/enterprises/{enterprise_pk}/';
const enterprisePk = yup.string().uuid().required().meta({ description: 'The enterprise.' });

/**
 * Enterprise sub-resources answer both flat (`/api/v1/enterprise/branches/`, the enterprise in the `enterprise`
 * query filter or body field) and nested (`/api/v1/enterprise/enterprises/{enterprise_pk}/branches/`). This
 * derives the nested route from the flat one: same handler, the path's enterprise forced into `query.enterprise`
 * (always) and `body.enterprise` (when there is a body), so one declaration serves both and they cannot drift
 * apart. Detail handlers compare `query.enterprise`, when set, with the resource's enterprise (404 otherwise).
 */
export function withNestedVariant(route: AnyRoute): AnyRoute[] {
  if (!route.path.startsWith(flatPrefix)) throw new Error(`${route.path} is not an enterprise sub-resource`);
  const params = (route.params as yup.AnyObjectSchema | undefined) ?? yup.object({});
  const query = route.query as yup.AnyObjectSchema | undefined;
  const body = route.body as yup.AnyObjectSchema | undefined;
  const nested: AnyRoute = {
    ...route,
    path: nestedPrefix + route.path.slice(flatPrefix.length),
    operationId: `${route.operationId}OfEnterprise`,
    params: params.shape({ enterprise_pk: enterprisePk }),
    query: (query ?? yup.object({})).shape({ enterprise: yup.string().strip() }),
    body: body?.shape({ enterprise: yup.mixed().strip() }),
    handler: async (input) => {
      const enterprise = (input.params as { enterprise_pk: string }).enterprise_pk;
      // The path names the enterprise: one the user cannot see, or that does not exist, is a 404, not an empty list.
      if (input.principal !== undefined)
        requireVisible(input.principal, { enterpriseId: enterprise }, 'The enterprise');
      if ((await input.deps.knex('enterprises').where({ id: enterprise }).first('id')) === undefined)
        throw new NotFoundError('The enterprise');
      return route.handler({
        ...input,
        query: { ...(input.query as object | undefined), enterprise },
        body: input.body === undefined ? undefined : { ...input.body, enterprise },
      });
    },
  };
  return [route, nested];
}

const fixedScopeSql = {
  comptes_clients: {
    name: 'api_account_scope',
    sql: 'SELECT enterprise_id AS "enterpriseId", branch_id AS "branchId" FROM comptes_clients WHERE id = ?',
  },
  loans: {
    name: 'api_loan_scope',
    sql: 'SELECT enterprise_id AS "enterpriseId", branch_id AS "branchId" FROM loans WHERE id = ?',
  },
} as const;

/**
 * Where a row lies, without loading it: what an operation needs to authorize, whose row the operation itself
 * locks and reads. An account or a loan never changes enterprise or branch (the database refuses it:
 * `*_scope_fixed`), so the process reads it once (a statement prepared once per connection) and remembers it; the
 * operation itself still answers 404 for a row that is gone.
 */
export function fixedScopeLoader(
  name: string,
  table: keyof typeof fixedScopeSql,
  memo: keyof Pick<RouteDeps, 'accountScopes' | 'loanScopes'>,
): Loader<Scope> {
  return {
    name,
    load: async (deps, id) => {
      const remembered = deps[memo].get(id);
      if (remembered !== undefined) return remembered;
      const { rows } = (await deps.knex
        .raw(fixedScopeSql[table].sql, [id])
        .options({ name: fixedScopeSql[table].name })) as { rows: Scope[] };
      if (rows[0] !== undefined) deps[memo].remember(id, rows[0]);
      return rows[0];
    },
    scope: (scope) => scope,
  };
}

/** A resource of one enterprise, seen and changed there (a rule, a run, a request), read by id. */
export const enterpriseRowLoader = <R extends { enterprise_id: string }>(
  name: string,
  read: (knex: Knex, id: string) => Promise<R | undefined>,
): Loader<R> => ({
  name,
  load: async ({ knex }, id) => read(knex, id),
  scope: (row) => ({ enterpriseId: row.enterprise_id }),
});
