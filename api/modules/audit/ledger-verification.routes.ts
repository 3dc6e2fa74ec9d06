import type { Knex } from 'knex';
import * as yup from 'yup';
import { ValidationError } from '../../../domain/errors';
import { defineRoute } from '../../route';
import { auditReaders } from './audit-events.routes';

const chains = ['journal_entries', 'audit_events'] as const;
type Chain = (typeof chains)[number];
const rowNames: Record<Chain, { one: string; many: string }> = { journal_entries: { one: 'Journal entry', many: 'journal entries' }, audit_events: { one: 'Audit row', many: 'audit rows' } };

interface ChainCheck {
  rows: string;
  head: string | null;
  position: string | null;
  row_id: string | null;
  problem: string | null;
}

/**
 * Recomputes a chain in the database, with the one serialization the commit trigger hashed (coopbank_chain_row):
 * each link's hash must be sha256(the hash of the link before || the row's canonical text), the positions 1, 2, 3…
 * without a gap, and every row of the enterprise linked. The first link that fails is named.
 */
const chainCheckSql = `
  WITH links AS (
    SELECT l.position, coalesce(l.entry_id::text, l.audit_event_id::text) AS row_id, l.previous_hash, l.hash,
           lag(l.hash) OVER (ORDER BY l.position) AS prior_hash, row_number() OVER (ORDER BY l.position) AS expected_position
      FROM ledger_chain_links l WHERE l.chain = ? AND l.chain_key = ?
  ), checked AS (
    SELECT k.position, k.row_id, k.hash,
           CASE WHEN k.position <> k.expected_position THEN 'the link before it is missing'
                WHEN k.previous_hash IS DISTINCT FROM k.prior_hash THEN 'its previous hash is not the hash of the link before'
                WHEN r.text IS NULL THEN 'the row is gone'
                WHEN k.hash <> sha256(coalesce(k.prior_hash, ''::bytea) || convert_to(r.text, 'UTF8')) THEN 'the row or its hash was altered'
           END AS problem
      FROM links k CROSS JOIN LATERAL (SELECT coopbank_chain_row(?, k.row_id) AS text) r
  )
  SELECT (SELECT count(*) FROM checked)::text AS rows,
         (SELECT encode(c.hash, 'hex') FROM checked c ORDER BY c.position DESC LIMIT 1) AS head,
         f.position::text AS position, f.row_id, f.problem
    FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM checked c WHERE c.problem IS NOT NULL ORDER BY c.position LIMIT 1) f ON true`;

/** A row of the enterprise that no link names: written with the chain's trigger disabled. */
const unlinkedSql: Record<Chain, string> = {
  journal_entries: `SELECT e.id::text AS id FROM journal_entries e WHERE e.enterprise_id = ?
                     AND NOT EXISTS (SELECT 1 FROM ledger_chain_links l WHERE l.entry_id = e.id) ORDER BY e.created_at, e.id LIMIT 1`,
  audit_events: `SELECT a.id::text AS id FROM audit_events a WHERE a.enterprise_id = ?
                  AND NOT EXISTS (SELECT 1 FROM ledger_chain_links l WHERE l.audit_event_id = a.id) ORDER BY a.id LIMIT 1`,
};

interface Anchor {
  chain: Chain;
  position: number;
  hash: string;
}

/**
 * Whether the chain still passes through a head printed earlier (a month end's document): the link at its position
 * has its hash. With the links recomputed from the rows, a chain rewritten after an edit no longer does.
 */
async function anchorHolds(knex: Knex, enterprise: string, anchor: Anchor): Promise<boolean> {
  const link = await knex('ledger_chain_links').where({ chain: anchor.chain, chain_key: enterprise, position: anchor.position }).first(knex.raw('encode(hash, \'hex\') AS hash'));
  return link?.hash === anchor.hash;
}

type Mismatch = { position: number | null; id: string; reason: string } | null;

function verdict(chain: Chain, rows: number, mismatch: Mismatch, anchor: { position: number; holds: boolean } | null): string {
  if (mismatch !== null) return `${rowNames[chain].one} ${mismatch.id}${mismatch.position === null ? '' : ` (link ${mismatch.position})`}: ${mismatch.reason}.`;
  if (anchor?.holds === false) return `The anchored head (link ${anchor.position}) is not in the chain: the chain was rewritten or cut since it was printed.`;
  return `All ${rows} ${rowNames[chain].many} verified${anchor === null ? '' : `, through the anchored head (link ${anchor.position})`}.`;
}

async function verifyChain(knex: Knex, chain: Chain, enterprise: string, anchor: Anchor | null) {
  const { rows: [check] } = await knex.raw<{ rows: ChainCheck[] }>(chainCheckSql, [chain, enterprise, chain]);
  const { rows: [unlinked] } = await knex.raw<{ rows: { id: string }[] }>(unlinkedSql[chain], [enterprise]);
  const mismatch = check!.problem !== null
    ? { position: Number(check!.position), id: check!.row_id!, reason: check!.problem! }
    : unlinked === undefined ? null : { position: null, id: unlinked.id, reason: 'the row is in no link of the chain' };
  const rows = Number(check!.rows);
  const anchored = anchor?.chain === chain ? { position: anchor.position, hash: anchor.hash, holds: await anchorHolds(knex, enterprise, anchor) } : null;
  return {
    chain,
    rows,
    head_hash: check!.head,
    verified: mismatch === null && anchored?.holds !== false,
    first_mismatch: mismatch,
    anchor: anchored,
    message: verdict(chain, rows, mismatch, anchored),
  };
}

