import type { Knex } from 'knex';
import * as yup from 'yup';
import type { RecurringEntryRow } from '../../../activities/accounting/recurring-entries.activity';
import { manualJournals } from '../../../domain/accounting/manual-entries';
import { recurringFrequencies } from '../../../domain/accounting/recurring-entries';
import { formatAmount, Money } from '../../../domain/money';
import type { Loader } from '../../route';
import { timestampResponse } from '../common.schemas';
import { entryScopeFields } from './manual-entries.queries';
import { moneyResponse } from '../money.schemas';

/**
 * The reads of the recurring entries (docs/domain.md §12.7): the models with their lines and the drafts they proposed.
 */

export type RecurringEntryListRow = RecurringEntryRow & { created_by: string; created_at: Date; updated_at: Date };

export const recurringEntryLoaders = {
  model: {
    name: 'The recurring entry',
    load: async ({ knex }, id) =>
      knex('recurring_entries').where({ id }).first() as Promise<RecurringEntryListRow | undefined>,
    scope: (row) => ({ enterpriseId: row.enterprise_id, branchId: row.branch_id }),
  } satisfies Loader<RecurringEntryListRow>,
};

export const recurringEntrySchema = yup
  .object({
    id: yup.string().uuid().required(),
    ...entryScopeFields,
    journal: yup.string().oneOf(manualJournals).required(),
    label: yup.string().required(),
    reference_pattern: yup
      .string()
      .required()
      .meta({ description: 'Each `{period}` becomes the period proposed: `LOYER-{period}` → `LOYER-2026-06`.' }),
    frequency: yup.string().oneOf(recurringFrequencies).required(),
    day_of_period: yup.number().integer().required(),
    first_period: yup.string().required(),
    last_period: yup.string().nullable().defined(),
    active: yup.boolean().required(),
    lines: yup
      .array(
        yup.object({
          account: yup.string().required(),
          branch: yup.string().uuid().required(),
          debit: moneyResponse(),
          credit: moneyResponse(),
          label: yup.string().nullable().defined(),
        }),
      )
      .required(),
    proposals: yup
      .array(yup.object({ period: yup.string().required(), manual_entry: yup.string().uuid().required() }))
      .required()
      .meta({ description: 'The drafts proposed, one per period, latest first.' }),
    created_by: yup.string().uuid().required(),
    created_at: timestampResponse(),
    updated_at: timestampResponse(),
  })
  .meta({ component: 'RecurringEntry' });

interface ModelLineRow {
  recurring_entry_id: string;
  account_code: string;
  branch_id: string;
  debit: string;
  credit: string;
  label: string | null;
}
interface ProposalRow {
  recurring_entry_id: string;
  period: string;
  manual_entry_id: string;
}

/** Models as answered, the lines and proposals of all of them read in two statements. */
export async function serializeRecurringEntries(knex: Knex, rows: readonly RecurringEntryListRow[]) {
  const ids = rows.map((row) => row.id);
  const lines = (await knex('recurring_entry_lines')
    .whereIn('recurring_entry_id', ids)
    .orderBy(['recurring_entry_id', 'position'])) as ModelLineRow[];
  const proposals = (await knex('recurring_entry_proposals')
    .whereIn('recurring_entry_id', ids)
    .orderBy('period', 'desc')) as ProposalRow[];
  return rows.map((row) => ({
    id: row.id,
    enterprise: row.enterprise_id,
    branch: row.branch_id,
    journal: row.journal_code,
    label: row.label,
    reference_pattern: row.reference_pattern,
    frequency: row.frequency,
    day_of_period: row.day_of_period,
    first_period: row.first_period,
    last_period: row.last_period,
    active: row.active,
    lines: lines
      .filter((line) => line.recurring_entry_id === row.id)
      .map((line) => ({
        account: line.account_code,
        branch: line.branch_id,
        debit: formatAmount(new Money(line.debit)),
        credit: formatAmount(new Money(line.credit)),
        label: line.label,
      })),
    proposals: proposals
      .filter((proposal) => proposal.recurring_entry_id === row.id)
      .map((proposal) => ({ period: proposal.period, manual_entry: proposal.manual_entry_id })),
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }));
}
