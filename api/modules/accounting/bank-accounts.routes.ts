import * as yup from 'yup';
import { createBankAccount, updateBankAccount } from '../../../activities/accounting/bank-accounts.activity';
import {
  bankAccountById,
  bankAccountsQuery,
  type BankAccountRow,
} from '../../../activities/accounting/bank-accounts.queries';
import { bankParentAccounts, defaultBankParentAccount } from '../../../domain/accounting/banks';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute, type Loader } from '../../route';
import { enterpriseFilter, idParams, timestampResponse, nullableId } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { moneyResponse } from '../money.schemas';
import { bookkeepers, bookReaders } from './accounting.queries';

const bankAccountSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    branch: nullableId('null: an account of the whole enterprise.'),
    bank_name: yup.string().required(),
    account_number: yup.string().required().meta({ description: 'RIB or IBAN, as the bank writes it.' }),
    bank_branch: yup.string().nullable().defined().meta({ description: "The bank's agency that keeps the account." }),
    account: yup
      .string()
      .required()
      .meta({ description: 'Its treasury account, a sub-account of a leaf of 560.', example: '5603001' }),
    is_active: yup.boolean().required(),
    balance: moneyResponse().meta({ description: 'The book balance: debits less credits of its account.' }),
    created_at: timestampResponse(),
    updated_at: timestampResponse(),
  })
  .meta({ component: 'BankAccount' });

const serializeBankAccount = (row: BankAccountRow) => ({
  id: row.id,
  enterprise: row.enterprise_id,
  branch: row.branch_id,
  bank_name: row.bank_name,
  account_number: row.account_number,
  bank_branch: row.bank_branch,
  account: row.account_code,
  is_active: row.is_active,
  balance: row.balance,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/** A bank account by id, checked against the caller's enterprise and branches (api/router.ts). */
export const bankAccountLoader = {
  name: 'The bank account',
  load: async ({ knex }, id) => bankAccountById(knex, id),
  scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
} satisfies Loader<BankAccountRow>;

const fieldSchemas = {
  bank_name: yup.string().trim().min(2).max(200),
  account_number: yup
    .string()
    .trim()
    .matches(
      /^[A-Za-z0-9][A-Za-z0-9 -]{4,58}[A-Za-z0-9]$/,
      '${path} must be a RIB or IBAN: 6 to 60 letters, digits, spaces and dashes',
    ),
  bank_branch: yup.string().trim().max(200).nullable(),
};

/** Bank accounts (issue 28, docs/domain.md §12.6): each its own treasury account under a leaf of 560. */
export const bankAccountRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/bank-accounts/',
    module: 'accounting',
    operationId: 'listBankAccounts',
    summary: 'List bank accounts with their book balances, by bank and number',
    access: bookReaders,
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      branch: yup.string().uuid().optional(),
      is_active: yup.boolean().optional(),
    }),
    response: pageSchema(bankAccountSchema),
    errorStatuses: [401, 403],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      // A branch's staff see its own accounts; the whole enterprise's are seen by its whole-enterprise roles, as the
      // detail.
      const rows = scopeToVisible(bankAccountsQuery(deps.knex), principal, {
        enterprise: 'b.enterprise_id',
        branch: 'b.branch_id',
      });
      whereFilters(rows, query, { enterprise: 'b.enterprise_id', branch: 'b.branch_id', is_active: 'b.is_active' });
      const page = await paginateRows<BankAccountRow>(
        rows.orderBy([{ column: 'b.bank_name' }, { column: 'b.account_number' }]),
        query,
        new URL(ctx.href),
      );
      return { ...page, results: page.results.map(serializeBankAccount) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/accounting/bank-accounts/',
    module: 'accounting',
    operationId: 'createBankAccount',
    summary: 'Register a bank account and open its treasury account under a leaf of 560',
    description:
      `\`parent_account\` is one of ${bankParentAccounts.join(', ')} (comptes à ` +
      `vue nostri; default ${defaultBankParentAccount}, banques non associées). ` +
      'The account gets its next free sub-account (5603001, 5603002…). It ' +
      'is no subledger account: bank fees are booked on it by manual entries.',
    access: bookkeepers,
    status: 201,
    location: '/api/v1/accounting/bank-accounts/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      branch: yup.string().uuid().nullable(),
      parent_account: yup
        .string()
        .nullable()
        .meta({ description: `A leaf of 560 (default ${defaultBankParentAccount}).` }),
      ...fieldSchemas,
      bank_name: fieldSchemas.bank_name.required(),
      account_number: fieldSchemas.account_number.required(),
    }),
    response: bankAccountSchema,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [
      'bank_account_number_taken',
      'bank_accounts_full',
      'bank_parent_account_refused',
      'account_has_postings',
      'account_inactive',
      'account_unknown',
      'account_used_by_rule',
    ],
    handler: async ({ body, principal, deps, authorize }) => {
      authorize({ enterpriseId: body.enterprise, branchId: body.branch ?? null }, 'The enterprise');
      const bankAccount = await createBankAccount(deps.activities, principal, {
        enterpriseId: body.enterprise,
        branchId: body.branch ?? null,
        parentAccount: body.parent_account ?? null,
        bankName: body.bank_name,
        accountNumber: body.account_number,
        bankBranch: body.bank_branch ?? null,
      });
      return serializeBankAccount((await bankAccountById(deps.knex, bankAccount.id))!);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/bank-accounts/{id}/',
    module: 'accounting',
    operationId: 'getBankAccount',
    summary: 'Bank account detail, with its book balance',
    access: bookReaders,
    load: bankAccountLoader,
    params: idParams,
    response: bankAccountSchema,
    errorStatuses: [401, 403, 404],
    handler: async ({ resource }) => serializeBankAccount(resource),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/accounting/bank-accounts/{id}/',
    module: 'accounting',
    operationId: 'updateBankAccount',
    summary: 'Change a bank account, or deactivate it (`is_active: false`: no new transfer; its account stays open)',
    access: bookkeepers,
    load: bankAccountLoader,
    params: idParams,
    body: yup.object({ ...fieldSchemas, is_active: yup.boolean() }),
    response: bankAccountSchema,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['bank_account_number_taken'],
    handler: async ({ resource, body, principal, deps }) => {
      await updateBankAccount(deps.activities, principal, resource.id, {
        bankName: body.bank_name,
        accountNumber: body.account_number,
        bankBranch: body.bank_branch,
        isActive: body.is_active,
      });
      return serializeBankAccount((await bankAccountById(deps.knex, resource.id))!);
    },
  }),
];
