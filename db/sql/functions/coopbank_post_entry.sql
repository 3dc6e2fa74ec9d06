-- One balanced entry of lines [{account, debit, credit}] by account code (20261124000000_posting_functions;
-- generic plan 20261128200000; journal 20261129700000_journals). Every account must be in the chart, active and a
-- leaf (company_chart_leaves); the chart rows are key-share locked so no deactivation slips in. The codes are read
-- from `lines` inside each statement, where PostgreSQL cannot count them whether or not it knows `lines`: the
-- generic plan is kept instead of planning again at every posting (issue 14).
-- The journal: the one the caller names, else the reversed entry's, else the journal listing the kind of the rule
-- or event (journals.event_kinds), else by the lines (57 cash → CAI, 56 → BQ, else OD).
-- Off-balance (20261203200000_off_balance_chart): an entry is all class 9 or has no class 9 line (an engagement
-- is not an asset nor a liability: mixing them would let one side of a real entry sit off the balance sheet), and an
-- entry of class 9 alone, of no journal named otherwise, is a hors-bilan (HB) entry.
CREATE OR REPLACE FUNCTION public.coopbank_post_entry(enterprise uuid, branch uuid, entry_date date, lines jsonb, description text, event uuid, rule_config uuid, reverses_entry uuid, created_by uuid, journal text DEFAULT NULL::text)
 RETURNS uuid
 LANGUAGE plpgsql
AS $function$
    DECLARE
      accounts jsonb;
      problem record;
      exercice uuid;
      entry uuid;
      off_balance record;
    BEGIN
      WITH locked AS (
        SELECT c.id, c.code, c.is_active,
               -- company_chart_leaves is the one definition of a leaf (see the chart migration).
               EXISTS (SELECT 1 FROM company_chart_leaves leaf WHERE leaf.id = c.id) AS is_leaf
          FROM company_chart_entries c
         WHERE c.enterprise_id = enterprise AND c.code = ANY (ARRAY(SELECT line->>'account' FROM jsonb_array_elements(lines) AS line))
           FOR KEY SHARE OF c
      )
      SELECT jsonb_object_agg(locked.code, jsonb_build_object('id', locked.id, 'active', locked.is_active, 'leaf', locked.is_leaf)) INTO accounts FROM locked;
      SELECT l.code, accounts->l.code AS account INTO problem
        FROM jsonb_array_elements(lines) WITH ORDINALITY AS line(value, ord)
       CROSS JOIN LATERAL (SELECT line.value->>'account') AS l(code)
       WHERE accounts->l.code IS NULL OR NOT (accounts->l.code->>'active')::boolean OR NOT (accounts->l.code->>'leaf')::boolean
       ORDER BY line.ord LIMIT 1;
      IF FOUND AND problem.account IS NULL THEN
        PERFORM coopbank_refuse('CB422', 'account_unknown', format('Account %s is not in the enterprise''s chart.', problem.code));
      ELSIF FOUND AND NOT (problem.account->>'active')::boolean THEN
        PERFORM coopbank_refuse('CB422', 'account_inactive', format('Account %s is deactivated.', problem.code));
      ELSIF FOUND THEN
        PERFORM coopbank_refuse('CB422', 'account_not_leaf', format('Account %s has sub-accounts: post to one of them.', problem.code));
      END IF;

      SELECT bool_or(line->>'account' LIKE '9%') AS some, bool_and(line->>'account' LIKE '9%') AS every INTO off_balance FROM jsonb_array_elements(lines) AS line;
      IF off_balance.some AND NOT off_balance.every THEN
        PERFORM coopbank_refuse('CB422', 'off_balance_mixed', 'An entry with off-balance lines (class 9) may not have lines of the other classes: post the engagement apart.');
      END IF;

      SELECT y.id INTO exercice FROM exercices_comptables y WHERE y.enterprise_id = enterprise AND entry_date BETWEEN y.start_date AND y.end_date;
      IF NOT FOUND THEN
        PERFORM coopbank_refuse('CB409', 'no_exercice_for_date', format('No accounting year of the enterprise covers %s.', entry_date));
      END IF;

      IF journal IS NULL AND reverses_entry IS NOT NULL THEN
        SELECT r.journal_code INTO journal FROM journal_entries r WHERE r.id = reverses_entry;
      END IF;
      IF journal IS NULL AND (rule_config IS NOT NULL OR event IS NOT NULL) THEN
        SELECT j.code INTO journal FROM journals j
         WHERE coalesce((SELECT r.kind FROM accounting_rule_configs r WHERE r.id = rule_config),
                        (SELECT ev.kind FROM business_event_logs ev WHERE ev.id = event)) = ANY (j.event_kinds);
      END IF;
      IF journal IS NULL AND off_balance.every THEN
        journal := 'HB';
      END IF;
      IF journal IS NULL THEN
        SELECT CASE WHEN bool_or(line->>'account' LIKE '57%') THEN 'CAI' WHEN bool_or(line->>'account' LIKE '56%') THEN 'BQ' ELSE 'OD' END
          INTO journal FROM jsonb_array_elements(lines) AS line;
      END IF;
      INSERT INTO journal_entries AS e (enterprise_id, exercice_id, branch_id, entry_date, event_id, rule_config_id, reverses_entry_id, description, created_by, journal_code)
      VALUES (enterprise, exercice, branch, entry_date, event, rule_config, reverses_entry, description, created_by, journal)
      RETURNING e.id INTO entry;
      INSERT INTO journal_lines (enterprise_id, entry_id, chart_entry_id, debit, credit)
      SELECT enterprise, entry, (accounts->(l.line->>'account')->>'id')::uuid, (l.line->>'debit')::numeric, (l.line->>'credit')::numeric
        FROM jsonb_array_elements(lines) WITH ORDINALITY AS l(line, ord)
       ORDER BY l.ord;
      RETURN entry;
    END $function$
