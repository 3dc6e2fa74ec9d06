-- The check that the maintained month totals equal the lines (20261207200000_ledger_month_totals): every
-- (year, month, branch, account) of an enterprise where ledger_month_totals and the sums of journal_lines differ,
-- or where either has a row and the other none. No row: they tie out. Run by the tests that post a lot and
-- answerable by the ledger verification.
CREATE OR REPLACE FUNCTION public.coopbank_month_total_gaps(enterprise uuid)
 RETURNS TABLE(exercice_id uuid, month date, branch_id uuid, chart_entry_id uuid, kept_debit numeric, kept_credit numeric, kept_lines bigint, line_debit numeric, line_credit numeric, line_count bigint)
 LANGUAGE sql
 STABLE
AS $function$
      WITH summed AS (
        SELECT e.exercice_id, date_trunc('month', e.entry_date)::date AS month, e.branch_id, l.chart_entry_id,
               sum(l.debit) AS debit, sum(l.credit) AS credit, count(*) AS lines
          FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
         WHERE e.enterprise_id = enterprise
         GROUP BY 1, 2, 3, 4
      ), kept AS (
        SELECT t.exercice_id, t.month, t.branch_id, t.chart_entry_id, t.debit, t.credit, t.line_count AS lines
          FROM ledger_month_totals t
         WHERE t.enterprise_id = enterprise
      )
      SELECT coalesce(k.exercice_id, s.exercice_id), coalesce(k.month, s.month), coalesce(k.branch_id, s.branch_id), coalesce(k.chart_entry_id, s.chart_entry_id),
             k.debit, k.credit, k.lines, s.debit, s.credit, s.lines
        FROM kept k
        FULL JOIN summed s ON s.exercice_id = k.exercice_id AND s.month = k.month AND s.branch_id IS NOT DISTINCT FROM k.branch_id AND s.chart_entry_id = k.chart_entry_id
       WHERE k.debit IS DISTINCT FROM s.debit OR k.credit IS DISTINCT FROM s.credit OR k.lines IS DISTINCT FROM s.lines
    $function$
