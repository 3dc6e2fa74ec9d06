import * as yup from 'yup';
import {
  vaultCountById,
  vaultCountsQuery,
  type VaultCountRow,
} from '../../../activities/cash/cash-differences.queries';
import { recordVaultCount } from '../../../activities/cash/vault-counts.activity';
import type { CashCount } from '../../../domain/cash/till-counts';
import { formatAmount, Money } from '../../../domain/money';
import { listQuerySchema, pageSchema, paginateRows } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { visibleRows } from '../list-rows';
import { moneyResponse } from '../money.schemas';
import { postingRefusals } from '../refusal-lists';
import { countResponse, countSchema } from './till-sessions.routes';
import { tillReaders } from './tills.routes';

const vaultCountSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    branch: yup.string().uuid().required(),
    business_date: dateResponse(),
    count: countResponse(),
    total: moneyResponse(),
    book_balance: moneyResponse().meta({
      description: "The vault's (5710 of the branch) book balance before the count.",
    }),
    difference: moneyResponse().meta({
      description: 'Counted less book: negative a shortage (posted to 4631), positive an excess (to 4632).',
    }),
    difference_entry: nullableId(
      'The entry of the difference; null: none. Settled through /api/v1/cash/difference-settlements/.',
    ),
    settlement: nullableId("The difference's settlement; null: none yet (or no difference)."),
    counted_by: yup.string().uuid().required(),
    created_at: timestampResponse(),
  })
  .meta({ component: 'VaultCount' });

const serializeVaultCount = (row: VaultCountRow) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  branch: row.branch_id,
  business_date: row.business_date,
  count: row.count,
  total: row.total,
  book_balance: row.book_balance,
  difference: formatAmount(new Money(row.total).minus(row.book_balance)),
  difference_entry: row.entry_id,
  settlement: row.settlement_id,
  counted_by: row.counted_by,
  created_at: row.created_at.toISOString(),
});

const vaultCountLoader = {
  name: 'The vault count',
  load: async ({ knex }, id) => vaultCountById(knex, id),
  scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
} satisfies Loader<VaultCountRow>;

/** The branch head's count of the vault for the business date (issue 29, docs/domain.md §13.2). */
export const vaultCountRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/vault-counts/',
    module: 'cash',
    operationId: 'listVaultCounts',
    summary: 'List the counts of the vaults, the latest date first',
    access: tillReaders,
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      business_date: isoDate().optional(),
    }),
    response: pageSchema(vaultCountSchema),
    errorStatuses: [401, 403],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleRows(vaultCountsQuery(deps.knex), principal, query, {
        enterprise: 'v.enterprise_id',
        branch: 'v.branch_id',
        business_date: 'v.business_date',
      });
      const page = await paginateRows<VaultCountRow>(
        rows.orderBy([{ column: 'v.business_date', order: 'desc' }, { column: 'v.id' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializeVaultCount) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/cash/vault-counts/',
    module: 'cash',
    operationId: 'recordVaultCount',
    summary:
      'Count the vault of a branch for the business date (billetage); ' +
      'its difference with the book balance is posted (4631 or 4632)',
    access: ['branch_head', 'direction', 'admin'],
    status: 201,
    location: '/api/v1/cash/vault-counts/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      branch: yup.string().uuid().required(),
      count: countSchema().default(undefined).required(),
    }),
    response: vaultCountSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: ['vault_counted', ...postingRefusals],
    handler: async ({ body, principal, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise, branchId: body.branch }, 'The branch');
      const id = await recordVaultCount(
        deps.activities,
        principal,
        { enterpriseId: body.enterprise, branchId: body.branch },
        body.count as CashCount,
      );
      return serializeVaultCount((await vaultCountById(deps.knex, id))!);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/vault-counts/{id}/',
    module: 'cash',
    operationId: 'getVaultCount',
    summary: 'Vault count detail: the count, the book balance, the difference and its settlement',
    access: tillReaders,
    load: vaultCountLoader,
    params: idParams,
    response: vaultCountSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource }) => serializeVaultCount(resource),
  }),
];
