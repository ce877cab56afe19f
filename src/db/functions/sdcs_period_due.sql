-- When a period's data is due: `due_days` days after the period's end (UTC), as dueAt() in
-- completeness.periods.ts; null without due days.

CREATE OR REPLACE FUNCTION public.sdcs_period_due(year integer, period_type text, period_unit integer, due_days integer)
 RETURNS timestamp with time zone
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT (make_timestamp(year, 1, 1, 0, 0, 0)
          + make_interval(months => period_unit * CASE period_type WHEN 'YEARLY' THEN 12 WHEN 'QUARTERLY' THEN 3 ELSE 1 END,
                          days => due_days)) AT TIME ZONE 'UTC'
$function$;
