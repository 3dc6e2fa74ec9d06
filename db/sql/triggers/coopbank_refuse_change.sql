-- BEFORE UPDATE OR DELETE on the append-only tables (entries, lines, their numbers, events, rules, repayments,
-- share payments, loan decisions): a correction is a reversing entry, never an edit.
CREATE OR REPLACE FUNCTION public.coopbank_refuse_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      RAISE EXCEPTION '% is append-only: post a reversing entry instead', TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
    END $function$
