import * as yup from 'yup';
import { fixedAssetRegisterAt } from '../../../activities/accounting/fixed-asset-register';
import { fixedAssetSubledgerAccounts } from '../../../activities/accounting/fixed-assets.queries';
import { reportHeading } from '../../../activities/accounts/statement-documents';
import { fixedAssetRegisterDocument } from '../../../domain/accounting/fixed-asset-register';
import { formatAmount } from '../../../domain/money';
import { answerReport } from '../../report-download';
import { defineRoute } from '../../route';
import { enterpriseReportQuery } from '../report-query';
import { bookScopeFields } from '../book-scope';
import { dateResponse } from '../common.schemas';
import { branchesOf } from '../loans/arrears-statement.routes';
import { moneyResponse } from '../money.schemas';

const figures = { cost: moneyResponse(), accumulated_depreciation: moneyResponse(), net_book_value: moneyResponse() };

const registerSchema = yup
  .object({
    ...bookScopeFields('The branch asked for; null: consolidated over the branches the caller sees.'),
    date: dateResponse(),
    assets: yup
      .array(
        yup
          .object({
            id: yup.string().uuid().required(),
            label: yup.string().required(),
            category: yup.string().required(),
            branch: yup.string().required().meta({ description: "The branch's code." }),
            acquisition_date: dateResponse(),
            ...figures,
          })
          .meta({ component: 'FixedAssetRegisterLine' }),
      )
      .required(),
    totals: yup.object(figures).required(),
    accounts: yup
      .array(yup.string().required())
      .required()
      .meta({
        description:
          "The class 2 and 28 accounts of the enterprise's categories: the " +
          'register is their detail, they move only through its operations.',
      }),
  })
  .meta({ component: 'FixedAssetRegister' });

/**
 * The fixed-asset register at a date (docs/domain.md §12.4): per asset and in total, per branch or consolidated; also
 * in the month's reporting pack.
 */
export const fixedAssetRegisterRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounting/fixed-asset-register/',
    module: 'accounting',
    operationId: 'getFixedAssetRegister',
    summary:
      'The fixed-asset register at a date: cost, accumulated depreciation ' +
      'and net book value of each asset in the books, and the totals',
    description:
      'The assets acquired by the date and not disposed of by ' +
      'then, with the depreciation whose entries are dated by then.',
    access: ['accountant', 'branch_head', 'direction', 'admin', 'auditor'],
    query: enterpriseReportQuery,
    downloadable: true,
    errorStatuses: [401, 403, 404],
    response: registerSchema,
    handler: async ({ query, principal, deps, ctx, authorize }) => {
      authorize(
        { enterpriseId: query.enterprise, branchId: query.branch },
        query.branch === undefined ? 'The enterprise' : 'The branch',
      );
      const scope = {
        enterpriseId: query.enterprise,
        branch: query.branch ?? null,
        branches: await branchesOf(deps.knex, principal, query.enterprise, query.branch),
      };
      const register = await fixedAssetRegisterAt(deps.knex, scope, query.date);
      const answer = {
        enterprise: query.enterprise,
        branch: scope.branch,
        date: query.date,
        assets: register.lines.map((line) => ({
          id: line.asset,
          label: line.label,
          category: line.category,
          branch: line.branch,
          acquisition_date: line.acquisitionDate,
          cost: formatAmount(line.cost),
          accumulated_depreciation: formatAmount(line.accumulated),
          net_book_value: formatAmount(line.cost.minus(line.accumulated)),
        })),
        totals: {
          cost: formatAmount(register.totals.cost),
          accumulated_depreciation: formatAmount(register.totals.accumulated),
          net_book_value: formatAmount(register.totals.netBookValue),
        },
        accounts: await fixedAssetSubledgerAccounts(deps.knex, query.enterprise),
      };
      const document = async () =>
        fixedAssetRegisterDocument(await reportHeading(deps.knex, scope, deps.clock()), query.date, register);
      return answerReport(ctx, query.format, answer, { report: 'fixed-asset-register', document });
    },
  }),
];
