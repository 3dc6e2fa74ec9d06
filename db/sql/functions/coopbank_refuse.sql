-- Raises a ledger refusal (20261124000000_posting_functions): the functions keep the refusals the activities
-- made, with their codes (DETAIL) and kinds (SQLSTATE CB404 not found, CB409 conflict, CB422 unprocessable),
-- so callers see the same AppErrors (activities/events/ledger-refusal.ts).
CREATE OR REPLACE FUNCTION public.coopbank_refuse(state text, refusal text, message text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    BEGIN
      RAISE EXCEPTION USING ERRCODE = state, MESSAGE = message, DETAIL = refusal;
    END $function$
