-- What pledged deposits hold on a member account (20261129950000_guarantee_holds): the guarantee_holds view is
-- the one rule of the holds in force, read by the debits and by the provisioning run.
CREATE OR REPLACE FUNCTION public.coopbank_held_amount(account uuid)
 RETURNS numeric
 LANGUAGE sql
 STABLE
AS $function$
      SELECT coalesce(sum(h.value), 0) FROM guarantee_holds h WHERE h.compte_client_id = account
    $function$
