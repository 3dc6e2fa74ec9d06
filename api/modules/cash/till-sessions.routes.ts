import * as yup from 'yup';
import { closeTillSession, openTillSession } from '../../../activities/cash/till-sessions.activity';
import { tillSessionById, tillSessionsQuery, type TillSessionRow } from '../../../activities/cash/tills.queries';
import { denominationNames, denominations, type CashCount } from '../../../domain/cash/till-counts';
import { formatAmount, Money } from '../../../domain/money';
import { listQuerySchema, pageSchema, paginateRows } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { moneyResponse, tellers } from '../money.schemas';
import { postingRefusals } from '../refusal-lists';
import { tillReaders } from './tills.routes';

const piecesMax = 10_000_000;

/** The count by denomination (billetage): pieces of each XAF note and coin, a denomination left out counting none. */
export const countSchema = () =>
  yup
    .object(
      Object.fromEntries(
        denominationNames.map((name) => [
          name,
          yup
            .number()
            .strict(true)
            .integer()
            .min(0)
            .max(piecesMax)
            .meta({
              description: `Pieces of ${denominations[name]} XAF (${name.startsWith('note') ? 'notes' : 'coins'}).`,
            }),
        ]),
      ),
    )
    .meta({ component: 'CashCount' });

export const countResponse = () =>
  yup
    .object(Object.fromEntries(denominationNames.map((name) => [name, yup.number().integer().required()])))
    .meta({ component: 'CashCountAnswer' });

/** What a till's session and transfer show first: where the cash is, the till and its account. */
export const tillFields = {
  id: yup.string().uuid().required(),
  enterprise: yup.string().uuid().required(),
  branch: yup.string().uuid().required(),
  till: yup.string().uuid().required(),
  till_code: yup.string().required(),
  account: yup.string().required().meta({ description: "The till's account.", example: '5712001' }),
};

/** Those fields of a row of either. */
export const tillFieldsOf = (
  row: Pick<TillSessionRow, 'id' | 'enterprise_id' | 'branch_id' | 'till_id' | 'till_code' | 'account_code'>,
) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  branch: row.branch_id,
  till: row.till_id,
  till_code: row.till_code,
  account: row.account_code,
});

const difference = (counted: string | null, book: string | null) =>
  counted === null || book === null ? null : formatAmount(new Money(counted).minus(book));

export const tillSessionSchema = yup
  .object({
    ...tillFields,
    cashier: yup.string().uuid().required(),
    business_date: dateResponse(),
    status: yup.string().oneOf(['open', 'closed']).required(),
    opening_count: countResponse(),
    opening_total: moneyResponse(),
    opening_book_balance: moneyResponse().meta({ description: "The till's book balance before the opening count." }),
    opening_difference: moneyResponse().meta({
      description: 'Counted less book: negative a shortage (posted to 4631), positive an excess (to 4632).',
    }),
    opening_entry: nullableId('The entry of the opening difference; null: none.'),
    closing_count: countResponse().nullable().defined().default(null),
    closing_total: moneyResponse().nullable().defined(),
    closing_book_balance: moneyResponse()
      .nullable()
      .defined()
      .meta({ description: "The till's book balance at the close, before the difference." }),
    closing_difference: moneyResponse()
      .nullable()
      .defined()
      .meta({ description: 'Counted less book at the close: negative a shortage (4631), positive an excess (4632).' }),
    closing_entry: nullableId(),
    opened_at: timestampResponse(),
    closed_at: timestampResponse().nullable().defined(),
    closed_by: nullableId(),
  })
  .meta({ component: 'TillSession' });

export const serializeSession = (row: TillSessionRow) => ({
  ...tillFieldsOf(row),
  cashier: row.cashier_id,
  business_date: row.business_date,
  status: row.status,
  opening_count: row.opening_count,
  opening_total: row.opening_total,
  opening_book_balance: row.opening_book_balance,
  opening_difference: difference(row.opening_total, row.opening_book_balance),
  opening_entry: row.opening_entry_id,
  closing_count: row.closing_count,
  closing_total: row.closing_total,
  closing_book_balance: row.closing_book_balance,
  closing_difference: difference(row.closing_total, row.closing_book_balance),
  closing_entry: row.closing_entry_id,
  opened_at: row.opened_at.toISOString(),
  closed_at: row.closed_at?.toISOString() ?? null,
  closed_by: row.closed_by,
});

/** A till session by id, checked against the caller's enterprise and branch (api/router.ts). */
export const tillSessionLoader = {
  name: 'The till session',
  load: async ({ knex }, id) => tillSessionById(knex, id),
  scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
} satisfies Loader<TillSessionRow>;

/** Till sessions, the cashier's day at their till (journée de caisse, issue 29, docs/domain.md §13.1). */
export const tillSessionRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/till-sessions/',
    module: 'cash',
    operationId: 'listTillSessions',
    summary: 'List till sessions, the latest first',
    access: tillReaders,
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      till: yup.string().uuid().optional(),
      cashier: yup.string().uuid().optional(),
      business_date: isoDate().optional(),
      status: yup.string().oneOf(['open', 'closed']).optional(),
    }),
    response: pageSchema(tillSessionSchema),
    errorStatuses: [401, 403],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleRows(tillSessionsQuery(deps.knex), principal, query, {
        enterprise: 's.enterprise_id',
        branch: 's.branch_id',
        till: 's.till_id',
        cashier: 's.cashier_id',
        business_date: 's.business_date',
        status: 's.status',
      });
      const page = await paginateRows<TillSessionRow>(
        rows.orderBy([{ column: 's.opened_at', order: 'desc' }, { column: 's.id' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializeSession) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/cash/till-sessions/',
    module: 'cash',
    operationId: 'openTillSession',
    summary: 'Open your session on the till assigned to you, for the business date, with the opening count',
    description:
      "The counted total is compared with the till's book balance; a difference " +
      'is posted at once (a shortage debit 4631, an excess credit 4632, ' +
      'the till on the other side) so the session starts from what is in the drawer. One open session per till.',
    access: tellers,
    status: 201,
    location: '/api/v1/cash/till-sessions/{id}/',
    body: yup.object({ count: countSchema().default(undefined).required() }),
    response: tillSessionSchema,
    errorStatuses: [401, 403, 409, 422],
    refusals: ['till_not_assigned', 'till_session_open', ...postingRefusals],
    handler: async ({ body, principal, deps }) => {
      const session = await openTillSession(deps.activities, principal, body.count as CashCount);
      return serializeSession((await tillSessionById(deps.knex, session.id))!);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/till-sessions/{id}/',
    module: 'cash',
    operationId: 'getTillSession',
    summary: 'Till session detail: its counts and differences',
    access: tillReaders,
    load: tillSessionLoader,
    params: idParams,
    response: tillSessionSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource }) => serializeSession(resource),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/cash/till-sessions/{id}/close/',
    module: 'cash',
    operationId: 'closeTillSession',
    summary:
      'Close a till session with the closing count; its difference with the book balance is posted (4631 or 4632)',
    description:
      'A closed session refuses cash operations. Closing it again changes nothing and answers it as it was closed.',
    access: [...tellers, 'direction', 'admin'],
    load: tillSessionLoader,
    params: idParams,
    body: yup.object({ count: countSchema().default(undefined).required() }),
    response: tillSessionSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: ['till_session_not_yours', ...postingRefusals],
    handler: async ({ resource, body, principal, deps }) => {
      await closeTillSession(deps.activities, principal, resource.id, body.count as CashCount);
      return serializeSession((await tillSessionById(deps.knex, resource.id))!);
    },
  }),
];
