import * as yup from 'yup';
import {
  chains,
  type Chain,
  type CheckedChain,
  type MonthTotalGap,
} from '../../../activities/audit/ledger-verification.queries';
import { nullableId } from '../common.schemas';

const rowNames: Record<Chain, { one: string; many: string }> = {
  journal_entries: { one: 'Journal entry', many: 'journal entries' },
  audit_events: { one: 'Audit row', many: 'audit rows' },
};

/** A chain's head as printed outside the database (a month end's document). */
export const chainAnchorSchema = yup
  .object({
    chain: yup.string().oneOf(chains).required(),
    position: yup
      .number()
      .integer()
      .required()
      .meta({ description: 'Links in the chain then; 0 before its first row.' }),
    head_hash: yup
      .string()
      .nullable()
      .defined()
      .meta({ description: 'SHA-256 (hex) of that last link; null before the first row.' }),
  })
  .meta({ component: 'ChainAnchor' });

/** A chain's head as printed outside the database, given in the query. */
export interface Anchor {
  chain: Chain;
  position: number;
  hash: string;
}

type Mismatch = { position: number | null; id: string; reason: string } | null;

function verdict(
  chain: Chain,
  rows: number,
  mismatch: Mismatch,
  anchor: { position: number; holds: boolean } | null,
): string {
  if (mismatch !== null)
    return (
      `${rowNames[chain].one} ${mismatch.id}` +
      `${mismatch.position === null ? '' : ` (link ${mismatch.position})`}: ${mismatch.reason}.`
    );
  if (anchor?.holds === false)
    return (
      `The anchored head (link ${anchor.position}) is not in the ` +
      `chain: the chain was rewritten or cut since it was printed.`
    );
  return (
    `All ${rows} ${rowNames[chain].many} ` +
    `verified${anchor === null ? '' : `, through the anchored head (link ${anchor.position})`}.`
  );
}

/** A chain as answered: its check, its first unlinked row, and whether the anchor given for it (if any) holds. */
export function serializeChain(
  chain: Chain,
  { check, unlinked }: CheckedChain,
  anchor: { position: number; hash: string; holds: boolean } | null,
) {
  const mismatch =
    check.problem !== null
      ? { position: Number(check.position), id: check.row_id!, reason: check.problem }
      : unlinked === undefined
        ? null
        : { position: null, id: unlinked, reason: 'the row is in no link of the chain' };
  const rows = Number(check.rows);
  return {
    chain,
    rows,
    head_hash: check.head,
    verified: mismatch === null && anchor?.holds !== false,
    first_mismatch: mismatch,
    anchor,
    message: verdict(chain, rows, mismatch, anchor),
  };
}

export const chainSchema = yup.object({
  chain: yup.string().oneOf(chains).required(),
  rows: yup.number().integer().required().meta({ description: 'Links in the chain.' }),
  head_hash: yup
    .string()
    .nullable()
    .defined()
    .meta({ description: 'SHA-256 (hex) of the last link: print it outside the database to anchor the chain.' }),
  verified: yup.boolean().required(),
  first_mismatch: yup
    .object({
      position: yup.number().integer().nullable().defined(),
      id: yup.string().required().meta({ description: "The journal entry's id, or the audit row's." }),
      reason: yup.string().required(),
    })
    .nullable()
    .defined(),
  anchor: yup
    .object({
      position: yup.number().integer().required(),
      hash: yup.string().required(),
      holds: yup.boolean().required().meta({ description: 'The link at that position still has that hash.' }),
    })
    .nullable()
    .defined()
    .meta({ description: 'The anchor given in the query, for its chain; null otherwise.' }),
  message: yup.string().required(),
});

/** The month totals against their lines, as answered: the first that differs, if any. */
export function serializeMonthTotals(first: MonthTotalGap | undefined) {
  return {
    verified: first === undefined,
    gaps: Number(first?.gaps ?? 0),
    first_gap:
      first === undefined ? null : { month: first.month, branch: first.branch_id, account: first.account ?? '' },
    message:
      first === undefined
        ? 'The month totals equal the lines.'
        : `${first.gaps} month totals differ from their lines, ` +
          `the first of account ${first.account} in ${first.month}.`,
  };
}

export const monthTotalsSchema = yup
  .object({
    verified: yup.boolean().required(),
    gaps: yup
      .number()
      .integer()
      .required()
      .meta({ description: 'Months, branches and accounts whose total differs from the sum of their lines.' }),
    first_gap: yup
      .object({
        month: yup.string().required().meta({ description: 'YYYY-MM' }),
        branch: nullableId(),
        account: yup.string().defined(),
      })
      .nullable()
      .defined(),
    message: yup.string().required(),
  })
  .meta({ description: 'The maintained month totals the reports at a date read, against the lines.' });
