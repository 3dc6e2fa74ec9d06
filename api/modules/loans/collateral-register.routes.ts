import * as yup from 'yup';
import { reportHeading } from '../../../activities/accounts/statement-documents';
import { collateralRegisterAt } from '../../../activities/loans/collateral-register';
import { collateralRegisterDocument, type CollateralFigures } from '../../../domain/loans/collateral-register';
import { coverOf, guaranteeKinds } from '../../../domain/loans/provisioning';
import { formatAmount } from '../../../domain/money';
import { answerReport } from '../../report-download';
import { defineRoute } from '../../route';
import { dateResponse, nullableId } from '../common.schemas';
import { moneyResponse } from '../money.schemas';
import { branchesOf, registerQuery } from './arrears-statement.routes';

const figuresSchema = {
  guarantees: yup.number().integer().required(),
  value: moneyResponse(),
  countable_value: moneyResponse().meta({ description: 'What provisioning may count of them at the date.' }),
};
const covers = ['cash', 'eligible', 'none'] as const;

const collateralRegisterSchema = yup
  .object({
    enterprise: yup.string().uuid().required(),
    branch: nullableId(),
    date: dateResponse(),
    by_kind: yup
      .array(
        yup.object({
          kind: yup.string().oneOf(guaranteeKinds).required(),
          cover: yup.string().oneOf(covers).required(),
          ...figuresSchema,
        }),
      )
      .required(),
    totals: yup.object(figuresSchema).required(),
    lines: yup
      .array(
        yup.object({
          guarantee: yup.string().uuid().required(),
          loan: yup.string().uuid().required(),
          loan_number: yup.string().required(),
          branch: yup.string().uuid().required(),
          member_number: yup.string().required(),
          member_name: yup.string().required(),
          classification: yup.string().required(),
          outstanding: moneyResponse(),
          kind: yup.string().oneOf(guaranteeKinds).required(),
          cover: yup.string().oneOf(covers).required(),
          value: moneyResponse(),
          valuation_date: dateResponse(),
          document_reference: yup.string().defined(),
          guarantor: nullableId(),
          guarantor_name: yup.string().nullable().defined(),
          account: nullableId(),
          countable_value: moneyResponse(),
        }),
      )
      .required(),
  })
  .meta({ component: 'CollateralRegister' });

const figures = (row: CollateralFigures) => ({
  guarantees: row.guarantees,
  value: formatAmount(row.value),
  countable_value: formatAmount(row.countableValue),
});

/** The collateral register (docs/domain.md §14.4). */
export const collateralRegisterRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/collateral-register/',
    module: 'loans',
    operationId: 'getCollateralRegister',
    summary:
      'The guarantees in force on the portfolio at a date: kind, value, ' +
      'valuation date, deed, guarantor, and what provisioning may count',
    description:
      'Every guarantee in force at the date (confirmed, started, not ' +
      "ended) on a loan of the portfolio then, with its loan's class and " +
      'outstanding principal of that date, its value as last assessed and ' +
      'its countable value (COBAC R-2017/07 Arts. 17-18: all of a cash cover, ' +
      "an eligible cover less the regulatory minimum of its loan's whole years " +
      'doubtful, nothing of a personal guarantee or a pledge of equipment); ' +
      'the totals by kind.',
    access: 'authenticated',
    query: registerQuery,
    downloadable: true,
    errorStatuses: [401, 404],
    response: collateralRegisterSchema,
    handler: async ({ query, principal, deps, ctx }) => {
      const scope = {
        enterpriseId: query.enterprise,
        branch: query.branch ?? null,
        branches: await branchesOf(deps.knex, principal, query.enterprise, query.branch),
      };
      const register = await collateralRegisterAt(deps.knex, {
        enterpriseId: query.enterprise,
        asOf: query.date,
        branches: scope.branches,
      });
      const answer = {
        enterprise: query.enterprise,
        branch: scope.branch,
        date: query.date,
        by_kind: register.byKind.map((row) => ({ kind: row.kind, cover: coverOf(row.kind), ...figures(row) })),
        totals: figures(register.totals),
        lines: register.lines.map((line) => ({
          guarantee: line.guarantee,
          loan: line.loan,
          loan_number: line.loanNumber,
          branch: line.branch,
          member_number: line.memberNumber,
          member_name: line.memberName,
          classification: line.classification,
          outstanding: formatAmount(line.outstanding),
          kind: line.kind,
          cover: coverOf(line.kind),
          value: formatAmount(line.value),
          valuation_date: line.valuationDate,
          document_reference: line.documentReference,
          guarantor: line.guarantor,
          guarantor_name: line.guarantorName,
          account: line.account,
          countable_value: formatAmount(line.countableValue),
        })),
      };
      const document = async () =>
        collateralRegisterDocument(await reportHeading(deps.knex, scope, deps.clock()), query.date, register);
      return answerReport(ctx, query.format, answer, { report: 'collateral-register', document });
    },
  }),
];
