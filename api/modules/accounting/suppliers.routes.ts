import * as yup from 'yup';
import { createSupplier, updateSupplier } from '../../../activities/accounting/suppliers.activity';
import {
  openItemsQuery,
  suppliersWithBalances,
  type InvoiceRow,
  type SupplierRow,
} from '../../../activities/accounting/suppliers.queries';
import { businessDateOf } from '../../../activities/enterprise/configuration.activity';
import { isPlatformAdmin } from '../../../domain/access';
import { formatAmount, Money } from '../../../domain/money';
import { visibleBranches } from '../../auth/access';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { dateResponse, enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { moneyResponse } from '../money.schemas';
import {
  accountingLoaders,
  bookkeepers,
  bookReaders,
  invoiceFigures,
  seenBy,
  serializeInvoiceFigures,
  serializeSupplier,
  supplierRow,
  supplierSchema,
} from './accounting.queries';

const fieldSchemas = {
  name: yup.string().trim().min(2).max(200),
  tax_id: yup
    .string()
    .trim()
    .matches(/^[A-Za-z0-9]{5,40}$/, '${path} must be the NIU: 5 to 40 letters and digits')
    .nullable(),
  contact: yup.string().trim().max(1000).nullable().meta({ description: 'Address, telephone, e-mail: free text.' }),
};

const openItemSchema = yup
  .object({ invoice: yup.string().uuid().required(), branch: yup.string().uuid().required(), ...invoiceFigures })
  .meta({ component: 'SupplierOpenItem' });

const openItemsSchema = yup
  .object({
    supplier: yup.string().uuid().required(),
    date: dateResponse(),
    items: yup.array(openItemSchema).required(),
    total: moneyResponse().meta({ description: 'What remains owed at the date: the sum of the items.' }),
  })
  .meta({ component: 'SupplierOpenItems' });

const serializeOpenItem = (row: InvoiceRow) => ({
  invoice: row.id,
  branch: row.branch_id,
  ...serializeInvoiceFigures(row),
});

/** Suppliers (issue 28, docs/domain.md §12.5): each with its own account under 40110, its balance and open items. */
export const supplierRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/suppliers/',
    module: 'accounting',
    operationId: 'listSuppliers',
    summary: 'List suppliers with their balances, by name',
    access: bookReaders,
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional().meta({ description: 'Only the suppliers of this branch.' }),
      is_active: yup.boolean().optional(),
      tax_id: yup.string().max(40).optional(),
      search: yup.string().max(100).optional().meta({ description: 'Part of the name, any case.' }),
    }),
    response: pageSchema(supplierSchema),
    errorStatuses: [401, 403],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      // A branch's staff see its suppliers and those of the whole enterprise, whose invoices they may book in their
      // branch. (A platform administrator sees every row: scopeToVisible adds no clause, which must not leave the
      // second alone.)
      const rows = suppliersWithBalances(deps.knex, { date: null, branches: seenBy(principal) });
      if (!isPlatformAdmin(principal.grants)) {
        rows.where((visible) =>
          visible
            .where((ofBranch) =>
              scopeToVisible(ofBranch, principal, { enterprise: 's.enterprise_id', branch: 's.branch_id' }),
            )
            .orWhere((ofEnterprise) =>
              scopeToVisible(ofEnterprise.whereNull('s.branch_id'), principal, { enterprise: 's.enterprise_id' }),
            ),
        );
      }
      whereFilters(rows, query, {
        enterprise: 's.enterprise_id',
        branch: 's.branch_id',
        is_active: 's.is_active',
        tax_id: 's.tax_id',
      });
      if (query.search !== undefined) rows.whereRaw('s.name ILIKE ?', [`%${query.search.replace(/[\\%_]/g, '\\$&')}%`]);
      const page = await paginateRows<SupplierRow>(
        rows.orderBy([{ column: 's.name' }, { column: 's.id' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializeSupplier) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounting/suppliers/',
    module: 'accounting',
    operationId: 'createSupplier',
    summary: 'Register a supplier and open its account under 40110',
    description:
      'The supplier gets the next free sub-account of 40110 ' +
      '(fournisseurs, dettes en compte hors réseau): 40110001, 40110002… ' +
      'Its invoices credit that account and its payments debit it. ' +
      '`branch` null or absent: a supplier of the whole enterprise.',
    access: bookkeepers,
    status: 201,
    location: '/api/v1/accounting/suppliers/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      branch: yup.string().uuid().nullable(),
      ...fieldSchemas,
      name: fieldSchemas.name.required(),
    }),
    response: supplierSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      'supplier_tax_id_taken',
      'supplier_accounts_full',
      'account_has_postings',
      'account_inactive',
      'account_unknown',
      'account_used_by_rule',
    ],
    handler: async ({ body, principal, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise, branchId: body.branch ?? null }, 'The enterprise');
      const supplier = await createSupplier(deps.activities, principal, {
        enterpriseId: body.enterprise,
        branchId: body.branch ?? null,
        name: body.name,
        taxId: body.tax_id ?? null,
        contact: body.contact ?? null,
      });
      return serializeSupplier((await supplierRow(deps.knex, supplier.id, seenBy(principal)))!);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/suppliers/{id}/',
    module: 'accounting',
    operationId: 'getSupplier',
    summary: 'Supplier detail, with its balance',
    access: bookReaders,
    load: accountingLoaders.supplier,
    params: idParams,
    response: supplierSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource, principal, deps }) =>
      serializeSupplier((await supplierRow(deps.knex, resource.id, seenBy(principal)))!),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/accounting/suppliers/{id}/',
    module: 'accounting',
    operationId: 'updateSupplier',
    summary:
      'Change a supplier, or deactivate it (`is_active: false`: no new invoice; its open items may still be paid)',
    access: bookkeepers,
    load: accountingLoaders.supplier,
    params: idParams,
    body: yup.object({ ...fieldSchemas, is_active: yup.boolean() }),
    response: supplierSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['supplier_tax_id_taken'],
    handler: async ({ resource, body, principal, deps }) => {
      await updateSupplier(deps.activities, principal, resource.id, {
        name: body.name,
        taxId: body.tax_id,
        contact: body.contact,
        isActive: body.is_active,
      });
      return serializeSupplier((await supplierRow(deps.knex, resource.id, seenBy(principal)))!);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/suppliers/{id}/open-items/',
    module: 'accounting',
    operationId: 'getSupplierOpenItems',
    summary: "The supplier's invoices not fully paid at a date, with what remains on each",
    access: bookReaders,
    load: accountingLoaders.supplier,
    params: idParams,
    query: yup.object({
      date: isoDate()
        .optional()
        .meta({ description: 'Invoices and payments dated up to this day (default: the business date).' }),
    }),
    response: openItemsSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource, query, principal, deps }) => {
      const date = query.date ?? (await businessDateOf(deps.knex, resource.enterprise_id, deps.clock()));
      const rows: InvoiceRow[] = await openItemsQuery(
        deps.knex,
        resource.id,
        date,
        visibleBranches(principal, resource.enterprise_id),
      );
      const total = rows.reduce((sum, row) => sum.plus(row.remaining), new Money(0));
      return { supplier: resource.id, date, items: rows.map(serializeOpenItem), total: formatAmount(total) };
    },
  }),
];
