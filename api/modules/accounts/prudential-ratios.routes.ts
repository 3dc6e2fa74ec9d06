import { prudentialRatiosAt } from '../../../activities/accounts/prudential-ratios';
import { provisionalHeading, reportHeading } from '../../../activities/accounts/statement-documents';
import { prudentialRatiosDocument } from '../../../domain/accounts/prudential-ratios.document';
import type { NamedExposure, PrudentialRatios } from '../../../domain/accounts/prudential-ratios';
import type { Part } from '../../../domain/accounts/prudential-parts';
import { formatAmount } from '../../../domain/money';
import { answerReport } from '../../report-download';
import { defineRoute } from '../../route';
import { chartReportAt, statementScope } from './ledger-access';
import { prudentialRatiosSchema } from './prudential-ratios.schemas';

const netEquitySource =
  'Règlement COBAC EMF 2002/04 Art. 2 (base own funds) read in the PCEMF accounts: an inference, docs/domain.md §10';

const serializeAccounts = (accounts: Part['accounts']) =>
  accounts.map((row) => ({ account: row.account, amount: formatAmount(row.amount) }));
const serializeParts = (parts: readonly Part[]) =>
  parts.map((part) => ({
    key: part.key,
    label: part.label,
    rate: part.rate.toString(),
    amount: formatAmount(part.amount),
    accounts: serializeAccounts(part.accounts),
  }));

const serializeBorrower = (borrower: NamedExposure) => ({
  member: borrower.member,
  member_number: borrower.memberNumber,
  name: borrower.name,
  related_party: borrower.relatedParty,
  outstanding: formatAmount(borrower.outstanding),
  provisions: formatAmount(borrower.provisions),
  exposure: formatAmount(borrower.exposure),
  ratio: borrower.ratio?.toFixed(6) ?? null,
  exceeds: borrower.exceeds,
});

function serializeRatios(report: PrudentialRatios) {
  return {
    net_equity: {
      amount: formatAmount(report.netEquity.amount),
      source: netEquitySource,
      parts: serializeParts(report.netEquity.parts),
    },
    ratios: report.ratios.map((ratio) => ({
      code: ratio.code,
      label: ratio.label,
      numerator: formatAmount(ratio.numerator),
      denominator: formatAmount(ratio.denominator),
      value: ratio.value?.toFixed(6) ?? null,
      threshold: ratio.threshold.toString(),
      comparison: ratio.comparison,
      met: ratio.met,
      cobac_emf_norm: ratio.cobacEmfNorm,
      source: ratio.source,
      numerator_parts: serializeParts(ratio.numeratorParts),
      denominator_parts: serializeParts(ratio.denominatorParts),
      ...(ratio.borrowers === undefined ? {} : { borrowers: ratio.borrowers.map(serializeBorrower) }),
    })),
    credit_caps: {
      paid_up_capital: formatAmount(report.creditCaps.paidUpCapital),
      share_capital_limit: formatAmount(report.creditCaps.shareCapitalLimit),
      related_party_limit: formatAmount(report.creditCaps.relatedPartyLimit),
      breaches: report.creditCaps.breaches.map(({ exposure, breach }) => ({
        member: exposure.member,
        member_number: exposure.memberNumber,
        name: exposure.name,
        code: breach.code,
        limit: formatAmount(breach.limit),
        outstanding: formatAmount(breach.total),
      })),
    },
  };
}

/**
 * The COBAC prudential ratios at a date (docs/domain.md §10), under the chart like the other statements: they
 * read its balances at the date, with the same access and branch filter, and the loans of the same branches.
 */
export const prudentialRatioRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/accounts/charts/{chart_pk}/prudential-ratios/',
    module: 'accounts',
    operationId: 'getPrudentialRatios',
    summary:
      'COBAC prudential ratios of a 1st-category EMF at a date: net equity, solvency, liquidity, fixed-asset ' +
      'coverage, concentration, insiders, R-2017/08 caps',
    description:
      'Each ratio with its numerator and denominator, the accounts and amounts that feed them, its threshold ' +
      "(the enterprise's prudential settings), " +
      'whether it is met and its source. Balances are read from the accounting year covering the date; the ' +
      'loans at their provisioning position of the date.',
    ...chartReportAt,
    response: prudentialRatiosSchema,
    refusals: ['cap_related_party', 'cap_share_capital', 'no_exercice_for_date'],
    handler: async ({ query, principal, deps, ctx, resource }) => {
      const scope = await statementScope(deps.knex, principal, resource, query.branch);
      const { settings, report, ...provisional } = await prudentialRatiosAt(deps.knex, scope, query.date);
      const answer = {
        enterprise: scope.enterpriseId,
        branch: scope.branch,
        date: query.date,
        ...provisional,
        settings,
        ...serializeRatios(report),
      };
      const document = async () =>
        prudentialRatiosDocument(
          provisionalHeading(await reportHeading(deps.knex, scope, deps.clock()), provisional),
          query.date,
          report,
        );
      return answerReport(ctx, query.format, answer, { report: 'prudential-ratios', document });
    },
  }),
];
