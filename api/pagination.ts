import type { Knex } from 'knex';
import type { QueryBuilder, Model } from 'objection';
import * as yup from 'yup';
import { AppError } from '../domain/errors';
import type { SchemaMeta } from './json-schema';

const pageSizeDefault = 20;
export const pageSizeMax = 100;
const pageMax = 1_000_000;

/** DRF-style page of a list. */
export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/**
 * The response schema of a list of `item`s: the component `{Item}Page`, Page<Item> (OpenAPI has no generics).
 * The item must be a named component itself (`meta({ component })`).
 */
export function pageSchema(item: yup.AnyObjectSchema) {
  const itemName = (item.describe().meta as SchemaMeta | undefined)?.component;
  if (itemName === undefined) throw new Error('pageSchema: the item schema needs meta({ component })');
  return yup
    .object({
      count: yup.number().integer().required().meta({ description: 'Results in the whole list.' }),
      next: yup.string().nullable().defined().meta({ description: 'The next page, or null on the last.' }),
      previous: yup.string().nullable().defined().meta({ description: 'The previous page, or null on the first.' }),
      results: yup.array(item).required(),
    })
    .meta({ component: `${itemName}Page`, description: `Page<${itemName}>: one page of a list.` } satisfies SchemaMeta);
}

export interface ListQuery {
  page: number;
  page_size: number;
  ordering?: string;
}

/**
 * The query-string schema of a list endpoint: `page`, `page_size` (1–100) and `ordering`, a comma-separated
 * list of the declared `orderingFields`, each optionally prefixed with `-` for descending order.
 */
export function listQuerySchema<F extends yup.ObjectShape>(orderingFields: readonly string[], filters: F) {
  const allowed = orderingFields.join(', ');
  const paging = {
    // Bounded: page × page_size becomes an SQL offset, a bigint.
    page: yup
      .number()
      .integer()
      .min(1)
      .max(pageMax)
      .default(1)
      .meta({ description: `Page number, from 1 to ${pageMax}.` }),
    page_size: yup
      .number()
      .integer()
      .min(1)
      .max(pageSizeMax)
      .default(pageSizeDefault)
      .meta({ description: `Results per page (at most ${pageSizeMax}).` }),
  };
  // Declared only where there is something to sort by: a list in a fixed order takes no `ordering`.
  const ordering = yup
    .string()
    .optional()
    .test(
      'ordering',
      `ordering accepts ${allowed}, each optionally prefixed with '-'`,
      (value) =>
        value === undefined || value.split(',').every((term) => orderingFields.includes(term.replace(/^-/, ''))),
    )
    .meta({ description: `Sort by ${allowed}; prefix with '-' for descending; comma-separate several.` });
  const schema = yup.object({ ...paging, ordering, ...filters });
  return orderingFields.length === 0 ? schema.omit(['ordering']) : schema;
}

export interface PaginateOptions {
  query: ListQuery;
  /** The request URL, to build the `next` and `previous` links. */
  url: URL;
  /** API ordering field -> column; only these may be sorted on. */
  orderingColumns: Readonly<Record<string, string>>;
  /** Used when the request gives no `ordering`. */
  defaultOrdering: string;
}

/**
 * Runs one page of `builder` with its total count. The primary key always ends the sort, so pages are stable
 * even when the requested fields tie. A page past the last one is a 404, as in DRF.
 */
export async function paginate<M extends Model>(
  builder: QueryBuilder<M, M[]>,
  options: PaginateOptions,
): Promise<Page<M>> {
  const { page, page_size: pageSize } = options.query;
  for (const term of (options.query.ordering ?? options.defaultOrdering).split(',').filter((term) => term !== '')) {
    const column = options.orderingColumns[term.replace(/^-/, '')];
    if (column === undefined) throw new Error(`ordering field ${term} has no column`);
    builder.orderBy(column, term.startsWith('-') ? 'desc' : 'asc');
  }
  builder.orderBy(`${builder.modelClass().tableName}.id`, 'asc');
  const { results, total } = await builder.page(page - 1, pageSize);
  return pageOf(total, results, options.query, options.url);
}

/**
 * The same page for a plain knex query (ledger reads that aggregate or use window functions), ordered as
 * the caller already ordered it: `orderBy` must end with a unique key, for stable pages.
 */
export async function paginateRows<T>(rows: Knex.QueryBuilder, query: ListQuery, url: URL): Promise<Page<T>> {
  const { page, page_size: pageSize } = query;
  const counted = await rows.client
    .queryBuilder()
    .count({ total: '*' })
    .from(rows.clone().clearOrder().as('counted'))
    .first();
  const results = (await rows
    .clone()
    .limit(pageSize)
    .offset((page - 1) * pageSize)) as T[];
  return pageOf(Number(counted?.total ?? 0), results, query, url);
}

function pageOf<T>(total: number, results: T[], query: ListQuery, url: URL): Page<T> {
  const { page, page_size: pageSize } = query;
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  if (page > pageCount)
    throw new AppError('not_found', 'page_not_found', `Page ${page} does not exist (last page: ${pageCount}).`);
  return {
    count: total,
    next: page < pageCount ? pageLink(url, page + 1) : null,
    previous: page > 1 ? pageLink(url, page - 1) : null,
    results,
  };
}

function pageLink(url: URL, page: number): string {
  const link = new URL(url);
  link.searchParams.set('page', String(page));
  return link.toString();
}

/** A list filter's column: equal to the value sent, or a bound of a range (`date_from` → `['business_date', '>=']`). */
type FilterColumn = string | readonly [column: string, operator: '>=' | '<='];

/**
 * Applies the filters of a list: each query field that was sent narrows the rows on its column. `columns` maps
 * filter names to (qualified) column names, or to a column and a comparison for the bounds of a range.
 */
export function whereFilters<
  B extends { where(column: string, operator: string, value: unknown): B },
  Q extends object,
>(builder: B, query: Q, columns: Partial<Record<keyof Q, FilterColumn>>): B {
  for (const [filter, spec] of Object.entries(columns) as [keyof Q, FilterColumn][]) {
    const value = query[filter];
    if (value === undefined) continue;
    const [column, operator] = typeof spec === 'string' ? [spec, '='] : spec;
    builder.where(column, operator, value);
  }
  return builder;
}
