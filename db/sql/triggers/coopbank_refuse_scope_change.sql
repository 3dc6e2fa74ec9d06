-- On comptes_clients and loans (20261128000000_fixed_account_scopes): a member account and a loan belong to one
-- enterprise and one branch for good; the API process remembers where an account lies instead of reading it on
-- every movement. Only a change of those two columns fires the trigger: balance updates never do.
CREATE OR REPLACE FUNCTION public.coopbank_refuse_scope_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      RAISE EXCEPTION 'a row of % never changes enterprise or branch', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
    END $function$
