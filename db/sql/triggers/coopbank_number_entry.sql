-- Deferred trigger on journal_entries (20261129700000_journals): the entry's number in its journal and year, given
-- at commit, not when the entry is written: the counter row of a journal and year is then held only while the
-- posting commits, and the postings of one journal (every cash movement of the enterprise) do not wait for each
-- other's work, only for each other's commit. Deferred triggers fire in the order their rows were written:
-- entries of one transaction are numbered in posting order. A rolled-back posting never takes a number.
CREATE OR REPLACE FUNCTION public.coopbank_number_entry()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    DECLARE
      next_number integer;
    BEGIN
      INSERT INTO journal_sequences AS s (enterprise_id, exercice_id, journal_code, last_number) VALUES (NEW.enterprise_id, NEW.exercice_id, NEW.journal_code, 1)
      ON CONFLICT (enterprise_id, exercice_id, journal_code) DO UPDATE SET last_number = s.last_number + 1
      RETURNING s.last_number INTO next_number;
      INSERT INTO journal_entry_numbers (entry_id, enterprise_id, exercice_id, journal_code, number) VALUES (NEW.id, NEW.enterprise_id, NEW.exercice_id, NEW.journal_code, next_number);
      RETURN NULL;
    END $function$
