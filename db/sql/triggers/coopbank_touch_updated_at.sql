-- BEFORE UPDATE on every table with the standard columns (db/migration-helpers.ts, touchUpdatedAtOnUpdate):
-- the database keeps updated_at itself, so set-based updates that bypass the models keep it too.
CREATE OR REPLACE FUNCTION public.coopbank_touch_updated_at()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      NEW.updated_at := now();
      RETURN NEW;
    END $function$
