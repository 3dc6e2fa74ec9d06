-- BEFORE INSERT on journal_entries (20261124000000_posting_functions): a posting outside an open accounting year
-- is refused by the database itself, whatever inserts the entry. The year row is key-share locked: a closing
-- (SELECT … FOR UPDATE, then the update) waits for this posting to commit, or this posting waits for the closing
-- and reads the year closed; postings do not wait for each other.
CREATE OR REPLACE FUNCTION public.coopbank_check_entry_in_open_exercice()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    DECLARE
      exercice record;
    BEGIN
      SELECT y.code, y.status, y.start_date, y.end_date, y.enterprise_id INTO exercice FROM exercices_comptables y WHERE y.id = NEW.exercice_id FOR KEY SHARE;
      IF NOT FOUND OR exercice.enterprise_id <> NEW.enterprise_id OR NEW.entry_date NOT BETWEEN exercice.start_date AND exercice.end_date THEN
        PERFORM coopbank_refuse('CB409', 'no_exercice_for_date', format('No accounting year of the enterprise covers %s.', NEW.entry_date));
      END IF;
      IF exercice.status <> 'open' THEN
        PERFORM coopbank_refuse('CB409', 'exercice_closed', format('The accounting year %s is closed: nothing more can be posted to %s.', exercice.code, NEW.entry_date));
      END IF;
      RETURN NEW;
    END $function$
