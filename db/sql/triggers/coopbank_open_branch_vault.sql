-- AFTER INSERT on branches (issue 29, 20261204000000_tills): every branch has its vault, the branch's 5710
-- Caisse FCFA, whoever creates the branch (the enterprise's head office, a new branch, a test's insert).
CREATE OR REPLACE FUNCTION public.coopbank_open_branch_vault()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      INSERT INTO tills (enterprise_id, branch_id, code, label, kind, account_code)
      VALUES (NEW.enterprise_id, NEW.id, 'VAULT', left('Coffre ' || NEW.name, 200), 'vault', '5710');
      RETURN NULL;
    END $function$
