import type { Knex } from 'knex';
import * as yup from 'yup';
import type { ManualEntryRow } from '../../../activities/accounting/manual-entries.activity';
import { manualJournals } from '../../../domain/accounting/manual-entries';
import { formatAmount, Money } from '../../../domain/money';
import type { Loader } from '../../route';
import { bookScopeFields } from '../book-scope';
import { dateResponse, timestampResponse, nullableId } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

/**
 * The reads of the manual entries (docs/domain.md §12.1): the rows with their validator, their lines and the journal
 * entries posted.
 */

export const manualEntryStatuses = ['draft', 'submitted', 'posted', 'rejected', 'cancelled'] as const;

export type ManualEntryListRow = ManualEntryRow & {
  rejection_reason: string | null;
  created_by: string | null;
  updated_by: string | null;
  approved_by: string | null;
  posted_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

/** The entries with who validated them (the decider of their approved request). */
export const manualEntriesQuery = (knex: Knex) =>
  knex('manual_entries as m')
    .leftJoin('approval_requests as r', function approved() {
      this.on('r.id', '=', 'm.approval_request_id').andOn('r.status', '=', knex.raw('?', ['approved']));
    })
    .select('m.*', 'r.decided_by as approved_by');

export const manualEntryLoaders = {
  entry: {
    name: 'The manual entry',
    load: async ({ knex }, id) =>
      manualEntriesQuery(knex).where('m.id', id).first() as Promise<ManualEntryListRow | undefined>,
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<ManualEntryListRow>,
};

const lineSchema = yup.object({
  account: yup.string().required(),
  branch: yup.string().uuid().required(),
  debit: moneyResponse(),
  credit: moneyResponse(),
  label: yup.string().nullable().defined(),
});

const postedSchema = yup.object({
  id: yup.string().uuid().required(),
  branch: yup.string().uuid().required(),
  number: yup.number().integer().required(),
  entry_reference: yup.string().required().meta({ description: 'The journal entry as printed: OD-2026-000042.' }),
});

/** The enterprise of a manual entry or recurring model, and the branch of its lines. */
export const entryScopeFields = bookScopeFields('The one branch of all its lines; null when they span several.');

export const manualEntrySchema = yup
  .object({
    id: yup.string().uuid().required(),
    ...entryScopeFields,
    kind: yup.string().oneOf(['standard', 'opening']).required(),
    journal: yup.string().oneOf(manualJournals).required(),
    entry_date: dateResponse(),
    reference: yup.string().required().meta({ description: 'The supporting document (pièce).' }),
    label: yup.string().required(),
    status: yup.string().oneOf(manualEntryStatuses).required(),
    version: yup.number().integer().required(),
    reverses: nullableId(),
    approval_request: nullableId(),
    rejection_reason: yup.string().nullable().defined(),
    created_by: nullableId("Who drafted it; null: proposed by the recurring entries' Schedule (the system)."),
    approved_by: nullableId(),
    posted_at: yup.string().nullable().defined().meta({ format: 'date-time' }),
    total_debit: moneyResponse(),
    total_credit: moneyResponse(),
    lines: yup.array(lineSchema).required(),
    journal_entries: yup
      .array(postedSchema)
      .required()
      .meta({ description: 'Once posted: one journal entry per branch of its lines.' }),
    created_at: timestampResponse(),
    updated_at: timestampResponse(),
  })
  .meta({ component: 'ManualEntry' });

interface PostedRow {
  manual_entry_id: string;
  id: string;
  branch_id: string;
  number: number;
  entry_reference: string;
}
interface LineRow {
  manual_entry_id: string;
  account_code: string;
  branch_id: string;
  debit: string;
  credit: string;
  label: string | null;
}

/** The lines and journal entries of some entries, two statements whatever their number. */
async function detailsOf(knex: Knex, ids: readonly string[]) {
  const lines = (await knex('manual_entry_lines')
    .whereIn('manual_entry_id', ids)
    .orderBy(['manual_entry_id', 'position'])
    .select('manual_entry_id', 'account_code', 'branch_id', 'debit', 'credit', 'label')) as LineRow[];
  const posted = (await knex('manual_entry_lines as l')
    .join('journal_entries as e', 'e.id', 'l.journal_entry_id')
    .join('journal_entry_numbers as n', 'n.entry_id', 'e.id')
    .join('exercices_comptables as y', 'y.id', 'e.exercice_id')
    .whereIn('l.manual_entry_id', ids)
    .distinct(
      'l.manual_entry_id',
      'e.id',
      'e.branch_id',
      'n.number',
      knex.raw(`e.journal_code || '-' || y.code || '-' || lpad(n.number::text, 6, '0') AS entry_reference`),
    )
    .orderBy('n.number')) as PostedRow[];
  const of = <T extends { manual_entry_id: string }>(rows: T[], id: string) =>
    rows.filter((row) => row.manual_entry_id === id);
  return (id: string) => ({ lines: of(lines, id), posted: of(posted, id) });
}

const totalOf = (lines: readonly LineRow[], side: 'debit' | 'credit') =>
  formatAmount(lines.reduce((sum, line) => sum.plus(line[side]), new Money(0)));

function serializeWith(row: ManualEntryListRow, details: { lines: LineRow[]; posted: PostedRow[] }) {
  return {
    id: row.id,
    enterprise: row.enterprise_id,
    branch: row.branch_id,
    kind: row.kind,
    journal: row.journal_code,
    entry_date: row.entry_date,
    reference: row.reference,
    label: row.label,
    status: row.status,
    version: row.version,
    reverses: row.reverses_id,
    approval_request: row.approval_request_id,
    rejection_reason: row.rejection_reason,
    created_by: row.created_by,
    approved_by: row.approved_by,
    posted_at: row.posted_at?.toISOString() ?? null,
    total_debit: totalOf(details.lines, 'debit'),
    total_credit: totalOf(details.lines, 'credit'),
    lines: details.lines.map((line) => ({
      account: line.account_code,
      branch: line.branch_id,
      debit: formatAmount(new Money(line.debit)),
      credit: formatAmount(new Money(line.credit)),
      label: line.label,
    })),
    journal_entries: details.posted.map((entry) => ({
      id: entry.id,
      branch: entry.branch_id,
      number: entry.number,
      entry_reference: entry.entry_reference,
    })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** Entries as answered, their lines and journal entries read with them. */
export async function serializeManualEntries(knex: Knex, rows: readonly ManualEntryListRow[]) {
  const details = await detailsOf(
    knex,
    rows.map((row) => row.id),
  );
  return rows.map((row) => serializeWith(row, details(row.id)));
}

export const serializeManualEntry = async (knex: Knex, row: ManualEntryListRow) =>
  (await serializeManualEntries(knex, [row]))[0]!;
