-- On reporting_pack_files (20261127300000_reporting_packs): a file sent stays as it was sent.
CREATE OR REPLACE FUNCTION public.coopbank_reporting_pack_file_immutable()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      RAISE EXCEPTION 'reporting_pack_files is append-only: a file sent stays as it was sent';
    END $function$
