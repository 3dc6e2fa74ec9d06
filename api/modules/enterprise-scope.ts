import type { QueryBuilder, Model } from 'objection';
import * as yup from 'yup';
import { visibility } from '../../domain/access';
import type { AnyRoute } from '../route';
import type { Principal } from '../auth/principal';

/**
 * Limits a list query to what the principal may see: every row for a platform administrator; otherwise rows
 * of enterprises where they hold a role, and, for a user whose roles are in some branches only, rows of those
 * branches (when the resource has a branch column).
 */
export function scopeToVisible<M extends Model>(
  builder: QueryBuilder<M, M[]>,
  principal: Principal,
  columns: { enterprise: string; branch?: string },
): QueryBuilder<M, M[]> {
  const seen = visibility(principal.grants);
  if (seen.all) return builder;
  const enterprises = [...seen.enterprises.entries()];
  if (enterprises.length === 0) return builder.whereRaw('false');
  return builder.where((outer) => {
    for (const [enterpriseId, access] of enterprises) {
      outer.orWhere((inner) => {
        inner.where(columns.enterprise, enterpriseId);
        if (columns.branch !== undefined && !access.wholeEnterprise) inner.whereIn(columns.branch, [...access.branchIds]);
      });
    }
  });
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
    handler: (input) => {
      const enterprise = (input.params as { enterprise_pk: string }).enterprise_pk;
      return route.handler({
        ...input,
        query: { ...(input.query as object | undefined), enterprise },
        body: input.body === undefined ? undefined : { ...input.body, enterprise },
      });
    },
  };
  return [route, nested];
}
