import type { Principal } from '../auth/principal';
import { whereFilters } from '../pagination';
import { scopeToVisible } from './enterprise-scope';

type ListBuilder<B> = {
  whereRaw(sql: string, bindings: readonly string[]): B;
  where(column: string, operator: string, value: unknown): B;
};

/**
 * The rows of a list as the principal sees them (scopeToVisible on the `enterprise` and `branch` columns), narrowed
 * by the filters the query sent (whereFilters): the list's `enterprise` and `branch` filters, where it has them, on
 * those same columns, so a list names each column once.
 */
export function visibleRows<B extends ListBuilder<B>, Q extends object>(
  builder: B,
  principal: Principal,
  query: Q,
  columns: Parameters<typeof whereFilters<B, Q>>[2] & { enterprise: string; branch?: string },
): B {
  const { enterprise, branch } = columns;
  return whereFilters(scopeToVisible(builder, principal, { enterprise, branch }), query, columns);
}

/** The order of a list of products (loan, savings): by code, or by name when the query asks. */
export const byCodeOrName = { orderingColumns: { code: 'code', name: 'name' }, defaultOrdering: 'code' };