/** A chain's head as printed outside the database (a month end's document). */
export const chainAnchorSchema = yup.object({
  chain: yup.string().oneOf(chains).required(),
  position: yup.number().integer().required().meta({ description: 'Links in the chain then; 0 before its first row.' }),
  head_hash: yup.string().nullable().defined().meta({ description: 'SHA-256 (hex) of that last link; null before the first row.' }),
}).meta({ component: 'ChainAnchor' });

const anchorQuery = {
  anchor_chain: yup.string().oneOf(chains).default('journal_entries').meta({ description: 'The chain the anchor is of.' }),
  anchor_position: yup.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).optional().meta({ description: 'A printed head\'s position (a month end\'s chain_anchors); with anchor_hash.' }),
  anchor_hash: yup.string().lowercase().matches(/^[0-9a-f]{64}$/, 'anchor_hash must be 64 hexadecimal digits').optional().meta({ description: 'The printed head\'s hash; with anchor_position.' }),
};

function anchorOf(query: { anchor_chain: Chain; anchor_position?: number; anchor_hash?: string }): Anchor | null {
  if (query.anchor_position === undefined && query.anchor_hash === undefined) return null;
  if (query.anchor_position === undefined || query.anchor_hash === undefined) {
    const missing = query.anchor_position === undefined ? 'anchor_position' : 'anchor_hash';
    throw new ValidationError([{ field: missing, message: `${missing} is required with an anchor` }]);
  }
  return { chain: query.anchor_chain, position: query.anchor_position, hash: query.anchor_hash };
}

const chainSchema = yup.object({
  chain: yup.string().oneOf(chains).required(),
  rows: yup.number().integer().required().meta({ description: 'Links in the chain.' }),
  head_hash: yup.string().nullable().defined().meta({ description: 'SHA-256 (hex) of the last link: print it outside the database to anchor the chain.' }),
  verified: yup.boolean().required(),
  first_mismatch: yup.object({
    position: yup.number().integer().nullable().defined(),
    id: yup.string().required().meta({ description: 'The journal entry\'s id, or the audit row\'s.' }),
    reason: yup.string().required(),
  }).nullable().defined(),
  anchor: yup.object({
    position: yup.number().integer().required(),
    hash: yup.string().required(),
    holds: yup.boolean().required().meta({ description: 'The link at that position still has that hash.' }),
  }).nullable().defined().meta({ description: 'The anchor given in the query, for its chain; null otherwise.' }),
  message: yup.string().required(),
});

/**
 * The month totals the reports read (docs/architecture.md §4 "Month totals") against the sums of the lines
 * (coopbank_month_total_gaps): how many (year, month, branch, account) differ, and the first of them.
 */
async function verifyMonthTotals(knex: Knex, enterpriseId: string) {
  const { rows } = await knex.raw(`SELECT to_char(month, 'YYYY-MM') AS month, g.branch_id, c.code AS account, count(*) OVER () AS gaps
      FROM coopbank_month_total_gaps(?) g LEFT JOIN company_chart_entries c ON c.id = g.chart_entry_id
     ORDER BY month, c.code, g.branch_id NULLS FIRST LIMIT 1`, [enterpriseId]);
  const first = rows[0] as { month: string; branch_id: string | null; account: string | null; gaps: string } | undefined;
  return {
    verified: first === undefined,
    gaps: Number(first?.gaps ?? 0),
    first_gap: first === undefined ? null : { month: first.month, branch: first.branch_id, account: first.account ?? '' },
    message: first === undefined ? 'The month totals equal the lines.' : `${first.gaps} month totals differ from their lines, the first of account ${first.account} in ${first.month}.`,
  };
}

const monthTotalsSchema = yup.object({
  verified: yup.boolean().required(),
  gaps: yup.number().integer().required().meta({ description: 'Months, branches and accounts whose total differs from the sum of their lines.' }),
  first_gap: yup.object({
    month: yup.string().required().meta({ description: 'YYYY-MM' }),
    branch: yup.string().uuid().nullable().defined(),
    account: yup.string().defined(),
  }).nullable().defined(),
  message: yup.string().required(),
}).meta({ description: 'The maintained month totals the reports at a date read, against the lines.' });

/** Tamper evidence (docs/architecture.md §4): the enterprise's hash chains recomputed from the rows, and its month totals against its lines. */
export const ledgerVerificationRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/ledger/verification/',
    module: 'audit',
    operationId: 'verifyLedger',
    summary: 'Recompute the SHA-256 chains of the journal entries and of the audit trail, naming the first row that does not match (direction, administrators, auditors)',
    description: 'Each posted entry (with its lines) and each audit row is chained at commit: hash = sha256(previous hash || its canonical text). '
      + 'A row edited, removed or slipped in past the database\'s own refusals breaks the chain there. '
      + 'Given a head printed earlier (a month end\'s chain_anchors), it also answers whether the chain still passes through it: '
      + 'a chain recomputed whole after an edit does not. It also checks the month totals the reports read against the lines.',
    access: auditReaders,
    query: yup.object({ enterprise: yup.string().uuid().required(), ...anchorQuery }),
    errorStatuses: [400, 401, 403, 404],
    response: yup.object({
      enterprise: yup.string().uuid().required(),
      verified: yup.boolean().required(),
      chains: yup.array(chainSchema).required(),
      month_totals: monthTotalsSchema.required(),
    }).meta({ component: 'LedgerVerification' }),
    handler: async ({ query, deps, authorize }) => {
      authorize({ enterpriseId: query.enterprise }, 'The enterprise');
      const anchor = anchorOf(query);
      const results = [];
      for (const chain of chains) results.push(await verifyChain(deps.knex, chain, query.enterprise, anchor));
      const monthTotals = await verifyMonthTotals(deps.knex, query.enterprise);
      return { enterprise: query.enterprise, verified: results.every((result) => result.verified) && monthTotals.verified, chains: results, month_totals: monthTotals };
    },
  }),
];
