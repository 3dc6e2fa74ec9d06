import * as yup from 'yup';
import { liaisonBalancesAt } from '../../../activities/cash/liaison';
import { reportHeading } from '../../../activities/accounts/statement-documents';
import { holdsRole } from '../../../domain/access';
import { liaisonPairs } from '../../../domain/cash/liaison';
import { liaisonBalancesDocument } from '../../../domain/cash/liaison-balances.document';
import { AppError, NotFoundError } from '../../../domain/errors';
import { formatAmount } from '../../../domain/money';
import { visibleBranches } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import { answerReport, formatParameter } from '../../report-download';
import { defineRoute } from '../../route';
import { bookReaders } from '../accounting/accounting.queries';
import { dateResponse, isoDate } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

const pairSchema = yup.object({
  branch_a: yup.string().uuid().required(),
  branch_a_code: yup.string().required(),
  branch_b: yup.string().uuid().required(),
  branch_b_code: yup.string().required(),
  balance_a: moneyResponse().meta({ description: "A's 45200 towards B, debit less credit: positive, B owes A." }),
  balance_b: moneyResponse().meta({ description: "B's 45200 towards A." }),
  difference: moneyResponse().meta({ description: "balance_a + balance_b: zero when both branches' books agree." }),
});

const liaisonBalancesSchema = yup
  .object({
    enterprise: yup.string().uuid().required(),
    date: dateResponse(),
    consolidated: yup.boolean().required().meta({
      description: "true: every branch's books; false: only the branches the caller reads (a branch's staff).",
    }),
    pairs: yup.array(pairSchema).required(),
    total: moneyResponse().meta({ description: 'The sum of every balance shown: zero consolidated.' }),
  })
  .meta({ component: 'LiaisonBalances' });

/**
 * The branches whose books the caller reads: all over the whole enterprise, else those where they hold a reader's role.
 */
function readableBranches(principal: Principal, enterpriseId: string): 'all' | string[] {
  const seen = visibleBranches(principal, enterpriseId);
  if (seen === 'all') return holdsRole(principal.grants, bookReaders, { enterpriseId }) ? 'all' : [];
  return seen.filter((branchId) => holdsRole(principal.grants, bookReaders, { enterpriseId, branchId }));
}

/** The open liaison balances between branches (issue 29, docs/domain.md §13.4, §13.5). */
export const liaisonBalanceRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/cash/liaison-balances/',
    module: 'cash',
    operationId: 'getLiaisonBalances',
    summary: 'Open liaison balances (45200) per pair of branches at a date; consolidated total zero',
    description:
      'Each operation with a side in two branches moves 45200 in both: ' +
      'the giving branch credits it, the receiving one debits it. ' +
      "Over the whole enterprise each pair's difference and the total " +
      "are zero; a branch's staff sees only its own branches' balances.",
    access: bookReaders,
    query: yup.object({
      enterprise: yup.string().uuid().required(),
      date: isoDate().required().meta({ description: 'Operations of business dates up to this day.' }),
      format: formatParameter,
    }),
    downloadable: true,
    errorStatuses: [401, 403, 404],
    response: liaisonBalancesSchema,
    handler: async ({ query, principal, deps, ctx }) => {
      const seen = visibleBranches(principal, query.enterprise);
      if (
        (seen !== 'all' && seen.length === 0) ||
        (await deps.knex('enterprises').where({ id: query.enterprise }).first('id')) === undefined
      )
        throw new NotFoundError('The enterprise');
      const branches = readableBranches(principal, query.enterprise);
      if (branches !== 'all' && branches.length === 0)
        throw new AppError('forbidden', 'role_required', `This requires one of the roles ${bookReaders.join(', ')}.`);
      const { pairs, total } = liaisonPairs(await liaisonBalancesAt(deps.knex, query.enterprise, query.date, branches));
      const codes = new Map(
        (await deps.knex('branches').where({ enterprise_id: query.enterprise }).select('id', 'code')).map((row) => [
          row.id as string,
          row.code as string,
        ]),
      );
      const answer = {
        enterprise: query.enterprise,
        date: query.date,
        consolidated: branches === 'all',
        pairs: pairs.map((pair) => ({
          branch_a: pair.branchA,
          branch_a_code: codes.get(pair.branchA) ?? '',
          branch_b: pair.branchB,
          branch_b_code: codes.get(pair.branchB) ?? '',
          balance_a: formatAmount(pair.balanceA),
          balance_b: formatAmount(pair.balanceB),
          difference: formatAmount(pair.difference),
        })),
        total: formatAmount(total),
      };
      const branch = branches !== 'all' && branches.length === 1 ? branches[0]! : null;
      return answerReport(ctx, query.format, answer, {
        report: 'liaison-balances',
        document: async () =>
          liaisonBalancesDocument(
            await reportHeading(deps.knex, { enterpriseId: query.enterprise, branch }, deps.clock()),
            answer,
          ),
      });
    },
  }),
];
