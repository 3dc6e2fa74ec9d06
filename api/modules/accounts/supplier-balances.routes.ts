import * as yup from 'yup';
import { supplierBalancesAt } from '../../../activities/accounting/supplier-balances';
import { provisionalHeading, reportHeading } from '../../../activities/accounts/statement-documents';
import { supplierBalancesDocument } from '../../../domain/accounting/supplier-balances.document';
import { answerReport, formatParameter } from '../../report-download';
import { defineRoute } from '../../route';
import { chartParams, reportBranchFilter } from '../report-query';
import { bookReaders } from '../accounting/accounting.queries';
import { dateResponse, isoDate, provisionalResponse, nullableId } from '../common.schemas';
import { moneyResponse } from '../money.schemas';
import { accountLoaders } from './accounts.queries';
import { statementScope } from './ledger-access';

const supplierBalanceSchema = yup.object({
  supplier: yup.string().uuid().required(),
  account: yup.string().required(),
  name: yup.string().required(),
  invoiced: moneyResponse(),
  paid: moneyResponse(),
  balance: moneyResponse().meta({ description: 'Invoiced less paid: what remains owed.' }),
  ledger_balance: moneyResponse().meta({
    description: "What the ledger says the supplier's account owes: credit less debit.",
  }),
});

const supplierBalancesSchema = yup
  .object({
    date: dateResponse(),
    branch: nullableId(),
    ...provisionalResponse,
    suppliers: yup.array(supplierBalanceSchema).required(),
    totals: yup
      .object({
        invoiced: moneyResponse(),
        paid: moneyResponse(),
        balance: moneyResponse(),
        ledger_balance: moneyResponse(),
        account_401: moneyResponse().meta({
          description:
            'Every account of 401 in the ledger, credit less debit: equal to `balance` while only the ' +
            "suppliers' operations post there.",
        }),
      })
      .required(),
  })
  .meta({ component: 'SupplierBalances' });

/** The supplier balances report (issue 28, docs/domain.md §12.5), beside the trial balance. */
export const supplierBalanceRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/supplier-balances/',
    module: 'accounts',
    operationId: 'getSupplierBalances',
    summary:
      'Supplier balances at a date: per supplier invoiced, paid and owed, beside its account and 401 in the ledger',
    description: 'Consolidated over the branches the caller sees, or of one `branch`.',
    access: bookReaders,
    load: accountLoaders.chart,
    params: chartParams,
    query: yup.object({
      date: isoDate().required().meta({ description: 'Invoices and payments dated up to this day; the ledger at it.' }),
      branch: reportBranchFilter,
      format: formatParameter,
    }),
    downloadable: true,
    errorStatuses: [401, 403, 404, 409],
    refusals: ['no_exercice_for_date'],
    response: supplierBalancesSchema,
    handler: async ({ query, principal, deps, ctx, resource }) => {
      const scope = await statementScope(deps.knex, principal, resource, query.branch);
      const answer = await supplierBalancesAt(deps.knex, scope, query.date);
      const branch =
        scope.branch ?? (scope.branches !== 'all' && scope.branches.length === 1 ? scope.branches[0]! : null);
      const heading = async () =>
        provisionalHeading(
          await reportHeading(deps.knex, { enterpriseId: scope.enterpriseId, branch }, deps.clock()),
          answer,
        );
      return answerReport(ctx, query.format, answer, {
        report: 'supplier-balances',
        document: async () => supplierBalancesDocument(await heading(), answer),
      });
    },
  }),
];
