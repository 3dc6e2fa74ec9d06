-- On savings_product_rates (20261129400000_savings_rate_history): a rate change is a new row from its date,
-- never an edit, so a posting computed with the rates can be computed again.
CREATE OR REPLACE FUNCTION public.coopbank_savings_rate_immutable()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      RAISE EXCEPTION 'savings_product_rates is append-only: a rate change is a new row from its date';
    END $function$
