-- On reporting_packs (20261129000000_reporting_pack_versions): a stored pack stays as it was sent; a correction
-- is a new version.
CREATE OR REPLACE FUNCTION public.coopbank_stored_reporting_pack_unchanged()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      RAISE EXCEPTION 'reporting pack % version % is stored: a pack sent stays as it was sent (reissue it as a new version)', OLD.period, OLD.version;
    END $function$
