-- The canonical serialization of a chained row (20261201400000_audit_trail_chain, docs/architecture.md §4 "Tamper
-- evidence"): the one text both the commit trigger and the verification hash, so they cannot drift. jsonb prints
-- its keys sorted, whatever the order written; dates and times are formatted here, in UTC, so no session setting
-- (TimeZone, DateStyle) changes the text. An entry is hashed with its lines: an amount edited is found. NULL for a
-- row that no longer exists. Tables are named with their schema: a session's temporary table of the same name
-- comes first in the search path and must not stand in for the ledger's (the same holds in coopbank_chain_link).
CREATE OR REPLACE FUNCTION public.coopbank_chain_row(chain text, row_id text)
 RETURNS text
 LANGUAGE sql
 STABLE
AS $function$
      SELECT CASE chain
        WHEN 'journal_entries' THEN (
          SELECT jsonb_build_object(
                   'id', e.id, 'enterprise', e.enterprise_id, 'exercice', e.exercice_id, 'branch', e.branch_id, 'journal', e.journal_code,
                   'date', to_char(e.entry_date, 'YYYY-MM-DD'), 'event', e.event_id, 'rule', e.rule_config_id, 'reverses', e.reverses_entry_id,
                   'description', e.description, 'created_by', e.created_by,
                   'created_at', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                   'lines', (SELECT coalesce(jsonb_agg(jsonb_build_array(l.chart_entry_id, l.debit::text, l.credit::text) ORDER BY l.id), '[]'::jsonb)
                               FROM public.journal_lines l WHERE l.entry_id = e.id))::text
            FROM public.journal_entries e WHERE e.id = row_id::uuid)
        WHEN 'audit_events' THEN (
          SELECT jsonb_build_object(
                   'id', a.id, 'enterprise', a.enterprise_id, 'actor', a.actor_id, 'action', a.action, 'entity_type', a.entity_type,
                   'entity_id', a.entity_id, 'details', a.details, 'before', a.before, 'after', a.after, 'request_id', a.request_id,
                   'address', a.address, 'occurred_at', to_char(a.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))::text
            FROM public.audit_events a WHERE a.id = row_id::bigint)
      END
    $function$
