-- The guard of a repayment written without holding the loan's lock (20261127600000_repayment_loan_guard): given
-- what its statement's UPDATE of the loan matched (the loan's id when its row version is still the one the
-- repayment read, NULL otherwise), answers the id, or fails the whole statement with a serialization failure,
-- which the caller answers by repaying again with the loan locked.
CREATE OR REPLACE FUNCTION public.coopbank_unchanged_loan(updated uuid)
 RETURNS uuid
 LANGUAGE plpgsql
AS $function$
    BEGIN
      IF updated IS NULL THEN
        RAISE EXCEPTION 'the loan changed after the repayment read it' USING ERRCODE = 'serialization_failure';
      END IF;
      RETURN updated;
    END $function$
