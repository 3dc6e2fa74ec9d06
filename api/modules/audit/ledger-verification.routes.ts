import * as yup from 'yup';
import { ValidationError } from '../../../domain/errors';
import {
  chains,
  checkChain,
  firstMonthTotalGap,
  linkHash,
  type Chain,
} from '../../../activities/audit/ledger-verification.queries';
import { defineRoute } from '../../route';
import { auditReaders } from './audit-events.routes';
import {
  chainSchema,
  monthTotalsSchema,
  serializeChain,
  serializeMonthTotals,
  type Anchor,
} from './ledger-verification.schemas';

const anchorQuery = {
  anchor_chain: yup
    .string()
    .oneOf(chains)
    .default('journal_entries')
    .meta({ description: 'The chain the anchor is of.' }),
  anchor_position: yup
    .number()
    .integer()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .meta({ description: "A printed head's position (a month end's chain_anchors); with anchor_hash." }),
  anchor_hash: yup
    .string()
    .lowercase()
    .matches(/^[0-9a-f]{64}$/, 'anchor_hash must be 64 hexadecimal digits')
    .optional()
    .meta({ description: "The printed head's hash; with anchor_position." }),
};

function anchorOf(query: { anchor_chain: Chain; anchor_position?: number; anchor_hash?: string }): Anchor | null {
  if (query.anchor_position === undefined && query.anchor_hash === undefined) return null;
  if (query.anchor_position === undefined || query.anchor_hash === undefined) {
    const missing = query.anchor_position === undefined ? 'anchor_position' : 'anchor_hash';
    throw new ValidationError([{ field: missing, message: `${missing} is required with an anchor` }]);
  }
  return { chain: query.anchor_chain, position: query.anchor_position, hash: query.anchor_hash };
}

/**
 * Tamper evidence (docs/architecture.md §4): the enterprise's hash chains recomputed from the rows, and its month
 * totals against its lines.
 */
export const ledgerVerificationRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/ledger/verification/',
    module: 'audit',
    operationId: 'verifyLedger',
    summary:
      'Recompute the SHA-256 chains of the journal entries and of the audit trail, ' +
      'naming the first row that does not match (direction, administrators, auditors)',
    description:
      'Each posted entry (with its lines) and each audit row is chained ' +
      'at commit: hash = sha256(previous hash || its canonical text). ' +
      "A row edited, removed or slipped in past the database's own refusals breaks the chain there. " +
      "Given a head printed earlier (a month end's chain_anchors), " +
      'it also answers whether the chain still passes through it: ' +
      'a chain recomputed whole after an edit does not. It also ' +
      'checks the month totals the reports read against the lines.',
    access: auditReaders,
    query: yup.object({ enterprise: yup.string().uuid().required(), ...anchorQuery }),
    errorStatuses: [400, 401, 403, 404],
    response: yup
      .object({
        enterprise: yup.string().uuid().required(),
        verified: yup.boolean().required(),
        chains: yup.array(chainSchema).required(),
        month_totals: monthTotalsSchema.required(),
      })
      .meta({ component: 'LedgerVerification' }),
    handler: async ({ query, deps, authorize }) => {
      authorize({ enterpriseId: query.enterprise }, 'The enterprise');
      const anchor = anchorOf(query);
      const results = [];
      for (const chain of chains) {
        // The anchor holds when the link at its position still has its hash: a chain rewritten after an edit does not.
        const holds =
          anchor?.chain === chain
            ? (await linkHash(deps.knex, chain, query.enterprise, anchor.position)) === anchor.hash
            : null;
        const anchored =
          anchor !== null && holds !== null ? { position: anchor.position, hash: anchor.hash, holds } : null;
        results.push(serializeChain(chain, await checkChain(deps.knex, chain, query.enterprise), anchored));
      }
      const monthTotals = serializeMonthTotals(await firstMonthTotalGap(deps.knex, query.enterprise));
      return {
        enterprise: query.enterprise,
        verified: results.every((result) => result.verified) && monthTotals.verified,
        chains: results,
        month_totals: monthTotals,
      };
    },
  }),
];
