-- Deferred constraint trigger on journal_entries (20261122050000_ledger): an entry without lines is caught too,
-- the same check fires for the entry row itself. enable_seqscan off: see coopbank_check_entry_balanced.
CREATE OR REPLACE FUNCTION public.coopbank_check_entry_has_lines()
 RETURNS trigger
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
AS $function$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM journal_lines WHERE entry_id = NEW.id) THEN
        RAISE EXCEPTION 'journal entry % has no lines', NEW.id
          USING ERRCODE = 'check_violation', CONSTRAINT = 'journal_entries_balanced';
      END IF;
      RETURN NULL;
    END $function$
