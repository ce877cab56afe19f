-- Records the calcCode a definition is given (a new definition, a changed calcCode or a change of
-- is_common), by SHA-256, in activity_calc_code_versions (migration 0054): an audit pack hands out
-- the exact code behind each activity's calc_code_sha256 even after the definition changed.
CREATE OR REPLACE FUNCTION public.sdcs_keep_calc_code_version()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public'
AS $function$
BEGIN
  INSERT INTO activity_calc_code_versions (organization_id, definition_id, sha256, calc_code, is_common)
  VALUES (NEW.organization_id, NEW.id, encode(sha256(convert_to(NEW.calc_code, 'UTF8')), 'hex'),
          NEW.calc_code, NEW.is_common)
  ON CONFLICT (definition_id, sha256) DO UPDATE SET is_common = activity_calc_code_versions.is_common OR EXCLUDED.is_common;
  RETURN NEW;
END
$function$;

CREATE OR REPLACE TRIGGER activity_definitions_keep_calc_code AFTER INSERT OR UPDATE OF calc_code, is_common ON public.activity_definitions FOR EACH ROW EXECUTE FUNCTION sdcs_keep_calc_code_version();
