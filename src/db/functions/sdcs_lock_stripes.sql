-- Locks the stripes of one organization that a statement writes, and answers the stripe its rows go
-- to: the one stripe of its (site, year) pairs, or, when they fall in several, all 16 in order and
-- stripe 0 (a holder of every lock may write any stripe; one stripe keeps a bulk write's rows as few
-- as before stripes). A null stripe (a form-site no longer there) counts as several.

CREATE OR REPLACE FUNCTION public.sdcs_lock_stripes(org uuid, stripes smallint[])
 RETURNS smallint
 LANGUAGE plpgsql
AS $function$
DECLARE
  wanted constant smallint[] := ARRAY(SELECT DISTINCT s FROM unnest(stripes) s);
  s integer;
BEGIN
  IF cardinality(wanted) = 0 THEN RETURN 0; END IF;
  IF cardinality(wanted) = 1 AND wanted[1] IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(hashtextextended('sdcs.aggregates:' || org::text, wanted[1]));
    RETURN wanted[1];
  END IF;
  FOR s IN 0..15 LOOP
    PERFORM pg_advisory_xact_lock(hashtextextended('sdcs.aggregates:' || org::text, s));
  END LOOP;
  RETURN 0;
END $function$;
