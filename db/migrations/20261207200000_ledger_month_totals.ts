import type { Knex } from 'knex';
import { applySqlSource } from '../migration-helpers';

/**
 * Issue 32, reports at any date (docs/architecture.md §4 "Month totals", §9): the debits, credits and line count of
 * every (enterprise, year, month, branch, account), kept by a deferred trigger on journal_entries in each posting's
 * transaction, so a balance at a date reads whole months from here and only its last, partial month from the lines.
 * Filled here from the lines already posted.
 */
export async function up(knex: Knex): Promise<void> {
  // Only the sums change once a row exists: no index covers them, so the updates stay on their page (HOT) when
  // there is room; fillfactor 70 leaves it. The branch is null for the enterprise's own entries: one key all the same.
  await knex.raw(`
    CREATE TABLE ledger_month_totals (
      enterprise_id uuid NOT NULL REFERENCES enterprises (id),
      exercice_id uuid NOT NULL,
      month date NOT NULL CONSTRAINT ledger_month_totals_first_day CHECK (extract(day FROM month) = 1),
      branch_id uuid,
      chart_entry_id uuid NOT NULL,
      debit numeric NOT NULL,
      credit numeric NOT NULL,
      line_count bigint NOT NULL,
      CONSTRAINT ledger_month_totals_key UNIQUE NULLS NOT DISTINCT (enterprise_id, exercice_id, month, branch_id, chart_entry_id)
    ) WITH (fillfactor = 70)`);
  await applySqlSource(knex, 'triggers/coopbank_sum_entry');
  await applySqlSource(knex, 'functions/coopbank_month_total_gaps');
  await knex.raw(`
    INSERT INTO ledger_month_totals (enterprise_id, exercice_id, month, branch_id, chart_entry_id, debit, credit, line_count)
    SELECT e.enterprise_id, e.exercice_id, date_trunc('month', e.entry_date)::date, e.branch_id, l.chart_entry_id, sum(l.debit), sum(l.credit), count(*)
      FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
     GROUP BY 1, 2, 3, 4, 5`);
  // "summed" sorts after "chained": the chain head is held before a month's total is taken (coopbank_sum_entry).
  await knex.raw('CREATE CONSTRAINT TRIGGER journal_entries_summed AFTER INSERT ON journal_entries DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION coopbank_sum_entry()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER journal_entries_summed ON journal_entries');
  await knex.raw('DROP FUNCTION coopbank_month_total_gaps(uuid)');
  await knex.raw('DROP FUNCTION coopbank_sum_entry()');
  await knex.raw('DROP TABLE ledger_month_totals');
}
