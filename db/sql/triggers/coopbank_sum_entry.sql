-- Deferred trigger on journal_entries (20261207200000_ledger_month_totals): the entry's lines are added to the
-- month's totals of their year, branch and account (ledger_month_totals), whoever posts, in the posting's own
-- transaction, at commit, as one upsert per entry (its lines grouped by account). At commit, not at the insert: a
-- month's total of a busy account (the branch's cash) is a row every posting updates, and its lock is then held
-- only while the posting commits. Named to fire after journal_entries_chained: the enterprise's chain head is held
-- already, so the commits of one enterprise take these rows one at a time and cannot deadlock on them.
CREATE OR REPLACE FUNCTION public.coopbank_sum_entry()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      INSERT INTO ledger_month_totals AS t (enterprise_id, exercice_id, month, branch_id, chart_entry_id, debit, credit, line_count)
      SELECT NEW.enterprise_id, NEW.exercice_id, date_trunc('month', NEW.entry_date)::date, NEW.branch_id, l.chart_entry_id, sum(l.debit), sum(l.credit), count(*)
        FROM journal_lines l
       WHERE l.entry_id = NEW.id
       GROUP BY l.chart_entry_id
       ORDER BY l.chart_entry_id
      ON CONFLICT (enterprise_id, exercice_id, month, branch_id, chart_entry_id) DO UPDATE
        SET debit = t.debit + excluded.debit, credit = t.credit + excluded.credit, line_count = t.line_count + excluded.line_count;
      RETURN NULL;
    END $function$
