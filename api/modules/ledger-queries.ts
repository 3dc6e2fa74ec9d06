import type { Knex } from 'knex';

export interface EntryWithLines {
  id: string;
  enterprise: string;
  branch: string | null;
  entry_date: string;
  description: string;
  event: string | null;
  rule_config: string | null;
  reverses_entry: string | null;
  created_at: Date;
  lines: { account: string; label: string; debit: string; credit: string }[];
}

/** Entries with their lines, in two queries whatever their number (no query per entry). */
export async function ledgerLines(knex: Knex, entryIds: readonly string[]): Promise<EntryWithLines[]> {
  if (entryIds.length === 0) return [];
  const entries = await knex('journal_entries')
    .whereIn('id', entryIds)
    .select('id', 'enterprise_id as enterprise', 'branch_id as branch', 'entry_date', 'description', 'event_id as event', 'rule_config_id as rule_config', 'reverses_entry_id as reverses_entry', 'created_at')
    .orderBy([{ column: 'entry_date' }, { column: 'created_at' }, { column: 'id' }]);
  const lines = await knex('journal_lines as l')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .whereIn('l.entry_id', entryIds)
    .select('l.entry_id', 'c.code as account', 'c.label', 'l.debit', 'l.credit')
    .orderBy('l.id');
  return entries.map((entry) => ({
    ...entry,
    lines: lines.filter((line) => line.entry_id === entry.id).map(({ entry_id: _entryId, ...line }) => line),
  }));
}
