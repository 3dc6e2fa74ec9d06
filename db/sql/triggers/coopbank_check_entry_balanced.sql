-- Deferred constraint trigger on journal_lines (20261122050000_ledger): checked at COMMIT, once all lines of the
-- entry are in: debits = credits, at least two lines, every account in the entry's enterprise.
-- SET enable_seqscan off (20261124000000_posting_functions): a session plans this check once and keeps the plan;
-- planned while journal_lines was young (before its first ANALYZE) it was a sequential scan, read at every commit
-- for the life of the connection, ever longer as the ledger grows. By the index, always.
-- Class 9 apart (20261203200000_off_balance_chart): an entry's lines are all off-balance or none is, whoever
-- inserts them (coopbank_post_entry refuses such an entry first, with its catalogue code).
CREATE OR REPLACE FUNCTION public.coopbank_check_entry_balanced()
 RETURNS trigger
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
AS $function$
    DECLARE
      unbalanced record;
    BEGIN
      SELECT e.id, coalesce(sum(l.debit), 0) AS debit, coalesce(sum(l.credit), 0) AS credit, count(l.id) AS lines,
             count(*) FILTER (WHERE c.enterprise_id <> e.enterprise_id) AS foreign_accounts,
             count(*) FILTER (WHERE c.class = 9) AS off_balance
        INTO unbalanced
        FROM journal_entries e
        LEFT JOIN journal_lines l ON l.entry_id = e.id
        LEFT JOIN company_chart_entries c ON c.id = l.chart_entry_id
       WHERE e.id = NEW.entry_id
       GROUP BY e.id;
      IF unbalanced.debit <> unbalanced.credit OR unbalanced.lines < 2 OR unbalanced.foreign_accounts > 0 THEN
        RAISE EXCEPTION 'journal entry % is not balanced (debit %, credit %, % lines, % foreign accounts)',
          unbalanced.id, unbalanced.debit, unbalanced.credit, unbalanced.lines, unbalanced.foreign_accounts
          USING ERRCODE = 'check_violation', CONSTRAINT = 'journal_entries_balanced';
      END IF;
      IF unbalanced.off_balance NOT IN (0, unbalanced.lines) THEN
        RAISE EXCEPTION 'journal entry % mixes % off-balance lines (class 9) with % others', unbalanced.id, unbalanced.off_balance, unbalanced.lines - unbalanced.off_balance
          USING ERRCODE = 'check_violation', CONSTRAINT = 'journal_entries_off_balance_apart';
      END IF;
      RETURN NULL;
    END $function$
