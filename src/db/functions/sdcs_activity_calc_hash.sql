CREATE OR REPLACE FUNCTION public.sdcs_activity_calc_hash()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public'
AS $function$
BEGIN
  SELECT encode(sha256(convert_to(d.calc_code, 'UTF8')), 'hex') INTO NEW.calc_code_sha256
    FROM activity_definitions d WHERE d.id = NEW.activity_definition_id;
  RETURN NEW;
END
$function$;

CREATE OR REPLACE TRIGGER activities_calc_hash BEFORE INSERT OR UPDATE OF value, input, metadata, activity_definition_id ON public.activities FOR EACH ROW EXECUTE FUNCTION sdcs_activity_calc_hash();
