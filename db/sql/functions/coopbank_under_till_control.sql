-- Whether a branch is under till control (issue 29, docs/domain.md §13.1): a till of it is in service, assigned to a
-- cashier. The one definition of it, read by coopbank_cash_account for each cash operation and by the branch's day
-- close (the vault must then be counted).
CREATE OR REPLACE FUNCTION public.coopbank_under_till_control(branch uuid)
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$
      SELECT EXISTS (SELECT 1 FROM tills t WHERE t.branch_id = branch AND t.kind = 'till' AND t.is_active AND t.cashier_id IS NOT NULL)
    $function$
