import type { Knex } from 'knex';

/**
 * The reads of the ledger's verification (docs/architecture.md §4): the hash chains recomputed, the month totals
 * checked.
 */

export const chains = ['journal_entries', 'audit_events'] as const;
export type Chain = (typeof chains)[number];

/** The first link that fails, if any, and the chain's length and head. */
export interface ChainCheck {
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
           lag(l.hash) OVER (ORDER BY l.position) AS prior_hash,
             row_number() OVER (ORDER BY l.position) AS expected_position
      FROM ledger_chain_links l WHERE l.chain = ? AND l.chain_key = ?
  ), checked AS (
    SELECT k.position, k.row_id, k.hash,
           CASE WHEN k.position <> k.expected_position THEN 'the link before it is missing'
                WHEN k.previous_hash IS DISTINCT FROM k.prior_hash
                  THEN 'its previous hash is not the hash of the link before'
                WHEN r.text IS NULL THEN 'the row is gone'
                WHEN k.hash <> sha256(coalesce(k.prior_hash, ''::bytea) || convert_to(r.text, 'UTF8'))
                  THEN 'the row or its hash was altered'
           END AS problem
      FROM links k CROSS JOIN LATERAL (SELECT coopbank_chain_row(?, k.row_id) AS text) r
  )
  SELECT (SELECT count(*) FROM checked)::text AS rows,
         (SELECT encode(c.hash, 'hex') FROM checked c ORDER BY c.position DESC LIMIT 1) AS head,
         f.position::text AS position, f.row_id, f.problem
    FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM checked c WHERE c.problem IS NOT NULL ORDER BY c.position
      LIMIT 1) f ON true`;

/** A row of the enterprise that no link names: written with the chain's trigger disabled. */
const unlinkedSql: Record<Chain, string> = {
  journal_entries: `SELECT e.id::text AS id FROM journal_entries e WHERE e.enterprise_id = ?
                     AND NOT EXISTS (SELECT 1 FROM ledger_chain_links l WHERE l.entry_id = e.id) ORDER BY e.created_at,
                       e.id LIMIT 1`,
  audit_events: `SELECT a.id::text AS id FROM audit_events a WHERE a.enterprise_id = ?
                  AND NOT EXISTS (SELECT 1 FROM ledger_chain_links l WHERE l.audit_event_id = a.id) ORDER BY a.id
                    LIMIT 1`,
};

/** The chain recomputed (its first failing link) and its first unlinked row, if any. */
export interface CheckedChain {
  check: ChainCheck;
  unlinked: string | undefined;
}

/** The chain recomputed and its unlinked rows looked for. */
export async function checkChain(knex: Knex, chain: Chain, enterprise: string): Promise<CheckedChain> {
  const {
    rows: [check],
  } = await knex.raw<{ rows: ChainCheck[] }>(chainCheckSql, [chain, enterprise, chain]);
  const {
    rows: [unlinked],
  } = await knex.raw<{ rows: { id: string }[] }>(unlinkedSql[chain], [enterprise]);
  return { check: check!, unlinked: unlinked?.id };
}

/** The hash (hex) of a chain's link at a position, undefined when it has no such link. */
export async function linkHash(
  knex: Knex,
  chain: Chain,
  enterprise: string,
  position: number,
): Promise<string | undefined> {
  const link = await knex('ledger_chain_links')
    .where({ chain, chain_key: enterprise, position })
    .first(knex.raw("encode(hash, 'hex') AS hash"));
  return link?.hash as string | undefined;
}

export interface MonthTotalGap {
  month: string;
  branch_id: string | null;
  account: string | null;
  /** How many (year, month, branch, account) differ in all. */
  gaps: string;
}

/**
 * The month totals the reports read (docs/architecture.md §4 "Month totals") against the sums of the lines
 * (coopbank_month_total_gaps): the first that differs, with their count; undefined when none does.
 */
export async function firstMonthTotalGap(knex: Knex, enterpriseId: string): Promise<MonthTotalGap | undefined> {
  const { rows } = await knex.raw(
    `SELECT to_char(month, 'YYYY-MM') AS month, g.branch_id, c.code AS account, count(*) OVER () AS gaps
      FROM coopbank_month_total_gaps(?) g LEFT JOIN company_chart_entries c ON c.id = g.chart_entry_id
     ORDER BY month, c.code, g.branch_id NULLS FIRST LIMIT 1`,
    [enterpriseId],
  );
  return rows[0] as MonthTotalGap | undefined;
}
