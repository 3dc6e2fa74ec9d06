import type { Knex } from 'knex';
import * as yup from 'yup';
import { provisionalHeading, reportHeading } from '../../../activities/accounts/statement-documents';
import { arrearsStatementAt } from '../../../activities/loans/arrears-statement';
import type { ArrearsFigures, ArrearsStatement, LedgerAgreement } from '../../../domain/loans/arrears-statement';
import { arrearsStatementDocument } from '../../../domain/loans/arrears-statement.document';
import { NotFoundError } from '../../../domain/errors';
import { formatAmount } from '../../../domain/money';
import { requireVisible, visibleBranches } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import { answerReport, formatParameter } from '../../report-download';
import { defineRoute } from '../../route';
import { enterpriseReportQuery } from '../report-query';
import { isoDate } from '../common.schemas';
import { arrearsStatementSchema } from './arrears-statement.schemas';

/**
 * The branches a statement covers: the one asked for (404 if not the enterprise's or not seen), else every one the
 * caller sees.
 */
export async function branchesOf(
  knex: Knex,
  principal: Principal,
  enterpriseId: string,
  branch: string | undefined,
): Promise<'all' | readonly string[]> {
  requireVisible(principal, { enterpriseId, branchId: branch }, branch === undefined ? 'The enterprise' : 'The branch');
  if (branch === undefined) return visibleBranches(principal, enterpriseId);
  const known = await knex('branches').where({ id: branch, enterprise_id: enterpriseId }).first('id');
  if (known === undefined) throw new NotFoundError('The branch');
  return [branch];
}

/** A register's query at a date (collateral, restructurings): one branch, or every branch the caller sees. */
export const registerQuery = yup.object({
  enterprise: yup.string().uuid().required(),
  date: isoDate().required(),
  branch: yup.string().uuid().optional().meta({ description: 'One branch; default: every branch the caller sees.' }),
  format: formatParameter,
});

const figures = (row: ArrearsFigures) => ({
  loans: row.loans,
  litigious: row.litigious,
  outstanding: formatAmount(row.outstanding),
  arrears: formatAmount(row.arrears),
  guaranteed: formatAmount(row.guaranteed),
  provisions: formatAmount(row.provisions),
});

function serializeStatement(statement: ArrearsStatement, agreement: readonly LedgerAgreement[]) {
  return {
    groups: statement.groups.map((group) => ({
      classification: group.classification,
      days_from: group.band.days_from,
      days_to: group.band.days_to,
      ...figures(group),
    })),
    by_class: statement.byClass.map((row) => ({ classification: row.classification, ...figures(row) })),
    totals: figures(statement.totals),
    ledger: agreement.map((row) => ({
      figure: row.figure,
      ledger: formatAmount(row.ledger),
      statement: formatAmount(row.statement),
      agrees: row.agrees,
      accounts: row.accounts.map((account) => ({ account: account.account, amount: formatAmount(account.amount) })),
    })),
    loans: statement.loans.map((loan) => ({
      loan: loan.loan,
      number: loan.loanNumber,
      branch: loan.branch,
      member: loan.member,
      member_number: loan.memberNumber,
      member_name: loan.memberName,
      classification: loan.classification,
      litigious: loan.litigious,
      days_past_due: loan.daysPastDue,
      outstanding: formatAmount(loan.outstanding),
      arrears: formatAmount(loan.arrears),
      guaranteed: formatAmount(loan.outstanding.minus(loan.uncovered)),
      provisions: formatAmount(loan.provisions),
    })),
  };
}

/** The statement of loans in arrears and their provisions (état des créances en souffrance), docs/domain.md §10. */
export const arrearsStatementRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/loans/arrears-statement/',
    module: 'loans',
    operationId: 'getArrearsStatement',
    summary:
      'Loans by class and age band at a date: counts, outstanding principal, ' +
      'arrears, guaranteed part, provisions; the ledger beside them; every loan',
    description:
      'The loans of the portfolio at their provisioning position of the date ' +
      "(COBAC R-2017/07 classes; the bands are the steps of the enterprise's " +
      "provisioning ladder). `ledger` sets each class's outstanding principal " +
      'and the provisions against the balances of their accounts at the date. ' +
      '`loans` is the whole detail, by class, oldest arrears first.',
    access: 'authenticated',
    query: enterpriseReportQuery,
    downloadable: true,
    errorStatuses: [401, 404, 422],
    response: arrearsStatementSchema,
    refusals: ['no_exercice_for_date'],
    handler: async ({ query, principal, deps, ctx }) => {
      const scope = {
        enterpriseId: query.enterprise,
        branch: query.branch ?? null,
        branches: await branchesOf(deps.knex, principal, query.enterprise, query.branch),
      };
      const { statement, agreement, ...provisional } = await arrearsStatementAt(deps.knex, scope, query.date);
      const answer = {
        enterprise: query.enterprise,
        branch: scope.branch,
        date: query.date,
        ...provisional,
        ...serializeStatement(statement, agreement),
      };
      const document = async () =>
        arrearsStatementDocument(
          provisionalHeading(await reportHeading(deps.knex, scope, deps.clock()), provisional),
          query.date,
          statement,
          agreement,
        );
      return answerReport(ctx, query.format, answer, { report: 'arrears-statement', document });
    },
  }),
];
