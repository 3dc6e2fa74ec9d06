-- Deferred trigger on journal_entries and audit_events (20261201400000_audit_trail_chain): the row joins its
-- enterprise's hash chain at commit, when an entry's lines are all written, and the chain head is held only while
-- the transaction commits, as the journal counters are. On journal_entries it is named to fire before
-- journal_entries_numbered, so the head is always taken before a counter.
CREATE OR REPLACE FUNCTION public.coopbank_chain_committed_row()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      PERFORM coopbank_chain_link(TG_TABLE_NAME, NEW.enterprise_id, NEW.id::text);
      RETURN NULL;
    END $function$
